"""What a search that found nothing says: that its ``glob`` or ``type`` selected no file at all
(with the names that do exist nearest to it), else the usual "No matches".

A glob or type that selects nothing (``*.rs`` in a Python tree, ``type=rust``) used to answer as a
search of the right files that found nothing, so a model concluded the code did not exist. Only
a search that found nothing pays for the check: one ripgrep walk that stops at the first file
the glob selects, and when there is none, one listing of the files without the glob.
"""

from __future__ import annotations

import difflib
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from ...files.ripgrep import RgOptions
from ...files.search_files import has_files, list_files, type_globs
from ...files.textfile import shown
from ...files.workspace import Resolved
from ...view.counts import plural
from ..common import DenyFilter, ToolContext
from .render import no_matches

__all__ = ["nearest", "nothing_found"]

#: Names suggested at most.
SUGGESTIONS = 4


def _extension_glob(name: str) -> str | None:
    """``*.py`` for ``app.py`` (``*.gz`` for ``a.tar.gz``); None for a name without one."""
    stem, ext = os.path.splitext(name)
    return f"*{ext}" if ext and stem else None


def nearest(wanted: Sequence[str], files: Sequence[str]) -> list[str]:
    """Up to ``SUGGESTIONS`` globs and names that do select files, for globs ``wanted`` that select
    none: the extension globs and file names closest to one of ``wanted``'s last parts (case
    ignored), then the commonest extension globs (ties by name); each glob with its count of files
    (``*.py (120 files)``), each name as the path of one file that has it.

    Args:
        wanted: the globs asked for (a type's globs, or the one glob given).
        files: the paths of the files there are (``/``-separated, relative to the folder searched).
    """
    files = sorted(files)
    names = [f.rsplit("/", 1)[-1] for f in files]
    counts = Counter(g for g in map(_extension_glob, names) if g is not None)
    first_path: dict[str, str] = {}
    for path, name in zip(files, names, strict=True):
        first_path.setdefault(name, path)
    by_lower: dict[str, str] = {}
    for candidate in [*counts, *first_path]:
        by_lower.setdefault(candidate.lower(), candidate)
    chosen: list[str] = []
    for glob in wanted:
        last = glob.lstrip("!").rsplit("/", 1)[-1].lower()
        for close in difflib.get_close_matches(last, list(by_lower), n=SUGGESTIONS, cutoff=0.6):
            chosen.append(by_lower[close])
    chosen += sorted(counts, key=lambda glob: (-counts[glob], glob))[:SUGGESTIONS]
    shown_: list[str] = []
    for item in dict.fromkeys(chosen):
        if item in counts:
            shown_.append(f"{item} ({plural(counts[item], 'file')})")
        else:
            shown_.append(first_path[item])
        if len(shown_) == SUGGESTIONS:
            break
    return shown_


def _files_there(ctx: ToolContext, paths: Sequence[str], cwd: str, options: RgOptions) -> list[str]:
    """The files a search without glob and type would search, ``/``-separated from ``cwd``."""
    denied = DenyFilter(ctx)
    found: list[str] = []
    for path in paths:
        for name in list_files(path, options, cwd=cwd):
            full = os.path.join(cwd, name)
            if not denied(full):
                found.append(os.path.relpath(full, cwd).replace(os.sep, "/"))
    return found


def nothing_found(ctx: ToolContext, target: Resolved, options: RgOptions, every_root: bool, glob: str | None) -> str:
    """The line for a search that found nothing.

    Args:
        target: the file or folder searched.
        options: as searched (``glob`` as ripgrep took it, ``file_type``, ``no_ignore``).
        every_root: the search covered every workspace root.
        glob: the glob as the model wrote it (the message quotes it).

    Returns:
        ``(No file in the workspace matches glob '*.rs'; there are *.rst (2 files), *.py (9 files).)``
        when the glob or type selects no file; else ``no_matches`` (a file: no reason given).
    """
    named = not target.is_dir
    if options.glob is None and options.file_type is None:
        return no_matches(target.display, options.no_ignore, named)
    paths = list(ctx.workspace.roots) if every_root else [target.real]
    cwd = target.real if target.is_dir else os.path.dirname(target.real)
    if has_files(paths, options, cwd=cwd):
        return no_matches(target.display, options.no_ignore, named)
    place = "the workspace" if target.display == "." else shown(target.display)
    if options.file_type is not None:
        globs = type_globs(options.file_type, options)
        what = f"of type {options.file_type}" + (f" ({', '.join(globs)})" if globs else "")
        head = f"No file {what} in {place}"
    else:
        globs = (glob or options.glob or "",)
        head = f"No file in {place} matches glob {glob!r}"
    if not target.is_dir:
        return f"({head}.)"
    there = _files_there(ctx, paths, cwd, replace(options, glob=None, file_type=None))
    if not there:
        return f"({head}; it has no files grep searches.)"
    return f"({head}; there are {', '.join(nearest(globs, there))}.)"
