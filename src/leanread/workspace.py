"""Resolve a path inside the workspace roots and read it without surprises.

A path may be relative to the first root or absolute inside any root. Its realpath (every
symbolic link in the target and its parents followed) must stay inside a root. FIFOs, devices
and sockets are refused from ``stat`` alone, before anything opens them.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import FileMissing, NotAFile, OutsideWorkspace, PathError


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
    """

    real: str
    display: str
    size: int
    mtime_ns: int
    is_dir: bool


_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class Workspace:
    """The roots a session may touch.

    Args:
        roots: folders; the first is the root relative paths resolve against. Defaults to the
            current directory.

    Raises:
        PathError: a root does not exist or is not a directory.
    """

    def __init__(self, roots: Sequence[str | os.PathLike[str]] | None = None) -> None:
        given = list(roots) if roots else [Path.cwd()]
        self.roots: tuple[str, ...] = tuple(self._check_root(r) for r in given)

    @staticmethod
    def _check_root(root: str | os.PathLike[str]) -> str:
        real = os.path.realpath(root)
        if not os.path.isdir(real):
            raise PathError(f"Workspace root {os.fspath(root)} is not a directory; pass an existing folder.")
        return real

    @property
    def primary(self) -> str:
        """The first root: relative paths resolve against it."""
        return self.roots[0]

    def _root_of(self, real: str) -> str | None:
        for root in self.roots:
            if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
                return root
        return None

    def display(self, real: str) -> str:
        """The model-facing form of a realpath inside the workspace (see ``Resolved.display``)."""
        if self._root_of(real) == self.primary:
            rel = os.path.relpath(real, self.primary)
            return "." if rel == "." else Path(rel).as_posix()
        return real

    def resolve(self, path: str) -> Resolved:
        """Check ``path`` against the roots and ``stat`` it.

        Raises:
            OutsideWorkspace: the path escapes every root, directly or through a link.
            FileMissing: nothing exists there.
            NotAFile: a FIFO, device or socket.
            PathError: a symbolic-link loop, or the path cannot be resolved or stat-ed.
        """
        if not path or "\x00" in path:
            raise PathError("The path is empty or contains a NUL byte; pass a file path such as src/app.py.")
        joined = os.path.join(self.primary, os.path.expanduser(path))
        try:
            real = os.path.realpath(joined, strict=True)
        except FileNotFoundError:
            real = os.path.realpath(joined)
            self._require_inside(path, real)
            raise FileMissing(
                f"File not found: {path}. Check the spelling, or list its folder to see what exists."
            ) from None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise PathError(
                    f"{path} is a symbolic-link loop; read the file it was meant to point to."
                ) from None
            raise PathError(f"Cannot resolve {path}: {exc.strerror}.") from None
        self._require_inside(path, real)
        try:
            st = os.stat(real)
        except OSError as exc:
            raise PathError(f"Cannot stat {path}: {exc.strerror}.") from None
        for test, kind in _SPECIAL_KINDS:
            if test(st.st_mode):
                raise NotAFile(f"{path} is {kind}, not a regular file; leanread does not open it.")
        return Resolved(
            real=real,
            display=self.display(real),
            size=st.st_size,
            mtime_ns=st.st_mtime_ns,
            is_dir=stat.S_ISDIR(st.st_mode),
        )

    def _require_inside(self, path: str, real: str) -> None:
        if self._root_of(real) is None:
            roots = ", ".join(self.roots)
            raise OutsideWorkspace(f"{path} resolves outside the workspace ({roots}); use a path inside it.")


def read_regular_file(resolved: Resolved) -> bytes:
    """All bytes of a regular file resolved by ``Workspace.resolve``.

    The file is opened non-blocking and checked again with ``fstat``, so a file swapped for a
    FIFO after the check cannot hang the call.

    Raises:
        NotAFile: the path is a directory or no longer a regular file.
        PathError: the file cannot be opened (permissions, vanished).
    """
    if resolved.is_dir:
        raise NotAFile(f"{resolved.display} is a directory; read a file inside it.")
    try:
        fd = os.open(resolved.real, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise PathError(f"Cannot open {resolved.display}: {exc.strerror}.") from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise NotAFile(f"{resolved.display} is no longer a regular file; read it again once it is.")
        return handle.read()
