"""leanread's tools for harnesses that run their own model loop, in-process.

Layer 9 of leanread (see ``docs/ARCHITECTURE.md``), beside ``mcp`` and ``inspector``: imports
``session`` and everything below it.

- ``harness``: OpenAI (Chat Completions, Responses) and Anthropic tool definitions and results;
- ``pydantic_toolset``: a pydantic-ai toolset over a ``Session``.
"""
