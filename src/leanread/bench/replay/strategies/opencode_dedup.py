"""opencode with the unchanged-read stub proposed in opencode PR #39997: a re-read of the same
path and range, while mtime and size are unchanged and the earlier output is still in the
history, gets a one-line stub instead of the lines."""

from __future__ import annotations

from ..strategy import AnchorStrategy


class OpencodeDedup(AnchorStrategy):
    name = "opencode-dedup"
    title = "opencode-dedup: opencode + unchanged stub keyed on path+range+mtime/size"
    order = 30
    line_format = "colon"
    stub = (
        "<path>{path}</path>\n<type>file</type>\n<content>\n"
        "(Lines {first}-{last} are unchanged since your earlier read of this range; that output is still in "
        "your context.)\n</content>"
    )
