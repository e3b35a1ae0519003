"""The tools, one module or package each, with their model-facing descriptions in sibling ``.txt``
files; what a tool is (``spec.ToolSpec``) and which there are (``registry``).

Layer 7 of leanread (see ``docs/ARCHITECTURE.md``): imports ``ledger``, ``pruning``, ``view``,
``files``, ``documents``, ``code``, ``config`` and the base modules; never ``session`` or a shell.
"""

from __future__ import annotations

import importlib.resources

from ..config.settings import Limits
from ..view.render import byte_size


def description(tool: str, limits: Limits, *, text: str | None = None, **extra: object) -> str:
    """The description of ``tool`` (``text``, or else the file ``tools/<tool>.txt``), with the
    limits (and a tool's own constants, ``extra``) filled in, so the text never drifts from the code."""
    if text is None:
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
