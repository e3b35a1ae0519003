"""Which tool calls the server runs where the request arrived, on its event loop, rather than in
a worker thread: the two thread hand-offs are a tenth of a small read's round trip over stdio on
two cores, but a call on the loop holds up every other request until it ends.

So a call runs there only when it is one that may be small (``ToolSpec.quick``: a plain read of
one file) and the last call with the very same arguments was a text window that took under
``QUICK_S``, of a file on a local file system (``LOCAL_FILE_SYSTEMS``; a network or FUSE mount
can hang). The first such call, and the next after one that took longer or was no text window (a
document, an image, a folder, a refusal), runs in a thread; nothing is looked up on disk on the
loop to decide. A file replaced meanwhile by a slow one (a decompression bomb under the old
name) costs one call on the loop, after which its calls go back to a thread.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping
from typing import Any

from ..memo import LRU
from ..result import ToolResult
from ..tools.registry import spec_of

#: Seconds a read may have taken for the next such read to run on the loop.
QUICK_S = 0.005

#: Local and in-memory file systems (``/proc/self/mountinfo``'s type field): a read there may run
#: on the loop.
LOCAL_FILE_SYSTEMS = frozenset(
    {"ext2", "ext3", "ext4", "xfs", "btrfs", "bcachefs", "f2fs", "jfs", "zfs", "tmpfs", "ramfs", "overlay"}
)

#: The result types of a text window (``read``'s ``type`` metadata).
_TEXT_WINDOWS = ("file", "outline")

#: Seconds the mount table read is used for.
_MOUNTS_S = 10.0


class QuickCalls:
    """What the server has learned of each call, keyed by tool, workspace root and arguments.

    Args:
        size: calls remembered at most (the least recently made go first).
    """

    def __init__(self, size: int = 4096) -> None:
        self._fast: LRU[bool] = LRU(size)

    def _key(self, name: str, root: str, arguments: Mapping[str, Any]) -> tuple[str, str, str] | None:
        quick = spec_of(name).quick
        if quick is None or quick(arguments) is None:
            return None
        return (name, root, repr(sorted(arguments.items())))

    def inline(self, name: str, root: str, arguments: Mapping[str, Any]) -> bool:
        """Whether to run this call of the tool ``name`` on the loop (module docstring)."""
        key = self._key(name, root, arguments)
        return key is not None and self._fast.get(key) is True

    def local(self, name: str, root: str, arguments: Mapping[str, Any]) -> bool:
        """Whether the file the call reads lies on a local file system. Touches the file system
        (``realpath``): call it off the loop."""
        quick = spec_of(name).quick
        path = quick(arguments) if quick is not None else None
        if path is None:
            return False
        try:
            real = os.path.realpath(os.path.join(root, os.path.expanduser(path)))
        except (OSError, ValueError):
            return False
        return file_system_of(real, _mounts()) in LOCAL_FILE_SYSTEMS

    def learn(
        self, name: str, root: str, arguments: Mapping[str, Any], result: ToolResult, seconds: float, local: bool
    ) -> None:
        """Note how a call went: a text window of a ``local`` file in under ``QUICK_S`` makes the
        same call's next run quick, anything else makes it run in a thread."""
        key = self._key(name, root, arguments)
        if key is None:
            return
        fast = not result.is_error and result.metadata.get("type") in _TEXT_WINDOWS and seconds < QUICK_S
        if fast and local:
            self._fast.put(key, True)
        else:
            self._fast.discard(key)


def mount_points(mountinfo: str) -> list[tuple[str, str]]:
    """``(mount point, file system type)`` of each line of ``mountinfo`` (the text of
    ``/proc/self/mountinfo``, man proc(5); mount points are written with ``\\040``-style octal
    escapes), the deepest first: the first that holds a path is the one it lies on."""
    points: list[tuple[str, str]] = []
    for line in mountinfo.splitlines():
        fields = line.split(" ")
        if len(fields) < 10 or "-" not in fields[6:]:
            continue
        separator = fields.index("-", 6)
        if separator + 1 < len(fields):
            points.append((_unescaped(fields[4]), fields[separator + 1]))
    points.reverse()  # of two mounts on one point the later is on top: it stays first below
    points.sort(key=lambda point: len(point[0]), reverse=True)
    return points


def file_system_of(real: str, points: list[tuple[str, str]]) -> str | None:
    """The type of the file system that holds the absolute path ``real``: that of the deepest of
    ``points`` (``mount_points``) above it; None when none is."""
    for point, kind in points:
        if real == point or real.startswith(point.rstrip("/") + "/"):
            return kind
    return None


def _unescaped(field: str) -> str:
    if "\\" not in field:
        return field
    return field.encode("latin-1", "backslashreplace").decode("unicode_escape")


_mount_lock = threading.Lock()
_mount_points: tuple[float, list[tuple[str, str]]] = (-_MOUNTS_S, [])


def _mounts() -> list[tuple[str, str]]:
    """``mount_points`` of ``/proc/self/mountinfo`` as read at most ``_MOUNTS_S`` ago (none where
    there is no such file)."""
    global _mount_points
    with _mount_lock:
        read_at, points = _mount_points
        if time.monotonic() - read_at >= _MOUNTS_S:
            try:
                with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as handle:
                    points = mount_points(handle.read())
            except OSError:
                points = []
            _mount_points = (time.monotonic(), points)
        return points
