"""The tree an ``ls`` shows, built from the files ``rg --files`` lists: folders with their file
counts, the symbolic links and FIFOs, sockets and devices ripgrep does not list (scanned in each
folder shown), chains of lone folders merged into one row, and the levels expanded while they fit
the entry cap. ``ls`` (the tool) asks for it and writes the notes around it."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from ..files.names import show_path
from ..files.workspace import unopened
from .common import DenyFilter, ToolContext

#: Folder names left out besides ``.git`` (which every search leaves out).
SKIPPED = ("node_modules", "__pycache__")
#: A folder holding this file is a Python virtualenv, left out.
VENV_MARKER = "pyvenv.cfg"


@dataclass
class Folder:
    """A folder of the tree: its subfolders, its files, how many files lie below it, and once
    scanned (``Scanner.scan``) the rows of its symbolic links and of its FIFOs, sockets and
    devices by name."""

    folders: dict[str, Folder] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    count: int = 0
    expanded: bool = False
    capped: bool = False  # left collapsed by the entry cap, not by the depth
    links: dict[str, str] = field(default_factory=dict)
    specials: dict[str, str] = field(default_factory=dict)

    def entries(self) -> int:
        """The rows this folder's own listing has: subfolders, files, links and special files."""
        return len(self.folders) + len(self.files) + len(self.links) + len(self.specials)


def _link_row(ctx: ToolContext, link: str, name: str) -> str | None:
    """The row of the symbolic link ``link`` named ``name``, or None when it is denied; its
    target is named only when it lies inside the workspace, and never opened."""
    workspace = ctx.workspace
    if workspace.is_denied(link):
        return None
    real = os.path.realpath(link)
    arrow = f"{show_path(name)} ->"
    if workspace.root_of(real) is None:
        return f"{arrow} (outside the workspace)"
    try:
        st = os.stat(link)
    except FileNotFoundError:
        return f"{arrow} {workspace.display(real)} (missing)"
    except OSError as exc:
        return f"{arrow} (a link loop)" if exc.errno == errno.ELOOP else f"{arrow} {workspace.display(real)}"
    mark = "/" if stat.S_ISDIR(st.st_mode) else unopened(st.st_mode) or ""
    return f"{arrow} {workspace.display(real)}{mark}"


def _special_row(ctx: ToolContext, path: str, name: str) -> str | None:
    """The row of the FIFO, socket or device ``path`` named ``name``, saying what it is and that
    read does not open it (``pipe (a FIFO (named pipe); read does not open it)``); None when it
    is denied or is none of those by now. Never opened."""
    if ctx.workspace.is_denied(path):
        return None
    try:
        mark = unopened(os.lstat(path).st_mode)
    except OSError:
        return None
    return None if mark is None else show_path(name) + mark


@dataclass(frozen=True)
class Scanner:
    """Finds what ripgrep does not list in a folder: its symbolic links and its FIFOs, sockets and
    devices; none when ``odd`` is False (a glob's listing: ripgrep's glob picks regular files)."""

    ctx: ToolContext
    odd: bool = True

    def scan(self, folder: Folder, real: str) -> None:
        """Fill ``folder.links`` with the symbolic links directly in ``real`` and ``folder.specials``
        with its FIFOs, sockets and devices."""
        if not self.odd:
            return
        try:
            with os.scandir(real) as entries:
                odd = [(e.name, e.is_symlink()) for e in entries if e.name not in SKIPPED and _odd(e)]
        except OSError:
            return
        for name, is_link in odd:
            path = os.path.join(real, name)
            row = _link_row(self.ctx, path, name) if is_link else _special_row(self.ctx, path, name)
            if row is not None:
                (folder.links if is_link else folder.specials)[name] = row


def _odd(entry: os.DirEntry[str]) -> bool:
    """Whether ``entry`` is no regular file or folder (a link, FIFO, socket or device), from its
    type as the folder's listing gives it."""
    try:
        return entry.is_symlink() or not (entry.is_file(follow_symlinks=False) or entry.is_dir(follow_symlinks=False))
    except OSError:
        return False


def build_tree(
    paths: Sequence[str], top: str, ctx: ToolContext, dropped: list[str], only: Collection[str] | None = None
) -> Folder:
    """The folder ``top`` built from the file paths ripgrep listed below it (those in ``only``, a
    glob's matches, when given), virtualenvs (folders holding ``VENV_MARKER`` among ``paths``) and
    denied paths left out (the denied ones added to ``dropped``)."""
    denied = DenyFilter(ctx)
    prefix = top.rstrip(os.sep) + os.sep
    below = [path for path in paths if path.startswith(prefix)]
    venvs = {tuple(p[:-1]) for p in (path[len(prefix) :].split(os.sep) for path in below) if p[-1] == VENV_MARKER}
    below = below if only is None else [path for path in below if path in only]
    dropped.extend(path for path in below if denied(path))
    parts = [path[len(prefix) :].split(os.sep) for path in below if not denied(path)]
    root = Folder()
    for names in parts:
        if venvs and any(tuple(names[:i]) in venvs for i in range(1, len(names))):
            continue
        folder = root
        folder.count += 1
        for name in names[:-1]:
            folder = folder.folders.setdefault(name, Folder())
            folder.count += 1
        folder.files.append(names[-1])
    return root


def _lone_folder(folder: Folder, real: str, scanner: Scanner) -> str | None:
    """The name of the one entry of ``folder`` when that entry is a folder (no file, no link shown
    beside it), else None."""
    if folder.files or len(folder.folders) != 1:
        return None
    probe = Folder()
    scanner.scan(probe, real)
    return None if probe.entries() else next(iter(folder.folders))


def _merge_chains(folder: Folder, real: str, scanner: Scanner) -> None:
    """Give each subfolder of ``folder`` that holds only one folder, which holds only one folder,
    and so on, the path of the whole chain as its name (``main/java/com/``), so a deep package
    path is one row and one level, not one of each per folder."""
    merged: dict[str, Folder] = {}
    for name, child in folder.folders.items():
        path, child_real = name, os.path.join(real, name)
        while (only := _lone_folder(child, child_real, scanner)) is not None:
            path, child_real, child = f"{path}/{only}", os.path.join(child_real, only), child.folders[only]
        merged[path] = child
    folder.folders = merged


def expand(root: Folder, top: str, depth: int, cap: int, scanner: Scanner) -> tuple[int, bool]:
    """Mark folders expanded level by level while their entries fit in ``cap``, scanning each
    folder considered for its links and merging its chains of lone folders (``_merge_chains``: a
    chain is one level); returns the entries shown and whether the top folder itself was cut. The
    work follows the tree: a level with no folder left ends it, whatever ``depth``."""
    root.expanded = True
    scanner.scan(root, top)
    _merge_chains(root, top, scanner)
    used = min(root.entries(), cap)
    level = [(root, top)]
    for _ in range(depth - 1):
        if not level:
            break
        below: list[tuple[Folder, str]] = []
        for folder, real in level:
            for name in sorted(folder.folders):
                child, child_real = folder.folders[name], os.path.join(real, name)
                if used + child.entries() > cap:
                    child.capped = True
                    continue
                scanner.scan(child, child_real)
                _merge_chains(child, child_real, scanner)
                if used + child.entries() <= cap:
                    child.expanded = True
                    used += child.entries()
                    below.append((child, child_real))
                else:
                    child.capped = True
        level = below
    return used, root.entries() > cap


def files_label(count: int) -> str:
    """``1 file``, ``12 files``."""
    return f"{count} file" + ("" if count == 1 else "s")


def tree_rows(folder: Folder, indent: str, rows: list[str], cap: int | None = None, counts: bool = True) -> int:
    """Append the rows of an expanded folder; returns how many folders were shown collapsed.
    ``counts``: a collapsed folder shows its file count (False for a flat listing, ``depth=1``,
    where no folder is open, so none needs telling apart from an open one)."""
    collapsed = 0
    odd = [*folder.links.items(), *folder.specials.items()]
    leaves = sorted([(name, show_path(name)) for name in folder.files] + odd)
    names = [(name, True) for name in sorted(folder.folders)] + [(row, False) for _, row in leaves]
    for name, is_folder in names[:cap]:
        if not is_folder:
            rows.append(indent + name)
            continue
        child = folder.folders[name]
        if child.expanded:
            rows.append(f"{indent}{show_path(name)}/")
            collapsed += tree_rows(child, indent + "  ", rows)
        else:
            rows.append(f"{indent}{show_path(name)}/" + (f" ({files_label(child.count)})" if counts else ""))
            collapsed += 1
    return collapsed


def folder_count(folder: Folder) -> int:
    """The folders below ``folder``, at every depth."""
    return sum(1 + folder_count(child) for child in folder.folders.values())


def collapsed_by(folder: Folder) -> set[bool]:
    """For each folder shown collapsed below ``folder``, whether the entry cap (True) or the
    depth (False) left it so."""
    reasons: set[bool] = set()
    for child in folder.folders.values():
        reasons |= collapsed_by(child) if child.expanded else {child.capped}
    return reasons
