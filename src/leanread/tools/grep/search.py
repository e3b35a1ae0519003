"""Step 1 of ``grep``: ripgrep's hits, by file, sorted by path, deny-listed files dropped; the
first files are loaded (``lines.prepare``) while ripgrep still searches."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable
from dataclasses import dataclass, replace

from ...files.rgsearch import FileHits, count_files, search_json
from ...files.ripgrep import RgOptions
from ...files.search_files import type_globs
from ...files.textfile import shown
from ...files.workspace import Resolved
from ...view.render import binary_skipped
from ..common import DenyFilter, ToolContext
from ..leftout import LeftOut, left_out
from .census import Started
from .decoded import places, search_decoded, too_big_note
from .lines import Prepared, prepare
from .literal import Searched, search_or_literal
from .mirror import Decoded


class Prefetch:
    """Prepares files while ripgrep still searches, as long as every match found so far would
    be on the page (so the work is rarely thrown away); ``run`` takes the prepared files from
    ``ready`` and prepares the rest of its page itself."""

    def __init__(self, ctx: ToolContext, before: int, after: int, room: int) -> None:
        self._ctx = ctx
        self._before = before
        self._after = after
        self._room = room
        self.denied = DenyFilter(ctx)  # search() reuses it: its folder answers are cached
        self.ready: dict[str, Prepared] = {}

    def __call__(self, found: FileHits) -> None:
        if self._ctx.workspace.root_of(found.path) is None:
            return  # a decoded copy searched beside the files: its file is prepared with the page
        if self._room < found.count or self.denied(found.path):
            self._room = 0
            return
        self._room -= found.count
        self.ready[found.path] = prepare(self._ctx, found, self._before, self._after)


@dataclass(frozen=True)
class Found:
    """What the search found: every file with a match below the target, sorted by path, deny-listed
    files dropped (``files``, and by path); how it was searched (as literal text after
    ``search_or_literal``'s fallback); the notes naming binary files with a match that were left
    out and files too big to search decoded; and what the walk left out (ignore files, the deny
    list)."""

    files: list[FileHits]
    by_path: dict[str, FileHits]
    searched: Searched[list[FileHits]]
    notes: list[str]
    left: LeftOut


def search(
    pattern: str,
    target: Resolved,
    options: RgOptions,
    ctx: ToolContext,
    prefetch: Prefetch,
    every_root: bool = False,
) -> Found:
    """Every file with a match below ``target`` (below every workspace root with
    ``every_root``); files ripgrep only counted (the search passed its budget) have ``block`` None;
    files ``read`` decodes otherwise than ripgrep reads their bytes are searched decoded
    (``decoded``): in the same ripgrep run when the roots' last census flagged them, else after
    it (each census is brought up to date beside the search)."""
    cwd = target.real if target.is_dir else os.path.dirname(target.real)
    paths = list(ctx.workspace.roots) if every_root else [target.real]
    roots = paths if every_root else [ctx.workspace.root_of(target.real) or target.real]
    binary: list[str] = []
    # a glob or type makes ripgrep log every file it rejects, one write each (4x the search's
    # system time on django): then what was left out comes from the root's census instead
    logged = options.glob is None and options.file_type is None
    log: bytearray | None = bytearray() if logged else None
    sniff = ctx.limits.sniff_bytes
    started = Started(ctx, target, paths, roots, options)
    with places(ctx, started.upfront or Decoded(), options, paths, tree_ok=False) as upfront:

        def once(how: RgOptions) -> list[FileHits]:
            binary.clear()
            if log is not None:
                log.clear()
            where = [*paths, *upfront.where]
            found = search_json(
                pattern, where, how, cwd=cwd, on_file=prefetch, binary=binary, sniff_bytes=sniff, log=log
            )
            if found is None:
                prefetch.ready.clear()
                binary.clear()
                if log is not None:
                    log.clear()
                found = count_files(pattern, where, how, cwd=cwd, binary=binary, sniff_bytes=sniff, log=log)
            raw, upfront_hits = upfront.adopt(found)
            decoded = started.result(raw, cwd)
            if not decoded.copies:
                return raw
            # a copy searched upfront stands only if the census, now up to date, holds it still
            transcoded = [f for f in upfront_hits if decoded.copies.get(f.path) == f.searched]
            # ripgrep prints the paths below the absolute ones it was given as absolute paths
            kept = [f for f in raw if f.path not in decoded.copies]
            for f in raw:
                if f.path in decoded.copies:
                    prefetch.ready.pop(f.path, None)
            binary[:] = [p for p in binary if p not in decoded.copies]
            already = set(upfront.mapped.values())
            late = Decoded({p: c for p, c in decoded.copies.items() if (p, c) not in already})
            return kept + transcoded + search_decoded(ctx, pattern, late, how, paths, cwd)

        searched = search_or_literal(pattern, options, once, len)
    denied = prefetch.denied
    files: list[FileHits] = []
    dropped: list[str] = []
    for found in searched.found:  # one look at each file: a broad search finds thousands
        if denied(found.path):
            dropped.append(os.path.join(cwd, found.path))
        else:
            files.append(found)
    files.sort(key=lambda f: f.path)
    skipped = sorted(shown(ctx.workspace.display(os.path.join(cwd, p))) for p in binary if not denied(p))
    if log is not None:
        left = left_out(ctx, bytes(log), cwd, dropped)
    else:
        started.result()
        left = left_out(ctx, started.ignored_log(), cwd, dropped, _selected(options), under=target.real)
    if options.glob is not None and not options.glob.startswith("!"):
        left = _brought_back(left, [ctx.workspace.display(os.path.join(cwd, f.path)) for f in files])
    notes = [note for note in (binary_skipped(skipped), too_big_note(ctx, started.result().too_big)) if note]
    return Found(files, {f.path: f for f in files}, searched, notes, left)


def _brought_back(left: LeftOut, found: list[str]) -> LeftOut:
    """``left`` without the ignored folders a glob brought back into the search (ripgrep's glob
    overrides ignore files: ``--glob '*'`` names ``build/`` too), those with a match below them
    (``found``: the files with a match, as the model names them), so no note says a folder that
    was searched was left out."""
    gone = {name for name in left.ignored if name.endswith("/") and any(path.startswith(name) for path in found)}
    if not gone:
        return left
    ignored = tuple(name for name in left.ignored if name not in gone)
    sources = left.sources if ignored else ()
    return replace(left, ignored=ignored, ignored_count=left.ignored_count - len(gone), sources=sources)


def _selected(options: RgOptions) -> Callable[[str], bool]:
    """Whether an ignored file would count as left out of a search with a glob or type: ripgrep
    searches an ignored file that a glob names (a glob overrides ignore files, for files), and a
    file the glob or type rejects would not have been searched anyway; a type judges names alone
    (its globs, as ripgrep lists them), as does a negated glob here."""
    glob, file_type = options.glob, options.file_type
    if glob is not None and not glob.startswith("!"):
        return lambda path: False
    types = type_globs(file_type, options) if file_type is not None else ("*",)

    def selects(path: str) -> bool:
        name = os.path.basename(path)
        if glob is not None and fnmatch.fnmatchcase(name, glob[1:]):
            return False
        return any(fnmatch.fnmatchcase(name, g) for g in types)

    return selects
