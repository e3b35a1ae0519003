"""Where a ``read`` without a path goes on: after the last window of the file the session read
last (the README's promise), kept in the ledger next to that path (``LedgerStore.set_last_path``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import InvalidArgument
from .store import NextWindow


def next_window_of(metadata: Mapping[str, Any]) -> NextWindow | None:
    """Where a ``read`` without a path goes on after the read whose result has ``metadata``:
    ``(line, character)``, both 1-based.

    After a window of lines, the line after its last (``last_line`` + 1, also when that is past
    the end: the file may grow); after a slice of one long line, the rest of that line, or the
    next line when the slice reached its end; after an outline, which shows no window of text,
    line 1. None for a result with no lines (an image).
    """
    if isinstance(metadata.get("char_offset"), int) and isinstance(metadata.get("last_char"), int):
        line, last, chars = metadata["offset"], metadata["last_char"], metadata.get("line_chars", 0)
        return (line, last + 1) if last < chars else (line + 1, 1)
    if metadata.get("type") == "outline":
        return (1, 1)
    last_line = metadata.get("last_line")
    return (last_line + 1, 1) if isinstance(last_line, int) else None


def nothing_follows(path: str, last: int, total: int) -> InvalidArgument:
    """The refusal of a read without a path after a read that showed ``path`` to line ``last``,
    past which its ``total`` lines hold nothing."""
    where = f"at its last line ({total})" if last == total else f"at line {last}, past its {total} lines now"
    return InvalidArgument(
        f"The last read of {path} ended {where}, so a read without a path has nothing to go on with; "
        f"pass offset (1 to {total}) to read {path} again, or a path to read another file."
    )


def window_args(place: NextWindow | None, offset: int | None, char_offset: int | None) -> tuple[int | None, int | None]:
    """The ``offset`` and ``char_offset`` of a read: ``place``'s when the read goes on from one
    (a character of 1 is the line from its start: no ``char_offset``), else those given."""
    if place is None:
        return offset, char_offset
    line, char = place
    return line, (char if char > 1 else None)
