"""The ``leanread`` command: the tools from a shell, the MCP server, the inspect page, the benchmarks.

The top layer of leanread (see ``docs/ARCHITECTURE.md``): it may import everything; nothing
imports it.

- ``app``: the command and its tool commands (``read``, ``grep``, ``ls``, ``serve``, ...);
- ``tools``: ``edit``, ``write`` and ``context``, and ``mcp-config``;
- ``clientconfig``, ``clientwrite``: ``mcp-config CLIENT``, printed or merged into its file.
"""
