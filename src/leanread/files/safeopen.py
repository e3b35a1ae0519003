"""Open what ``Workspace.resolve`` checked, and nothing else, even if the tree changes meanwhile.

``resolve`` works on a realpath: no name on it is a symbolic link. Between that check and the
open, another program may swap a folder on the path for a link to somewhere outside the
workspace, or the file for a link, a FIFO or another file. So files are not opened by path:
the path is walked from ``/`` one name at a time, each folder opened relative to the one
before with ``O_NOFOLLOW`` (a name that has become a link is refused, not followed), and the
file itself is opened in the last folder with ``O_NOFOLLOW | O_NONBLOCK`` (a FIFO swapped in
cannot block) and checked with ``fstat``: it must be a regular file and, when the caller knows
it, the very inode that was checked (``st_dev``, ``st_ino``). Writes create their temp file and
rename it inside a folder fd obtained the same way (``writeback.atomic_write``).

Hard links are not refused: a hard link is a real file inside the root whatever other names it
has, and its other names cannot be found cheaply. The deny list works on names, so a hard link
named ``.env`` is refused like any ``.env``, and a hard link with a harmless name to a denied
file is served like any file of that name. Writes never reach the other names: the rename puts
a new inode at the path and the other links keep the old bytes.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from dataclasses import dataclass

from ..errors import FileMissing, NotAFile, PathChanged, PathError

#: The longest path (bytes, UTF-8) a tool accepts: Linux's ``PATH_MAX``.
MAX_PATH_BYTES = 4096
#: The longest name of one folder entry (bytes): ``NAME_MAX`` of the usual file systems.
MAX_NAME_BYTES = 255

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
#: Folders on the way are only walked through: ``O_PATH`` needs no read permission (Linux).
_WALK = getattr(os, "O_PATH", os.O_RDONLY) | _DIRECTORY | _NOFOLLOW | _CLOEXEC

READ_THEN = "so it was not read; read it again"
WRITE_THEN = "so nothing was written; read it again and retry"


def refuse_long_path(path: str) -> None:
    """Refuse a path longer than the system takes, without echoing it (it may be 64 KiB).

    Raises:
        PathError: over ``MAX_PATH_BYTES`` in all, or a name over ``MAX_NAME_BYTES``.
    """
    size = len(path.encode("utf-8", "surrogateescape"))
    if size > MAX_PATH_BYTES:
        raise PathError(f"The path is {size} bytes long, over the limit of {MAX_PATH_BYTES}; pass a shorter path.")
    longest = max(len(name.encode("utf-8", "surrogateescape")) for name in path.split(os.sep))
    if longest > MAX_NAME_BYTES:
        raise PathError(
            f"A name in the path is {longest} bytes long, over the limit of {MAX_NAME_BYTES} for one file or "
            "folder name; fix the path."
        )


def changed(display: str, then: str) -> PathChanged:
    """The error for a path whose file, or a folder on it, was replaced after it was checked."""
    return PathChanged(
        f"{display} changed while leanread was opening it (it or a folder on its path was replaced), {then}."
    )


def _translate(exc: OSError, display: str, then: str) -> PathError:
    """The error for an ``OSError`` met while walking to ``display`` or opening it."""
    if exc.errno == errno.ENOENT:
        return FileMissing(f"{display} disappeared while leanread was opening it; list its folder to see what exists.")
    if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EXDEV):
        return changed(display, then)
    return PathError(f"Cannot open {display}: {exc.strerror}.")


def _names(real: str) -> list[str]:
    if not os.path.isabs(real):
        raise ValueError(f"not an absolute path: {real!r}")
    return [name for name in real.split(os.sep) if name]


def walk_folder(real_dir: str, *, readable: bool = False) -> int:
    """An fd of the folder at the absolute realpath ``real_dir``, reached without following links.

    Args:
        real_dir: absolute path in which no name is a symbolic link (a realpath).
        readable: open the folder itself for reading (``fsync``, ``scandir``) rather than only
            to walk through it.

    Returns:
        An fd the caller closes.

    Raises:
        OSError: as the system raises it; ``ENOTDIR`` (or ``ELOOP``) when a name on the way is a
            link or a file now, ``ENOENT`` when one is missing.
    """
    fd = os.open("/", _WALK)
    try:
        for name in _names(real_dir):
            next_fd = os.open(name, _WALK, dir_fd=fd)
            os.close(fd)
            fd = next_fd
        if readable:
            next_fd = os.open(".", os.O_RDONLY | _DIRECTORY | _CLOEXEC, dir_fd=fd)
            os.close(fd)
            fd = next_fd
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_plain(path: str) -> int | None:
    """An fd for reading the regular file at ``path`` (``O_RDONLY | O_NONBLOCK``, its last name not
    followed, so a FIFO or link swapped in neither blocks nor leads elsewhere), or None when it is
    no regular file or cannot be opened. For sniffing files a search walked, where a file that
    went away is simply skipped; a tool's own read goes through ``open_regular``."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | _NOFOLLOW | _CLOEXEC)
    except OSError:
        return None
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def open_regular(real: str, display: str, *, expect: tuple[int, int] | None = None, then: str = READ_THEN) -> int:
    """An fd for reading the regular file at the realpath ``real``, opened as described above.

    Args:
        real: absolute realpath of the file.
        display: the path as the model knows it, for messages.
        expect: ``(st_dev, st_ino)`` of the file that was checked (0 for not known); another
            inode there is refused.
        then: how a "changed" message ends (``READ_THEN`` or ``WRITE_THEN``).

    Returns:
        An fd (``O_RDONLY | O_NONBLOCK``) the caller closes.

    Raises:
        FileMissing: the file (or a folder on its path) is gone.
        NotAFile: it is no longer a regular file (a FIFO, device, socket or folder swapped in).
        PathChanged: it, or a folder on its path, was replaced by a link or by another file.
        PathError: the system refuses to open it (the message gives its reason).
    """
    folder, name = os.path.split(real)
    try:
        dir_fd = walk_folder(folder)
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | _NOFOLLOW | _CLOEXEC, dir_fd=dir_fd)
        finally:
            os.close(dir_fd)
    except OSError as exc:
        raise _translate(exc, display, then) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotAFile(f"{display} is no longer a regular file; read it again once it is.")
        if expect is not None and _other_inode(st, *expect):
            raise changed(display, then)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _other_inode(st: os.stat_result, dev: int, ino: int) -> bool:
    """True when ``st`` is not the file ``(dev, ino)``; a 0 stands for "not known"."""
    return bool(ino) and (st.st_ino != ino or (bool(dev) and st.st_dev != dev))


def read_regular(real: str, display: str, *, expect: tuple[int, int] | None = None, limit: int | None = None) -> bytes:
    """The bytes of the file ``open_regular`` opens: all of them, or the first ``limit``.

    Raises:
        FileMissing, NotAFile, PathError: as for ``open_regular``, or the read fails.
    """
    fd = open_regular(real, display, expect=expect)
    try:
        with os.fdopen(fd, "rb") as handle:
            return handle.read() if limit is None else handle.read(limit)
    except OSError as exc:
        raise PathError(f"Cannot read {display}: {exc.strerror}.") from None


@dataclass(frozen=True)
class Resolved:
    """A path that passed the workspace checks.

    Attributes:
        real: absolute realpath on disk.
        display: what the model is shown: relative to the first root (POSIX separators), or the
            absolute path when the file lies in another root.
        size: bytes, from ``stat``.
        mtime_ns: modification time in nanoseconds, from ``stat``.
        is_dir: True for a directory, False for a regular file.
        ino: inode number, from the same ``stat`` (0 when unknown): a file replaced by another
            of the same size and mtime (``rsync -a``, ``cp -p``, ``tar x``) has a new one.
        ctime_ns: inode change time in nanoseconds, from the same ``stat`` (0 when unknown):
            unlike the mtime, no user can set it, so an in-place rewrite that restores the
            mtime still changes it.
        dev: device number, from the same ``stat`` (0 when unknown): with ``ino``, the file
            ``read_regular_file`` must find when it opens the path.
    """

    real: str
    display: str
    size: int
    mtime_ns: int
    is_dir: bool
    ino: int = 0
    ctime_ns: int = 0
    dev: int = 0


def read_regular_file(resolved: Resolved, limit: int | None = None) -> bytes:
    """The bytes of a regular file resolved by ``Workspace.resolve``: all of them, or the first
    ``limit``.

    The file is opened without following any link and non-blocking, and must be the inode that
    was checked (``safeopen.open_regular``): a folder on its path swapped for a link, or the file
    swapped for a FIFO or another file after the check, is refused, never followed or waited on.

    Raises:
        NotAFile: the path is a directory or no longer a regular file.
        FileMissing: the file vanished after the check.
        PathError: it was replaced after the check, or cannot be opened (permissions).
    """
    if resolved.is_dir:
        raise NotAFile(f"{resolved.display} is a directory; read a file inside it.")
    return read_regular(resolved.real, resolved.display, expect=(resolved.dev, resolved.ino), limit=limit)


def make_folders(real_dir: str, display: str) -> None:
    """Create the folder at the absolute ``real_dir`` and any missing parents, never through a link.

    Each name is created (mode ``0o777 & ~umask``) inside the fd of the folder before it, so a
    folder swapped for a link on the way is refused rather than followed.

    Raises:
        PathError: a name on the way is a link or a file, or the system refuses (permissions).
    """
    fd = os.open("/", _WALK)
    try:
        for name in _names(real_dir):
            try:
                next_fd = os.open(name, _WALK, dir_fd=fd)
            except FileNotFoundError:
                with contextlib.suppress(FileExistsError):  # made meanwhile: opened below like any folder
                    os.mkdir(name, dir_fd=fd)
                next_fd = os.open(name, _WALK, dir_fd=fd)
            os.close(fd)
            fd = next_fd
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.ENOENT):
            raise changed(display, WRITE_THEN) from None
        raise PathError(f"Cannot create the folder of {display} ({exc.strerror}); nothing was written.") from None
    finally:
        os.close(fd)
