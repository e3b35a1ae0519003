"""opencode's read tool (``packages/opencode/src/tool/read.ts``): ``N: `` before every line, 2000
lines, a 50 KB cap on the lines' bytes, lines cut at 2000 characters, no dedup."""

from __future__ import annotations

from ..strategy import AnchorStrategy


class Opencode(AnchorStrategy):
    name = "opencode"
    title = "opencode: `N: ` prefixes, 2000 lines, 50 KB, 2000 chars, no dedup"
    order = 10
    line_format = "colon"
