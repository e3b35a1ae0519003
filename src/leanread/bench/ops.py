"""Apply a trace's file operations to a scratch copy of its repository.

These are the agent's own changes (``edit``, ``insert``, ``write``, ``undo_edit``) replayed
directly on disk, so that later reads see the files as the agent did. Paths outside the scratch
copy are never touched.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

FILE_CHANGES = frozenset({"edit", "insert", "write", "undo_edit"})
#: why an edit was skipped when the file does not hold its old text exactly.
OLD_TEXT_NOT_FOUND = "skipped: old text not found"


def inside(root: Path, path: str) -> Path | None:
    """``root / path`` when ``path`` is relative and stays inside ``root``, else None."""
    if Path(path).is_absolute():
        return None
    target = (root / path).resolve()
    return target if target.is_relative_to(root.resolve()) else None


class Replayer:
    """Applies file changes in order and keeps what ``undo_edit`` needs.

    Args:
        root: the scratch copy; only files under it are changed.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._history: dict[Path, list[bytes | None]] = {}

    def apply(self, op: dict[str, Any]) -> str:
        """Apply one change op; returns ``"applied"``, or why it was skipped."""
        if op.get("error"):
            return "skipped: failed in the original run"
        target = inside(self.root, str(op.get("path", "")))
        if target is None:
            return "skipped: outside the repository"
        kind = op["op"]
        if kind == "undo_edit":
            history = self._history.get(target)
            if not history:
                return "skipped: nothing to undo"
            previous = history.pop()
            if previous is None:
                target.unlink(missing_ok=True)
            else:
                target.write_bytes(previous)
            return "applied"
        before = target.read_bytes() if target.is_file() else None
        new = self._changed(kind, op, before)
        if new is None:
            return OLD_TEXT_NOT_FOUND
        self._history.setdefault(target, []).append(before)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(new)
        return "applied"

    @staticmethod
    def _changed(kind: str, op: dict[str, Any], before: bytes | None) -> bytes | None:
        text = (before or b"").decode("utf-8", errors="surrogateescape")
        if kind == "write":
            content = str(op.get("content", ""))
            text = text + content if op.get("append") else content
        elif kind == "edit":
            old, new = op.get("old"), str(op.get("new", ""))
            if before is None or not isinstance(old, str) or old not in text:
                return None
            text = text.replace(old, new, 1)
        else:  # insert after line ``line`` (0 = at the top)
            lines = text.splitlines(keepends=True)
            at = int(op.get("line", 0))
            addition = str(op.get("new", ""))
            if not addition.endswith("\n"):
                addition += "\n"
            lines.insert(min(at, len(lines)), addition)
            text = "".join(lines)
        return text.encode("utf-8", errors="surrogateescape")


def read_window(op: dict[str, Any], file: Path) -> tuple[int | None, int | None]:
    """The ``(offset, limit)`` of a trace ``read`` op; a ``tail`` of N lines becomes the offset
    of the file's last N lines."""
    tail = op.get("tail")
    if tail:
        total = len(file.read_bytes().splitlines())
        return max(1, total - int(tail) + 1), None
    offset = op.get("offset")
    limit = op.get("limit")
    return (int(offset) if offset else None), (int(limit) if limit else None)
