"""kilo's plain read: opencode's tool without the line-number prefixes."""

from __future__ import annotations

from ..strategy import AnchorStrategy


class KiloPlain(AnchorStrategy):
    name = "kilo-plain"
    title = "kilo-plain: opencode without prefixes"
    order = 20
    line_format = "plain"
