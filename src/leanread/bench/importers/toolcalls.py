"""Helpers the importers of file-tool agents (Claude Code, opencode) share: a tool result's text,
the first line number a read showed, an error's first line, and the ``grep`` op of a search tool."""

from __future__ import annotations

import re
from typing import Any

from .shell import ShellMapper

Op = dict[str, Any]
#: ``error`` holds at most this many characters of a failed call's message.
ERROR_CHARS = 200
#: A numbered line of a read tool's answer: ``    12→x`` / ``12\tx`` (Claude Code), ``00012| x``
#: / ``12: x`` (opencode).
NUMBERED = re.compile(r"^\s*(\d+)(?:→|\t|\| |: )")


def text_of(content: Any) -> str:
    """The text of a tool result: a string, or the ``text`` of a list of content blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")
    return "" if content is None else str(content)


def first_line_number(output: str, scan: int = 6) -> int | None:
    """The number of the first numbered line among the first ``scan`` lines of ``output``, or None."""
    for line in output.split("\n", scan)[:scan]:
        found = NUMBERED.match(line)
        if found:
            return int(found.group(1))
    return None


def error_line(message: str) -> str:
    """The first non-empty line of an error message, without ``<tool_use_error>`` tags, cut to
    ``ERROR_CHARS``."""
    text = re.sub(r"</?tool_use_error>", "", message).strip()
    return (text.split("\n", 1)[0] if text else "error")[:ERROR_CHARS]


def obj(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else ``{}``."""
    return value if isinstance(value, dict) else {}


def int_or_none(value: Any) -> int | None:
    """``value`` as an int (numbers and digit strings), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def search_op(mapper: ShellMapper, pattern: Any, path: Any, files: Any, flags: list[str]) -> Op:
    """The ``grep`` op of a ripgrep-backed search tool: ``-E`` (ripgrep's regexes are extended
    ones) before ``flags``, the path relative to the repository (``.`` when none), ``files`` the
    name filter (``glob``/``include``) when given."""
    op: Op = {"op": "grep", "pattern": str(pattern), "path": mapper.rel(str(path)) if path else "."}
    op["flags"] = ["-E", *flags]
    if files:
        op["files"] = str(files)
    return op
