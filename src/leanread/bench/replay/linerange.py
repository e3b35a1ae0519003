"""A line-range edit (SWE-agent's ``edit N:M``, a trace ``edit`` op with ``lines: [N, M]``) as the
exact-text edit every strategy makes: the file's own lines N to M, widened by a line on each side
until the text occurs once in the file (what a model does when leanread's ``edit`` says its
``old_string`` is not unique)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def resolve_lines(op: dict[str, Any], target: Path) -> dict[str, Any]:
    """``op`` with ``old``/``new`` taken from ``target``'s current lines when it has ``lines``;
    other ops, failed ones and missing files are returned unchanged."""
    span = op.get("lines")
    if not isinstance(span, list) or len(span) != 2 or op.get("error") or not target.is_file():
        return op
    text = target.read_bytes().decode("utf-8", errors="surrogateescape")
    lines = text.splitlines(keepends=True)
    start, end = max(1, int(span[0])), min(len(lines), int(span[1]))
    new = str(op.get("new", ""))
    if start > len(lines):  # past the end: the new text goes after the last line
        start, end = len(lines) + 1, len(lines)
    old = "".join(lines[start - 1 : end])
    if old and not old.endswith("\n") and new.endswith("\n"):
        new = new[:-1]
    before: list[str] = []
    after: list[str] = []
    a, b = start, end
    while (not old or text.count("".join(before) + old + "".join(after)) != 1) and (a > 1 or b < len(lines)):
        if a > 1:
            a -= 1
            before.insert(0, lines[a - 1])
        if b < len(lines):
            b += 1
            after.append(lines[b - 1])
    if before and not before[-1].endswith("\n"):
        before[-1] += "\n"
    if not old and not before and not after:
        return {**op, "op": "write", "content": new}
    return {**op, "old": "".join(before) + old + "".join(after), "new": "".join(before) + new + "".join(after)}
