"""Which tool calls the server runs where the request arrived, on its event loop, rather than in
a worker thread: the two thread hand-offs are a tenth of a small read's round trip over stdio on
two cores, but a call on the loop holds up every other request until it ends.

So a call runs there only when it is one that may be small (``ToolSpec.quick``: a plain read of
one file) and the same call (the same arguments, under the same root) was, less than ``TRUST_S``
ago, a text window that took under ``QUICK_S``, of a file on a local file system
(``LOCAL_FILE_SYSTEMS``; a network or FUSE mount can hang). That is found out in the worker
thread that ran it, from ``/proc/self/mountinfo``, read again whenever the system says the mount
table changed. Nothing is looked up on disk on the loop. The first such call, the first after
``TRUST_S``, and the next after one that took longer or was no text window (a document, an image,
a folder, a refusal), run in a thread. What is left: a file replaced by a slow one under its old
name costs one call on the loop, and a link repointed within ``TRUST_S`` to a file on a network or
FUSE mount that hangs holds the loop while it hangs.
"""

from __future__ import annotations

import os
import re
import select
import threading
import time
from collections.abc import Mapping
from typing import Any, BinaryIO

from ..memo import LRU
from ..result import ToolResult
from ..tools.registry import spec_of

#: Seconds a read may have taken for the next such read to run on the loop.
QUICK_S = 0.005

#: Seconds a call found fast is trusted before the next is run in a thread (its file's place and
#: file system checked again).
TRUST_S = 2.0

#: Local and in-memory file systems (``/proc/self/mountinfo``'s type field): a read there may run
#: on the loop.
LOCAL_FILE_SYSTEMS = frozenset(
    {"ext2", "ext3", "ext4", "xfs", "btrfs", "bcachefs", "f2fs", "jfs", "zfs", "tmpfs", "ramfs", "overlay"}
)

#: The result types of a text window (``read``'s ``type`` metadata).
_TEXT_WINDOWS = ("file", "outline")


class QuickCalls:
    """What the server has learned of each call, keyed by tool, workspace root and arguments.

    Args:
        size: calls remembered at most (the least recently made go first).
    """

    def __init__(self, size: int = 4096) -> None:
        self._fast: LRU[float] = LRU(size)  # when each was found fast (``time.monotonic``)

    def _key(self, name: str, root: str, arguments: Mapping[str, Any]) -> tuple[str, str, str] | None:
        quick = spec_of(name).quick
        if quick is None or quick(arguments) is None:
            return None
        return (name, root, repr(sorted(arguments.items())))

    def inline(self, name: str, root: str, arguments: Mapping[str, Any]) -> bool:
        """Whether to run this call of the tool ``name`` on the loop (module docstring)."""
        key = self._key(name, root, arguments)
        found = self._fast.get(key) if key is not None else None
        return found is not None and time.monotonic() - found < TRUST_S

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
        return file_system_of(os.fsencode(real), _MOUNTS.points()) in LOCAL_FILE_SYSTEMS

    @staticmethod
    def fast(result: ToolResult, seconds: float) -> bool:
        """Whether a call that gave ``result`` in ``seconds`` was a text window in under ``QUICK_S``."""
        return not result.is_error and result.metadata.get("type") in _TEXT_WINDOWS and seconds < QUICK_S

    def learn(
        self,
        name: str,
        root: str,
        arguments: Mapping[str, Any],
        result: ToolResult,
        seconds: float,
        local: bool | None,
    ) -> None:
        """Note how a call went: a text window in under ``QUICK_S`` of a file found ``local`` (in
        a thread; None: it ran on the loop, where nothing is checked, so the trust it ran under
        is kept, not renewed) makes the same call's next runs quick for ``TRUST_S``; anything else
        makes them run in a thread."""
        key = self._key(name, root, arguments)
        if key is None:
            return
        if not self.fast(result, seconds) or local is False:
            self._fast.discard(key)
        elif local:
            self._fast.put(key, time.monotonic())


def mount_points(mountinfo: bytes) -> list[tuple[bytes, str]]:
    """``(mount point, file system type)`` of each line of ``mountinfo`` (the bytes of
    ``/proc/self/mountinfo``, man proc(5); mount points are written with ``\\040``-style octal
    escapes), the deepest first: the first that holds a path is the one it lies on."""
    points: list[tuple[bytes, str]] = []
    for line in mountinfo.splitlines():
        fields = line.split(b" ")
        if len(fields) < 10 or b"-" not in fields[6:]:
            continue
        separator = fields.index(b"-", 6)
        if separator + 1 < len(fields):
            point = _OCTAL.sub(lambda m: bytes([int(m.group(1), 8) & 0xFF]), fields[4])
            points.append((point, fields[separator + 1].decode("utf-8", "replace")))
    points.reverse()  # of two mounts on one point the later is on top: it stays first below
    points.sort(key=lambda point: len(point[0]), reverse=True)
    return points


def file_system_of(real: bytes, points: list[tuple[bytes, str]]) -> str | None:
    """The type of the file system that holds the absolute path ``real`` (``os.fsencode``d):
    that of the deepest of ``points`` (``mount_points``) above it; None when none is."""
    for point, kind in points:
        if real == point or real.startswith(point.rstrip(b"/") + b"/"):
            return kind
    return None


_OCTAL = re.compile(rb"\\([0-7]{3})")


class _MountTable:
    """``/proc/self/mountinfo``'s ``mount_points``, read again only when the system says the
    table changed (the file polls as ``POLLPRI`` after a mount or unmount); none where there is
    no such file."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._file: BinaryIO | None = None
        self._poll: select.poll | None = None
        self._points: list[tuple[bytes, str]] | None = None

    def points(self) -> list[tuple[bytes, str]]:
        with self._lock:
            if self._points is None or self._changed():
                self._points = self._read()
            return self._points

    def _changed(self) -> bool:
        return self._poll is None or bool(self._poll.poll(0))

    def _read(self) -> list[tuple[bytes, str]]:
        try:
            if self._file is None:
                self._file = open("/proc/self/mountinfo", "rb")  # noqa: SIM115 - kept open to poll
                self._poll = select.poll()
                self._poll.register(self._file.fileno(), select.POLLPRI | select.POLLERR)
            self._file.seek(0)
            return mount_points(self._file.read())
        except OSError:
            return []


_MOUNTS = _MountTable()
