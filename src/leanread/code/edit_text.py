"""Lines of an edit's texts (old_string, new_string, the logical text): split without their
endings. Pure; used by every rule of ``edit_plan``."""

from __future__ import annotations


def split_ending(text: str) -> tuple[list[str], bool]:
    """Lines of ``text`` without endings, and whether it ends with ``"\\n"`` (which adds no
    empty line; "" is one empty line)."""
    lines = text.split("\n")
    ending = len(lines) > 1 and lines[-1] == ""
    if ending:
        lines.pop()
    return lines, ending


def lines_of(text: str) -> list[str]:
    """Lines of ``text`` without endings (see ``split_ending``)."""
    return split_ending(text)[0]
