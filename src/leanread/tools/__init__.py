"""The tools, one module each, with their model-facing descriptions in sibling ``.txt`` files."""

from __future__ import annotations

import importlib.resources

from ..config.settings import Limits
from ..view.render import byte_size


def description(tool: str, limits: Limits, **extra: object) -> str:
    """The description of ``tool`` from ``tools/<tool>.txt``, with the limits (and a tool's own
    constants, ``extra``) filled in, so the text never drifts from the code."""
    text = importlib.resources.files(__package__).joinpath(f"{tool}.txt").read_text("utf-8")
    return text.format(
        max_lines=limits.max_lines,
        max_lines_next=limits.max_lines + 1,
        max_size=byte_size(limits.max_bytes),
        max_line_chars=limits.max_line_chars,
        max_line_chars_next=limits.max_line_chars + 1,
        outline_lines=limits.outline_lines,
        outline_size=byte_size(limits.outline_bytes),
        **extra,
    ).strip()
