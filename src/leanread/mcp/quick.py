"""Which tool calls the server runs where the request arrived, on its event loop, rather than in
a worker thread: the two thread hand-offs are a quarter of a small read's round trip over stdio
on two cores, but a call on the loop holds up every other request until it ends.

So a call runs there only when it is one that may be small (``ToolSpec.quick``: a plain read of
one file) and the last read of that same file, as the model named it, was a text window that
took under ``QUICK_S``. The first read of a file, and the next after one that took longer or was
no text window (a document, an image, a folder, a refusal), runs in a thread. Nothing is looked
up on disk to decide, so a file system that hangs cannot stall the loop before a call has shown
it to be fast; a file that turns slow costs one call on the loop, and its reads go back to a
thread.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..memo import LRU
from ..result import ToolResult
from ..tools.registry import spec_of

#: Seconds a read may have taken for the next read of its file to run on the loop.
QUICK_S = 0.005

#: The result types of a text window (``read``'s ``type`` metadata).
_TEXT_WINDOWS = ("file", "outline")


class QuickCalls:
    """What the server has learned of each file's reads, keyed by workspace root and path as sent.

    Args:
        size: files remembered at most (the least recently read go first).
    """

    def __init__(self, size: int = 4096) -> None:
        self._fast: LRU[bool] = LRU(size)

    def _key(self, name: str, root: str, arguments: Mapping[str, Any]) -> tuple[str, str, str] | None:
        quick = spec_of(name).quick
        path = quick(arguments) if quick is not None else None
        return None if path is None else (name, root, path)

    def inline(self, name: str, root: str, arguments: Mapping[str, Any]) -> bool:
        """Whether to run this call of the tool ``name`` on the loop (module docstring)."""
        key = self._key(name, root, arguments)
        return key is not None and self._fast.get(key) is True

    def learn(self, name: str, root: str, arguments: Mapping[str, Any], result: ToolResult, seconds: float) -> None:
        """Note how a call went: a text window in under ``QUICK_S`` makes the file's next read
        quick, anything else makes it run in a thread."""
        key = self._key(name, root, arguments)
        if key is None:
            return
        if not result.is_error and result.metadata.get("type") in _TEXT_WINDOWS and seconds < QUICK_S:
            self._fast.put(key, True)
        else:
            self._fast.discard(key)
