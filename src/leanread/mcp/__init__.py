"""The MCP server: leanread's tools over the official ``mcp`` SDK, on stdio and streamable HTTP.

Layer 9 of leanread (see ``docs/ARCHITECTURE.md``), beside ``adapters`` and ``inspector``:
imports ``session`` and everything below it.

- ``server``: the server, its sessions per client, the tool list and calls;
- ``http``: ``serve --http``: the stateless HTTP transport, bearer tokens, session names;
- ``wire``: requests the SDK cannot parse (lone surrogates), mended and refused in one sentence;
- ``client_roots``: a client's roots as the workspace roots;
- ``pipes``: stdin and stdout read and written on the event loop, not in worker threads.
"""
