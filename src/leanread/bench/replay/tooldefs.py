"""What each strategy's tool definitions cost: the tokens the model holds for the whole session
once the client has sent it the tools (name, description and input schema of each), charged once
per trace by the replay report.

Every count is o200k_base tokens of ``json.dumps({"name", "description", <schema>},
ensure_ascii=False)`` per tool, summed. leanread's comes from its own ``tools/list`` (the
model-facing tools: ``context`` is for the harness and off the list by default). The anchors'
counts were taken the same way from their real texts, which are not copied here:

- opencode (MIT; also charged to kilo-plain and opencode-dedup, which keep its tools): the five
  tools the replay uses. Descriptions: ``packages/opencode/src/tool/read.txt`` at
  anomalyco/opencode (formerly sst/opencode) a2bdff38, ``grep.txt`` at 14c12f9c, ``glob.txt``
  at 48f95361, ``edit.txt`` and ``write.txt`` as upstream ships them (the indexed copies carried
  a fork's extra line, left out). Schemas: the zod parameters of ``read.ts`` (filePath, offset,
  limit; as in the index) and of ``grep.ts`` (pattern, path, include), ``glob.ts``, ``edit.ts``
  (filePath, oldString, newString, replaceAll) and ``write.ts`` (content, filePath) with their
  ``.describe()`` texts, as JSON Schema draft-07 with ``additionalProperties: false``.
- Claude Code (proprietary: counts only): Read, Write, Edit, Glob and Grep as a captured Claude Code
  system prompt lists them (claude-opus-4-6 session, captured 2026-09-06, tool JSON verbatim).
- For reference, not replayed: the MCP reference filesystem server's 14 tools (1,915) and
  Serena's tools in its claude-code context (5,494), as issue 19 measured them.

The lossless floor is charged nothing: it is a bound on results, not a tool.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from dataclasses import dataclass

from ...tokens import count_tokens


@dataclass(frozen=True)
class Definitions:
    """One strategy's tool definitions: their tokens per tool and where the texts come from."""

    tools: dict[str, int]
    source: str

    @property
    def tokens(self) -> int:
        return sum(self.tools.values())


OPENCODE = Definitions(
    {"read": 448, "grep": 294, "glob": 272, "edit": 457, "write": 237},
    "opencode's read/grep/glob/edit/write .txt descriptions and zod schemas (MIT; see module docstring)",
)
CLAUDE_CODE = Definitions(
    {"Read": 642, "Write": 245, "Edit": 395, "Glob": 230, "Grep": 941},
    "Claude Code's Read/Write/Edit/Glob/Grep as a captured system prompt lists them (counts only)",
)
FLOOR = Definitions({}, "none: the floor bounds results, not tools")
#: The anchors' definitions by strategy name; leanread's strategies use ``leanread_definitions``.
ANCHORS: dict[str, Definitions] = {
    "opencode": OPENCODE,
    "kilo-plain": OPENCODE,
    "opencode-dedup": OPENCODE,
    "claude-code": CLAUDE_CODE,
    "floor": FLOOR,
}
#: The strategies whose model holds leanread's tools (``leanread-cli`` holds a shell tool instead).
LEANREAD_STRATEGIES = (
    "leanread",
    "leanread-dedup-on",
    "leanread-dedup-off",
    "leanread+focus",
    "leanread-outline",
    "leanread-navigate",
)
#: Figures for reference only (issue 19's measurement), not tied to a replayed strategy.
REFERENCE: dict[str, int] = {"mcp-filesystem (14 tools)": 1_915, "serena (claude-code context)": 5_494}


def tool_tokens(name: str, description: str, schema: dict[str, object]) -> int:
    """o200k_base tokens of one tool definition as the model is sent it (the JSON of its name,
    description and input schema)."""
    tool = {"name": name, "description": description, "inputSchema": schema}
    return count_tokens(json.dumps(tool, ensure_ascii=False))


def leanread_definitions(expose_context_tool: bool = False) -> Definitions:
    """leanread's ``tools/list`` as a server with default settings gives it, counted per tool."""
    from ...ledger.store import MemoryLedger
    from ...mcp.server import build_server

    with tempfile.TemporaryDirectory() as root:
        server = build_server([root], ledger=MemoryLedger(), expose_context_tool=expose_context_tool)
        tools = asyncio.run(server.list_tools())
    counts = {t.name: tool_tokens(t.name, t.description or "", dict(t.input_schema)) for t in tools}
    return Definitions(counts, "leanread's own tools/list (default settings)")


def definitions_for(strategy: str, leanread: Definitions | None = None) -> Definitions | None:
    """The definitions a strategy's model holds: an anchor's from ``ANCHORS``, leanread's for any
    strategy of ``LEANREAD_STRATEGIES`` (``leanread`` given or measured now); None for one we have
    no texts of."""
    if strategy in ANCHORS:
        return ANCHORS[strategy]
    if strategy in LEANREAD_STRATEGIES:
        return leanread or leanread_definitions()
    return None
