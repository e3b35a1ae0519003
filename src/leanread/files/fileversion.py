"""Opening the file a line index is of, and telling two versions of it apart: ``StaleIndex``
when it changed since the index was built or while it was read; whether a stat can tell a later
change at all (``told_apart``)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager

from ..errors import NotAFile, PathError
from .safeopen import open_regular

Source = str | os.PathLike[str] | int


class StaleIndex(PathError):
    """The file changed (size, mtime, inode or ctime) since its index was built, or while it was
    being read.

    The caller gets a fresh ``stat`` and a fresh index (``LineIndexCache.get`` rebuilds on any new
    value of the four) and reads again.
    """


def version_of(st: os.stat_result) -> tuple[int, int, int, int]:
    """What tells two versions of a file apart: ``(size, mtime_ns, ino, ctime_ns)``.

    Size and mtime alone miss a file replaced by one of the same size and mtime (``rsync -a``,
    ``cp -p``, ``tar x``: a new inode) or rewritten in place with its mtime restored through
    ``os.utime`` (a new ctime, which no user can set).
    """
    return st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns


#: Nanoseconds within which a change may leave a file's mtime and ctime as they were: file systems
#: stamp times from a coarse clock (a kernel tick of some ms; a second on ext3 and HFS+, two on FAT).
RACY_NS = 2_000_000_000


def told_apart(st: os.stat_result, since: int) -> bool:
    """Whether a change after ``since`` (``time.time_ns()`` when, or before, ``st`` was taken) is
    sure to show in the file's next stat: its mtime and ctime lie ``RACY_NS`` or more before
    ``since``, so a new stamp cannot equal them (git's "racily clean" entries, the other way round)."""
    return max(st.st_mtime_ns, st.st_ctime_ns) + RACY_NS <= since


def stale_message(name: str, what: str, old: tuple[int, int, int, int], new: tuple[int, int, int, int]) -> str:
    """``{name} changed since {what} (...); read it again.``, saying what differs."""
    if old[0] != new[0]:
        detail = f"{old[0]} bytes, now {new[0]}"
    elif old[1] != new[1]:
        detail = "same size, new modification time"
    else:
        detail = "same size and modification time, but replaced or rewritten"
    return f"{name} changed since {what} ({detail}); read it again."


def source_name(source: Source) -> str:
    return f"file descriptor {source}" if isinstance(source, int) else os.fspath(source)


@contextmanager
def open_indexed(source: Source, name: str | None = None) -> Iterator[tuple[int, os.stat_result]]:
    """Yield ``(fd, fstat)`` of a regular file; a path is opened non-blocking and closed after.

    Raises:
        NotAFile: not a regular file (directory, FIFO, device, socket).
        PathError: the path cannot be opened.
    """
    if isinstance(source, int):
        fd, owned = source, False
    else:
        fd, owned = open_regular(os.path.abspath(os.fspath(source)), name or source_name(source)), True
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotAFile(f"{name or source_name(source)} is not a regular file; leanread does not index it.")
        yield fd, st
    finally:
        if owned:
            os.close(fd)
