"""Resolve a path inside the workspace roots and read it without surprises.

A path may be relative to the first root or absolute inside any root. Its realpath (every
symbolic link in the target and its parents followed) must stay inside a root. A path is
refused when any of its names below its root is on the policy's deny list (case ignored):
first the path as given, before the file is opened or even stat-ed, then its realpath, so
neither a link to a secret nor a link to a secret folder gets through. FIFOs, devices and
sockets are refused from ``stat`` alone, before anything opens them. A path that goes on past
a file (``a.txt/``) is refused as the operating system would refuse it. A missing file's error
names the dangling symbolic link on the way, or suggests similar existing names.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

from ..config.settings import Policy
from ..errors import Denied, FileMissing, NotAFile, OutsideWorkspace, PathError
from .missing import missing_message, root_gone, split_parts, through_file
from .names import show_path
from .safeopen import Resolved, read_regular_file, refuse_long_path

__all__ = ["Resolved", "Workspace", "given_roots", "read_regular_file", "special_kind", "unopened"]


_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def special_kind(mode: int) -> str | None:
    """What a file of ``st_mode`` ``mode`` is when no tool opens it (``a FIFO (named pipe)``,
    ``a character device``, ``a block device``, ``a socket``); None for any other file."""
    return next((kind for test, kind in _SPECIAL_KINDS if test(mode)), None)


def unopened(mode: int) -> str | None:
    """How a listing marks a file of ``st_mode`` ``mode`` that no tool opens, after its name:
    `` (a socket; read does not open it)``; None for any other file."""
    kind = special_kind(mode)
    return None if kind is None else f" ({kind}; read does not open it)"


def given_roots(roots: Sequence[str | os.PathLike[str]] | None) -> list[str | os.PathLike[str]]:
    """``roots`` without the empty or blank entries, each left out said in one line on stderr;
    ``[]`` for no roots at all (the caller's default: the current directory).

    Raises:
        PathError: roots were given and every one is empty or blank.
    """
    given = list(roots or ())
    kept = [root for root in given if os.fspath(root).strip()]
    if len(kept) == len(given):
        return kept
    if not kept:
        raise PathError(
            "Every workspace root given is empty (an unset variable in the configuration?); pass an existing folder."
        )
    left_out = len(given) - len(kept)
    noun = "an empty workspace root" if left_out == 1 else f"{left_out} empty workspace roots"
    print(
        f"leanread: left out {noun} (an unset variable in the configuration?); the roots are "
        f"{', '.join(os.fspath(root) for root in kept)}.",
        file=sys.stderr,
    )
    return kept


class Workspace:
    """The roots a session may touch.

    Args:
        roots: folders; the first is the root relative paths resolve against. Defaults to the
            current directory.
        policy: the deny list every path is checked against. Defaults to ``Policy()``
            (``.env``, ``.env.*``, ``*.pem``, ``*.key``, ``id_rsa*``, ``id_ed25519*``, except
            ``*.example`` and ``*.sample``).

    Empty or blank roots (what an unset ``$VAR`` in a client's configuration gives) are left out,
    with a line on stderr (see ``given_roots``); they never stand for the current directory.

    Raises:
        PathError: a root does not exist or is not a directory, or every root given is empty.
    """

    def __init__(self, roots: Sequence[str | os.PathLike[str]] | None = None, policy: Policy | None = None) -> None:
        given = given_roots(roots) or [Path.cwd()]
        self.roots: tuple[str, ...] = tuple(self._check_root(r) for r in given)
        self.policy: Policy = policy if policy is not None else Policy()
        # what the deny list says of an absolute path, and how a realpath is shown: both depend
        # on the path's text alone (the roots and the policy are fixed), and every call asks
        self._denied: dict[str, tuple[tuple[str, str] | None]] = {}  # one-tuples: None is an answer
        self._shown: dict[str, str] = {}
        self._memo_policy = self.policy

    @staticmethod
    def _check_root(root: str | os.PathLike[str]) -> str:
        real = os.path.realpath(root)
        if not os.path.isdir(real):
            raise PathError(f"Workspace root {show_path(os.fspath(root))} is not a directory; pass an existing folder.")
        return real

    @property
    def primary(self) -> str:
        """The first root: relative paths resolve against it."""
        return self.roots[0]

    def root_of(self, real: str) -> str | None:
        """The root that holds the realpath ``real``, or None when it lies outside every root."""
        for root in self.roots:
            if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
                return root
        return None

    def files_up(self, real: str, names: Sequence[str], *, skip: frozenset[str], with_root: bool) -> list[str]:
        """Realpaths of the regular files named ``names`` in each folder from ``real``'s own up to
        its root (the root's own only ``with_root``), outermost first, each once: only those inside
        the workspace, not denied, and not in or below a folder named in ``skip``, by where they
        sit and by where they link to. ``[]`` when ``real`` lies outside every root."""
        root = self.root_of(real)
        if root is None:
            return []
        per_folder: list[list[str]] = []  # nearest folder first
        folder = os.path.dirname(real)
        while True:
            at_root = folder == root
            if (with_root or not at_root) and not _below_any(root, os.path.join(folder, "x"), skip):
                here = [os.path.realpath(path) for path in _present(folder, names)]
                per_folder.append([found for found in here if self._showable_file(found, skip)])
            if at_root or len(folder) <= len(root):
                break
            folder = os.path.dirname(folder)
        return list(dict.fromkeys(found for files in reversed(per_folder) for found in files))

    def _showable_file(self, real: str, skip: frozenset[str]) -> bool:
        """A regular file inside the workspace, not denied, not in or below a ``skip`` folder."""
        root = self.root_of(real)
        return (
            os.path.isfile(real) and root is not None and not self.is_denied(real) and not _below_any(root, real, skip)
        )

    def display(self, real: str) -> str:
        """The model-facing form of a realpath inside the workspace (see ``Resolved.display``),
        escaped by ``names.show_path`` (``caf\\xe9.txt``): one line of valid UTF-8 that
        ``names.parse_path`` turns back into ``real``'s name."""
        shown = self._shown.get(real)
        if shown is None:
            shown = _remembered(self._shown, real, self._display(real))
        return shown

    def _display(self, real: str) -> str:
        if self.root_of(real) == self.primary:
            rel = os.path.relpath(real, self.primary)
            return "." if rel == "." else show_path(Path(rel).as_posix())
        return show_path(real)

    def _first_denied(self, absolute: str) -> tuple[str, str] | None:
        """The prefix of the normalised absolute path ``absolute`` that ends in its first denied
        name, with the deny pattern that refuses it, or None.

        Inside a root, every name below the root counts (the root's own never does); outside
        every root, only the last name does.
        """
        if self.policy is not self._memo_policy:  # a policy set after the start
            self._denied.clear()
            self._memo_policy = self.policy
        known = self._denied.get(absolute)
        if known is None:
            known = _remembered(self._denied, absolute, (self._find_denied(absolute),))
        return known[0]

    def _find_denied(self, absolute: str) -> tuple[str, str] | None:
        root = self.root_of(absolute)
        if root is None:
            pattern = self.policy.denying_pattern([os.path.basename(absolute)])
            return None if pattern is None else (absolute, pattern)
        prefix = root
        names: list[str] = []
        for name in os.path.relpath(absolute, root).split(os.sep):
            if name in ("", "."):
                continue
            prefix = os.path.join(prefix, name)
            names.append(name)
            pattern = self.policy.denying_pattern(names)
            if pattern is not None:
                return prefix, pattern
        return None

    def is_denied(self, path: str | os.PathLike[str]) -> bool:
        """True when a tool must not touch ``path`` (and a listing or search must skip it).

        Args:
            path: absolute, or relative to the first root: a realpath from ``resolve`` or an
                entry met while walking a folder. Every name of it below its root is checked
                (``sub/.env/secrets.txt`` is denied), case ignored, and so is every name of its
                realpath (``config.txt -> .env`` and ``envlink/secrets.txt`` with
                ``envlink -> sub/.env`` are denied). A workspace root itself is never denied.
        """
        joined = os.path.normpath(os.path.join(self.primary, os.fspath(path)))
        if joined in self.roots:
            return False
        if self._first_denied(joined) is not None:
            return True
        real = os.path.realpath(joined)
        return real != joined and real not in self.roots and self._first_denied(real) is not None

    def _deny_message(self, subject: str, pattern: str) -> str:
        return (
            f"{subject} on leanread's deny list (it matches {pattern}, a name kept for secrets); "
            "ask the user for the value you need instead."
        )

    def _refuse_given_name(self, path: str, joined: str) -> None:
        """Refuse a denied name on the path as the caller wrote it, before the filesystem is touched."""
        self._refuse_denied(path, os.path.normpath(joined), through_links=False)

    def _refuse_real_name(self, path: str, real: str) -> None:
        """Refuse a path whose realpath (through links) ends in, or lies inside, a denied name."""
        self._refuse_denied(path, real, through_links=True)

    def _refuse_denied(self, path: str, checked: str, *, through_links: bool) -> None:
        """Refuse the absolute ``checked`` (``path`` as written, or ``through_links`` its realpath)
        when its own name, or a folder it lies in below its root, is denied."""
        hit = None if checked in self.roots else self._first_denied(checked)
        if hit is None:
            return
        where, pattern = hit
        if where == checked:
            shown = (
                f"{show_path(path)} resolves to {self.display(checked)}, which" if through_links else show_path(path)
            )
            raise Denied(self._deny_message(f"{shown} is", pattern))
        raise Denied(self._deny_message(f"{show_path(path)} is inside {self.display(where)}, which is", pattern))

    def locate(self, path: str) -> str | None:
        """The realpath ``resolve`` would check for ``path`` (the root it is taken in as ``resolve``
        picks it), without checking or opening anything: for bookkeeping that must not touch the
        file, such as a ledger lookup before the read. None for an empty path or one with a NUL."""
        if not path or "\x00" in path:
            return None
        given = os.path.expanduser(path)
        if os.path.isabs(given):
            return os.path.realpath(given)
        for root in self.roots:
            joined = os.path.join(root, given)
            if os.path.lexists(joined):
                return os.path.realpath(joined)
        return os.path.realpath(os.path.join(self.primary, given))

    def resolve(self, path: str) -> Resolved:
        """Check ``path`` against the roots and the deny list, and ``stat`` it.

        A relative path is taken in the first root; when nothing is there and the workspace has
        more roots, the others are looked in too: a path found in exactly one of them is that
        file (shown by its absolute path), one found in several is refused naming them.

        Raises:
            Denied: a name of the path below its root, or of the realpath it resolves to, is on
                the deny list (case ignored); the path as given is checked before anything on
                disk is touched, the realpath before the file is stat-ed or opened.
            OutsideWorkspace: the path escapes every root, directly or through a link.
            FileMissing: nothing exists there; the message names the dangling symbolic link on
                the way when there is one, else suggests up to three similar existing names.
            NotAFile: a FIFO, device or socket.
            PathError: a symbolic-link loop; a path that goes on past a file (``a.txt/``,
                ``a.txt/..``, ``a.txt/x``); or the path cannot be resolved or stat-ed.
        """
        try:
            return self._resolve(path)
        except FileMissing as missing:
            if len(self.roots) == 1 or os.path.isabs(os.path.expanduser(path)):
                raise
            elsewhere = [root for root in self.roots[1:] if os.path.lexists(os.path.join(root, path))]
            if len(elsewhere) == 1:
                return self._resolve(os.path.join(elsewhere[0], path))
            if not elsewhere:
                raise FileMissing(f"{missing} (Looked in every workspace root: {', '.join(self.roots)}.)") from None
            found = ", ".join(show_path(os.path.join(root, path)) for root in elsewhere)
            raise PathError(
                f"{show_path(path)} is not in the first workspace root but is in {len(elsewhere)} others ({found}); "
                "pass the absolute path of the one you mean."
            ) from None

    def _resolve(self, path: str) -> Resolved:
        """``resolve`` within the first root (a relative path is taken there)."""
        if not path or "\x00" in path:
            raise PathError("The path is empty or contains a NUL byte; pass a file path such as src/app.py.")
        refuse_long_path(path)
        joined = os.path.join(self.primary, os.path.expanduser(path))
        self._refuse_given_name(path, joined)
        try:
            real = os.path.realpath(joined, strict=True)
        except FileNotFoundError:
            real = os.path.realpath(joined)
            self._require_inside(path, real)
            self._refuse_real_name(path, real)
            raise root_gone(self, path, joined) or FileMissing(lambda: missing_message(self, path, joined)) from None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                loop = f"{show_path(path)} is a symbolic-link loop; read the file it was meant to point to."
                raise PathError(loop) from None
            if exc.errno == errno.ENOTDIR:
                real = os.path.realpath(joined)
                self._require_inside(path, real)
                self._refuse_real_name(path, real)
                raise through_file(self, path) from None
            raise PathError(f"Cannot resolve {show_path(path)}: {exc.strerror}.") from None
        self._require_inside(path, real)
        self._refuse_real_name(path, real)
        try:
            st = os.stat(real)
        except OSError as exc:
            raise PathError(f"Cannot stat {show_path(path)}: {exc.strerror}.") from None
        kind = special_kind(st.st_mode)
        if kind is not None:
            raise NotAFile(f"{show_path(path)} is {kind}, not a regular file; leanread does not open it.")
        if _has_dot_parts(path):
            # realpath drops "/", "/." and "x/.." lexically; the system refuses them after a file.
            try:
                os.stat(joined)
            except NotADirectoryError:
                raise through_file(self, path) from None
            except OSError:
                pass
        return Resolved(
            real=real,
            display=self.display(real),
            size=st.st_size,
            mtime_ns=st.st_mtime_ns,
            is_dir=stat.S_ISDIR(st.st_mode),
            ino=st.st_ino,
            ctime_ns=st.st_ctime_ns,
            dev=st.st_dev,
        )

    def _require_inside(self, path: str, real: str) -> None:
        if self.root_of(real) is None:
            roots = show_path(", ".join(self.roots))
            raise OutsideWorkspace(f"{show_path(path)} resolves outside the workspace ({roots}); use a path inside it.")


def _below_any(root: str, real: str, folders: frozenset[str]) -> bool:
    """Whether ``real`` (a realpath below ``root``) lies in or below a folder named in ``folders``."""
    parts = os.path.relpath(real, root).split(os.sep)[:-1]
    return any(part in folders for part in parts)


def _has_dot_parts(path: str) -> bool:
    """True when a part after the first of ``path`` is empty, ``.`` or ``..`` (``a.txt/``,
    ``a.txt/.``, ``a.txt/..``): the parts ``realpath`` takes lexically, even after a file."""
    return any(part in ("", ".", "..") for part in split_parts(path)[1:])


#: Paths each memo of a ``Workspace`` keeps before it starts over.
_MEMO_SIZE = 8192

_V = TypeVar("_V")


def _remembered(memo: dict[str, _V], key: str, value: _V) -> _V:
    """``value``, kept in ``memo`` under ``key`` (the memo emptied first when full)."""
    if len(memo) >= _MEMO_SIZE:
        memo.clear()
    memo[key] = value
    return value


def _present(folder: str, names: Sequence[str]) -> list[str]:
    """The paths of ``names`` in ``folder`` that exist (as a file, folder or link): one ``lstat``
    each, so only these pay for ``realpath``'s ``lstat`` of every folder on the way (an
    instruction file is rarely there; every read looks in each folder up to the root)."""
    present = []
    for name in names:
        path = os.path.join(folder, name)
        try:
            os.lstat(path)
        except OSError:
            continue
        present.append(path)
    return present
