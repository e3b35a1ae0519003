"""Step 1 of ``grep``: ripgrep's hits, by file, sorted by path, deny-listed files dropped; the
first files are loaded (``lines.prepare``) while ripgrep still searches."""

from __future__ import annotations

import os

from ...files.ripgrep import FileHits, RgOptions, count_files, search_json
from ...files.textfile import shown
from ...files.workspace import Resolved
from ...view.render import binary_skipped
from ..common import DenyFilter, ToolContext
from .lines import Prepared, prepare
from .literal import Searched, search_or_literal


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
        if self._room < found.count or self.denied(found.path):
            self._room = 0
            return
        self._room -= found.count
        self.ready[found.path] = prepare(self._ctx, found, self._before, self._after)


def search(
    pattern: str,
    target: Resolved,
    options: RgOptions,
    ctx: ToolContext,
    prefetch: Prefetch,
    every_root: bool = False,
) -> tuple[list[FileHits], dict[str, FileHits], Searched[list[FileHits]], str | None]:
    """Every file with a match below ``target`` (below every workspace root with
    ``every_root``), sorted by path, deny-listed files dropped; the hits of each by path (without
    their lines, ``block`` None, when the search passed its budget and only counted); how it was
    searched (as literal text after ``search_or_literal``'s fallback); and the note naming binary
    files with a match that were left out."""
    cwd = target.real if target.is_dir else os.path.dirname(target.real)
    paths = list(ctx.workspace.roots) if every_root else [target.real]
    binary: list[str] = []
    sniff = ctx.limits.sniff_bytes

    def once(how: RgOptions) -> list[FileHits]:
        binary.clear()
        found = search_json(pattern, paths, how, cwd=cwd, on_file=prefetch, binary=binary, sniff_bytes=sniff)
        if found is None:
            prefetch.ready.clear()
            binary.clear()
            found = count_files(pattern, paths, how, cwd=cwd, binary=binary, sniff_bytes=sniff)
        return found

    searched = search_or_literal(pattern, options, once, len)
    denied = prefetch.denied
    files = sorted((f for f in searched.found if not denied(f.path)), key=lambda f: f.path)
    skipped = sorted(shown(ctx.workspace.display(os.path.join(cwd, p))) for p in binary if not denied(p))
    return files, {f.path: f for f in files}, searched, binary_skipped(skipped)


def glob_under(glob: str, folder: str) -> str:
    """``glob`` as ripgrep applies it under ``folder``: results show paths from the workspace
    root, so a glob written from there (``src/app/*.py`` with ``path="src"``) drops the folder."""
    negated, pattern = ("!", glob[1:]) if glob.startswith("!") else ("", glob)
    pattern = pattern.removeprefix("./")
    prefix = folder.rstrip("/") + "/"
    if folder not in (".", "") and pattern.startswith(prefix):
        pattern = pattern[len(prefix) :]
    return negated + pattern
