"""A root's files as ripgrep walks them (ignore files, the deny list), each with its version, kept
true from stats rather than walked again each time:

- ``walked`` lists the files with ``rg --files`` and the folders the walk enters with
  ``os.scandir`` (leaving out ``.git``, the skipped names and what the walk's log says ignore files
  pruned; a folder with no file listed is kept too, so a file created in it is seen);
- ``refreshed`` stats the folders again: a folder whose stat moved (a file created, removed or
  renamed in it, as a rewrite by temp file and rename does: ``sed -i``, editors, leanread's own
  writes) is listed again one level and its files stat'ed, a new subfolder walked whole; the
  files leanread wrote (``note_written``), those too recent to trust and the ignore files are
  stat'ed each time; every file is stat'ed at most ``FULL_STAT_NS`` after the last time, so a
  file rewritten in place by another program (``cat >``, an append), which leaves its folder as
  it was, is seen by the first refresh that starts that long after the change; an ignore file
  that changed, or more than ``RELIST_FOLDERS`` folders moved, walks the root again.

A stat is trusted only when a later change must show in it (``fileversion.told_apart``): a file
or folder changed within ``RACY_NS`` of its stat has no version, so it is looked at again next time.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Container, Iterable
from dataclasses import dataclass, replace
from functools import cached_property

from .fileversion import RACY_NS
from .rglog import ignored_lines
from .ripgrep import RgOptions
from .search_files import list_files

__all__ = [
    "FULL_STAT_NS",
    "IGNORE_FILES",
    "RELIST_FOLDERS",
    "Version",
    "Walk",
    "folders_below",
    "note_written",
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
#: Every file of a root is stat'ed again at most this long after the last time (30 s): the bound
#: on how long a file rewritten in place by another program, its folder unchanged, goes unseen.
FULL_STAT_NS = 30 * 10**9
#: Paths written by leanread kept to be stat'ed by the next refresh of each walk; past it the
#: oldest are dropped, and a walk that has not seen them stats every file.
KEPT_WRITES = 4096


@dataclass(frozen=True)
class Walk:
    """One root's walk: each file listed and each folder entered by its absolute path, with its
    version (None: gone, or changed too recently to be told from a later change), and the log lines
    naming what ignore files left out (``rglog.ignored_lines``), by path; when every file was last
    stat'ed (``time.time_ns()`` before), and the last write by leanread it took in
    (``note_written``)."""

    files: dict[str, Version | None]
    folders: dict[str, Version | None]
    ignored: dict[str, bytes]
    stated: int = 0
    writes: int = 0

    def log(self) -> bytes:
        """What ignore files left out, as ``--debug`` log lines (``leftout.left_out`` reads them)."""
        return b"\n".join(self.ignored.values())

    @cached_property
    def unsure(self) -> list[str]:
        """The files each refresh stats again: those without a version, and the ignore files."""
        return [path for path, version in self.files.items() if version is None or path.endswith(_IGNORE_ENDS)]


class _Writes:
    """The paths leanread wrote, each with the number of the last write to it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._count = 0
        self._dropped = 0  # the number of the last write dropped
        self._paths: OrderedDict[str, int] = OrderedDict()

    def note(self, path: str) -> None:
        with self._lock:
            self._count += 1
            self._paths[path] = self._count
            self._paths.move_to_end(path)
            while len(self._paths) > KEPT_WRITES:
                self._dropped = self._paths.popitem(last=False)[1]

    def since(self, seen: int) -> tuple[list[str] | None, int]:
        """The paths written after write number ``seen`` (None: some were dropped since), and the
        number of the last write."""
        with self._lock:
            if self._count == seen:
                return [], seen
            if self._dropped > seen:
                return None, self._count
            return [path for path, count in reversed(self._paths.items()) if count > seen], self._count

    def last(self) -> int:
        with self._lock:
            return self._count


_WRITES = _Writes()


def note_written(path: str) -> None:
    """Tell every walk that leanread wrote the file at the absolute ``path`` (by rename or not): the
    next refresh of a walk holding it stats it, whatever its folder's stat says."""
    _WRITES.note(path)


def stamps(paths: Iterable[str], since: int) -> dict[str, Version | None]:
    """The version of each of ``paths`` (not followed if a link), or None when it is gone or its
    mtime or ctime lies within ``RACY_NS`` of ``since`` (``time.time_ns()`` before it was looked
    at). ``version_of`` and ``told_apart`` inline: each grep stats django's 3,200 folders here (its 6,700 files
    each ``FULL_STAT_NS``)."""
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
    since, writes = time.time_ns(), _WRITES.last()
    files: set[str] = set()
    folders: dict[str, Version | None] = {}
    ignored: dict[str, bytes] = {}
    _walk_into(root, options, since, (files, folders, ignored))
    return Walk(stamps(files, since), folders, ignored, since, writes)


_Parts = tuple[set[str], dict[str, Version | None], dict[str, bytes]]


def _walk_into(top: str, options: RgOptions, since: int, parts: _Parts) -> set[str]:
    """Add the files, folders and ignored paths of the walk of ``top`` to ``parts``; return the
    files."""
    files, folders, ignored = parts
    log = bytearray()
    found = {os.path.join(top, name) for name in list_files(top, options, cwd=top, log=log)}
    files.update(found)
    ignored.update(ignored_lines(bytes(log)))
    folders.update(stamps(folders_below(top, options, ignored), since))
    return found


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
    docstring): the folders there stat'ed again, those that moved listed again and their files
    stat'ed, with the files leanread wrote, those too recent to trust and every ignore file; every
    file of the root when ``FULL_STAT_NS`` passed since they were; ``root`` walked whole when there
    is no ``old`` (or it lost the root), an ignore file changed or too many folders moved.

    Raises:
        SearchUnavailable, LeanreadError: ripgrep missing or failing.
    """
    since = time.time_ns()
    if old is None or root not in old.folders:
        return walked(root, options)
    top = below or root
    prefix = top.rstrip(os.sep) + os.sep
    whole = top == root
    now = stamps(old.folders if whole else [f for f in old.folders if f == top or f.startswith(prefix)], since)
    moved = [folder for folder, version in now.items() if version is None or version != old.folders[folder]]
    if len(moved) > RELIST_FOLDERS:
        return walked(root, options)
    relisted: set[str] = set()
    walk = _relisted(old, moved, options, since, relisted) if moved else old
    written, writes = _WRITES.since(old.writes)
    full = written is None or since - old.stated >= FULL_STAT_NS
    if full:
        looked = list(walk.files)
    else:
        looked = [*walk.unsure, *relisted.intersection(walk.files)]
        looked.extend(path for path in written or () if path in walk.files)
    stated = since if full else old.stated
    stamped = stamps(looked, since)
    # nothing changed (the usual refresh): the files stay the same table, which tells the
    # census it has nothing to sniff again; a file still too recent to trust has changed
    same = not moved and all(v is not None and walk.files.get(path) == v for path, v in stamped.items())
    if same and (stated, writes) == (walk.stated, walk.writes):
        return walk
    fresh = Walk(walk.files if same else {**walk.files, **stamped}, walk.folders, walk.ignored, stated, writes)
    touched = [*looked, *(old.files.keys() - walk.files.keys())] if moved else looked
    return walked(root, options) if _ignore_files_moved(old, fresh, touched) else fresh


def _relisted(old: Walk, moved: list[str], options: RgOptions, since: int, listed: set[str]) -> Walk:
    """``old`` with the folders ``moved`` listed again (``_relist``); a new file has no version
    yet; the files now in the folders listed are added to ``listed``."""
    files, folders, ignored = set(old.files), dict(old.folders), dict(old.ignored)
    found: set[str] = set()
    for folder in moved:
        found |= _relist(folder, options, since, (files, folders, ignored))
    listed.update(found & files)  # not those a later folder of ``moved`` dropped
    return replace(old, files={path: old.files.get(path) for path in files}, folders=folders, ignored=ignored)


def _relist(folder: str, options: RgOptions, since: int, parts: _Parts) -> set[str]:
    """List ``folder`` again in ``parts``: its own files and ignored paths anew, a subfolder gone
    dropped with all below it, a new one walked whole; all of it dropped when it is gone. Returns
    the files listed (its own and those of new subfolders)."""
    files, folders, ignored = parts
    if folder not in folders:
        return set()  # dropped with a folder above it
    version = stamps([folder], since)[folder]  # before the listing: a change during it shows next time
    if not os.path.isdir(folder) or os.path.islink(folder):
        _drop(folder, parts)
        return set()
    folders[folder] = version
    log = bytearray()
    found = {os.path.join(folder, name) for name in list_files(folder, options, cwd=folder, log=log, depth=1)}
    files.difference_update([path for path in files if os.path.dirname(path) == folder])
    files.update(found)
    for path in [path for path in ignored if os.path.dirname(path) == folder]:
        del ignored[path]
    ignored.update(ignored_lines(bytes(log)))
    return found | _resubfolder(folder, options, since, parts)


def _resubfolder(folder: str, options: RgOptions, since: int, parts: _Parts) -> set[str]:
    """The subfolders of ``folder`` in ``parts`` as they are now: one gone dropped with all below
    it, a new one walked whole (those that stayed are stat'ed on their own). Returns the files of
    the new ones."""
    folders, ignored = parts[1], parts[2]
    now = set(subfolders(folder, options, ignored))
    before = {path for path in folders if path != folder and os.path.dirname(path) == folder}
    for gone in before - now:
        _drop(gone, parts)
    return set().union(*(_walk_into(new, options, since, parts) for new in now - before))


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
