"""The ``leanread`` command: the tools from a shell, the MCP server, the inspect page, the benchmarks.

The top layer of leanread (see ``docs/ARCHITECTURE.md``): it may import everything; nothing
imports it.

- ``main``: the console script, every command registered;
- ``app``: the app and what its commands share (options, settings, the session, printing);
- ``tools``: one command per tool, made from its ``ToolSpec``;
- ``sh``: a shell command, its reads answered through the ledger (``leanread.shell``);
- ``context``: ``context`` for harnesses and clients' hooks;
- ``serve``: ``serve``, ``inspect`` and ``mcp-config``; ``clientconfig`` and ``clientwrite`` make
  and merge a client's configuration;
- ``bench``: ``demo`` and ``bench ...``.
"""
