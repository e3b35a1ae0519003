"""A root's files as ripgrep walks them (ignore files, the deny list), each with its version, kept
true from stats rather than walked again each time:

- ``walked`` lists the files with ``rg --files`` and the folders the walk enters with
  ``os.scandir`` (leaving out ``.git``, the skipped names and what the walk's log says ignore files
  pruned; a folder with no file listed is kept too, so a file created in it is seen);
- ``refreshed`` stats the folders and files again: a folder whose stat moved (a file created,
  removed or renamed in it; leanread's own writes rename) is listed again one level, a new
  subfolder walked whole; an ignore file that changed, or more than ``RELIST_FOLDERS`` folders
  moved, walks the root again.

A stat is trusted only when a later change must show in it (``fileversion.told_apart``): a file
or folder changed within ``RACY_NS`` of its stat has no version, so it is looked at again next time.
"""

from __future__ import annotations

import os
import time
from collections.abc import Container, Iterable
from dataclasses import dataclass

from .fileversion import RACY_NS
from .rglog import ignored_lines
from .ripgrep import RgOptions
from .search_files import list_files

__all__ = [
    "IGNORE_FILES",
    "RELIST_FOLDERS",
    "Version",
    "Walk",
    "folders_below",
    "refreshed",
    "stamps",
    "subfolders",
    "walked",
]

#: What tells two versions of a file or folder apart (``fileversion.version_of``).
Version = tuple[int, int, int, int]
#: Names of the ignore files ripgrep honours; a change to one walks the root again.
IGNORE_FILES = frozenset({".gitignore", ".ignore", ".rgignore"})
_IGNORE_ENDS = tuple(IGNORE_FILES)
#: Folders listed again one by one at most (a ripgrep run each); past it the root is walked again.
RELIST_FOLDERS = 8


@dataclass(frozen=True)
class Walk:
    """One root's walk: each file listed and each folder entered by its absolute path, with its
    version (None: gone, or changed too recently to be told from a later change), and the log lines
    naming what ignore files left out (``rglog.ignored_lines``), by path."""

    files: dict[str, Version | None]
    folders: dict[str, Version | None]
    ignored: dict[str, bytes]

    def log(self) -> bytes:
        """What ignore files left out, as ``--debug`` log lines (``leftout.left_out`` reads them)."""
        return b"\n".join(self.ignored.values())


def stamps(paths: Iterable[str], since: int) -> dict[str, Version | None]:
    """The version of each of ``paths`` (not followed if a link), or None when it is gone or its
    mtime or ctime lies within ``RACY_NS`` of ``since`` (``time.time_ns()`` before it was looked
    at). ``version_of`` and ``told_apart`` inline: each grep stats django's 10,000 paths here."""
    found: dict[str, Version | None] = {}
    lstat, limit = os.lstat, since - RACY_NS
    for path in paths:
        try:
            st = lstat(path)
        except OSError:
            found[path] = None
            continue
        told = st.st_mtime_ns <= limit and st.st_ctime_ns <= limit
        found[path] = (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns) if told else None
    return found


def walked(root: str, options: RgOptions) -> Walk:
    """``root`` walked whole with ``options``' ignore setting, deny list and skipped names.

    Raises:
        SearchUnavailable, LeanreadError: ripgrep missing or failing.
    """
    since = time.time_ns()
    files: set[str] = set()
    folders: dict[str, Version | None] = {}
    ignored: dict[str, bytes] = {}
    _walk_into(root, options, since, (files, folders, ignored))
    return Walk(stamps(files, since), folders, ignored)


_Parts = tuple[set[str], dict[str, Version | None], dict[str, bytes]]


def _walk_into(top: str, options: RgOptions, since: int, parts: _Parts) -> None:
    """Add the files, folders and ignored paths of the walk of ``top`` to ``parts``."""
    files, folders, ignored = parts
    log = bytearray()
    files.update(os.path.join(top, name) for name in list_files(top, options, cwd=top, log=log))
    ignored.update(ignored_lines(bytes(log)))
    folders.update(stamps(folders_below(top, options, ignored), since))


def folders_below(top: str, options: RgOptions, ignored: Container[str]) -> list[str]:
    """``top`` and the folders below it that ripgrep's walk enters, written as ``top`` is (its
    ``ignored``: the paths its log says ignore files left out, ``rglog.ignored_lines``)."""
    found, stack = [], [top]
    while stack:
        folder = stack.pop()
        found.append(folder)
        stack.extend(subfolders(folder, options, ignored))
    return found


def subfolders(folder: str, options: RgOptions, ignored: Container[str]) -> list[str]:
    """The folders directly in ``folder`` that ripgrep's walk enters: not ``.git``, a skipped
    name, a link or a path ignore files left out."""
    try:
        with os.scandir(folder) as entries:
            return [
                entry.path
                for entry in entries
                if entry.is_dir(follow_symlinks=False)
                and entry.name != ".git"
                and entry.name not in options.skip
                and entry.path not in ignored
            ]
    except OSError:
        return []


def refreshed(old: Walk | None, root: str, options: RgOptions, below: str | None = None) -> Walk:
    """``old`` brought up to date below the folder ``below`` (default: all of it; module
    docstring): the folders there stat'ed again, those that moved listed again, the version of
    each file there and of every ignore file new; ``root`` walked whole when there is no ``old``
    (or it lost the root), an ignore file changed or too many folders moved.

    Raises:
        SearchUnavailable, LeanreadError: ripgrep missing or failing.
    """
    since = time.time_ns()
    if old is None or root not in old.folders:
        return walked(root, options)
    top = below or root
    prefix = top.rstrip(os.sep) + os.sep
    whole = top == root
    now = stamps([f for f in old.folders if whole or f == top or f.startswith(prefix)], since)
    moved = [folder for folder, version in now.items() if version is None or version != old.folders[folder]]
    if len(moved) > RELIST_FOLDERS:
        return walked(root, options)
    walk = _relisted(old, moved, options, since) if moved else old
    looked = list(walk.files) if whole else [p for p in walk.files if p.startswith(prefix) or p.endswith(_IGNORE_ENDS)]
    fresh = Walk({**walk.files, **stamps(looked, since)}, walk.folders, walk.ignored)
    touched = [*looked, *(old.files.keys() - walk.files.keys())]
    return walked(root, options) if _ignore_files_moved(old, fresh, touched) else fresh


def _relisted(old: Walk, moved: list[str], options: RgOptions, since: int) -> Walk:
    """``old`` with the folders ``moved`` listed again (``_relist``); a new file has no version yet."""
    files, folders, ignored = set(old.files), dict(old.folders), dict(old.ignored)
    for folder in moved:
        _relist(folder, options, since, (files, folders, ignored))
    return Walk({path: old.files.get(path) for path in files}, folders, ignored)


def _relist(folder: str, options: RgOptions, since: int, parts: _Parts) -> None:
    """List ``folder`` again in ``parts``: its own files and ignored paths anew, a subfolder gone
    dropped with all below it, a new one walked whole; all of it dropped when it is gone."""
    files, folders, ignored = parts
    if folder not in folders:
        return  # dropped with a folder above it
    version = stamps([folder], since)[folder]  # before the listing: a change during it shows next time
    if not os.path.isdir(folder) or os.path.islink(folder):
        _drop(folder, parts)
        return
    folders[folder] = version
    log = bytearray()
    names = list_files(folder, options, cwd=folder, log=log, depth=1)
    files.difference_update([path for path in files if os.path.dirname(path) == folder])
    files.update(os.path.join(folder, name) for name in names)
    for path in [path for path in ignored if os.path.dirname(path) == folder]:
        del ignored[path]
    ignored.update(ignored_lines(bytes(log)))
    _resubfolder(folder, options, since, parts)


def _resubfolder(folder: str, options: RgOptions, since: int, parts: _Parts) -> None:
    """The subfolders of ``folder`` in ``parts`` as they are now: one gone dropped with all below
    it, a new one walked whole (those that stayed are stat'ed on their own)."""
    folders, ignored = parts[1], parts[2]
    now = set(subfolders(folder, options, ignored))
    before = {path for path in folders if path != folder and os.path.dirname(path) == folder}
    for gone in before - now:
        _drop(gone, parts)
    for new in now - before:
        _walk_into(new, options, since, parts)


def _drop(top: str, parts: _Parts) -> None:
    """Drop the folder ``top`` and every file, folder and ignored path below it."""
    files, folders, ignored = parts
    prefix = top.rstrip(os.sep) + os.sep
    files.difference_update([path for path in files if path.startswith(prefix)])
    for table in (folders, ignored):
        for path in [path for path in table if path == top or path.startswith(prefix)]:
            del table[path]


def _ignore_files_moved(old: Walk, new: Walk, paths: Iterable[str]) -> bool:
    """Whether an ignore file among ``paths`` (those looked at, those gone) came, went or changed
    between the walks (or is too recent to tell)."""
    names = (path for path in paths if path.endswith(_IGNORE_ENDS) and os.path.basename(path) in IGNORE_FILES)
    return any(old.files.get(path) is None or old.files.get(path) != new.files.get(path) for path in names)
