"""Files ``read`` decodes otherwise than ripgrep reads their bytes, searched as ``read`` decodes
them: their decoded copies (``mirror``, found by ``census``) are searched by ripgrep itself, so the
regex means the same, line numbers are ``read``'s and the lines are the text ``read`` shows; the
files' raw hits are dropped. A glob or type that judges names alone picks the copies here, and
they are searched in the search's own ripgrep run; any other glob needs the copies linked into a
tree shaped like the workspace, searched from the search's folder's place in it.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from ...files.rgsearch import FileHits, count_files, search_json
from ...files.ripgrep import RgOptions
from ...files.search_files import type_globs
from ...files.textfile import shown
from ...view.render import BINARY_NAMES, byte_size
from ..common import ToolContext
from .mirror import TREES, Decoded, private, under

__all__ = ["Places", "places", "search_decoded", "too_big_note"]


@dataclass
class Places:
    """Where ripgrep searches the decoded copies (``where``: the copies themselves, or folders of
    a tree of links to them shaped like the workspace when a glob or type must apply to their
    names), and what each path it reports stands for (its file, its copy)."""

    where: list[str] = field(default_factory=list)
    mapped: dict[str, tuple[str, str]] = field(default_factory=dict)
    tree: str | None = None
    #: a workspace root holds the temporary folder, so a search may walk into leanread's copies
    private_inside: bool = False

    def adopt(self, found: Sequence[FileHits]) -> tuple[list[FileHits], list[FileHits]]:
        """``found`` split into the hits of files on disk and those of decoded copies, the latter
        under their files' paths."""
        if not self.mapped and not self.private_inside:
            return list(found), []
        raw: list[FileHits] = []
        decoded: list[FileHits] = []
        for hits in found:  # ripgrep prints a path it was given as given, and those below with '/'
            place = self.mapped.get(hits.path)
            if place is None:
                if not (self.private_inside and private(hits.path)):
                    raw.append(hits)
            else:
                decoded.append(replace(hits, path=place[0], transcoded=True, searched=place[1]))
        return raw, decoded


@contextlib.contextmanager
def places(
    ctx: ToolContext, decoded: Decoded, options: RgOptions, paths: Sequence[str], *, tree_ok: bool = True
) -> Iterator[Places]:
    """The ``Places`` of the copies of ``decoded`` below ``paths``: the copies themselves when the
    glob and type judge names alone (``_by_name``; ripgrep searches a file it is given whatever its
    name), else a tree of links (removed on exit; ``tree_ok`` False: none then, as a glob with a
    ``/`` is matched from the folder ripgrep runs in, which only ``search_decoded`` sets to the tree)."""
    temporary = os.path.realpath(tempfile.gettempdir())
    found = Places(private_inside=any(under(temporary, root) for root in ctx.workspace.roots))
    copies = {real: copy for real, copy in decoded.copies.items() if any(under(real, p) for p in paths)}
    if not copies:
        yield found
        return
    by_name = _by_name(options)
    if by_name is not None:
        chosen = {real: copy for real, copy in copies.items() if by_name(os.path.basename(real))}
        found.where = sorted(chosen.values())
        found.mapped = {copy: (real, copy) for real, copy in chosen.items()}
        yield found
        return
    if not tree_ok:
        yield found
        return
    tree = tempfile.mkdtemp(dir=TREES.path())
    try:
        for real, copy in copies.items():
            place = _in_tree(ctx, tree, real)
            os.makedirs(os.path.dirname(place), exist_ok=True)
            try:
                os.link(copy, place)
            except OSError:
                shutil.copyfile(copy, place)
            found.mapped[place] = (real, copy)
        found.tree = tree
        found.where = [p for p in (_in_tree(ctx, tree, path) for path in paths) if os.path.exists(p)]
        yield found
    finally:
        shutil.rmtree(tree, ignore_errors=True)


def _by_name(options: RgOptions) -> Callable[[str], bool] | None:
    """Whether a file name passes the search's glob and type, when they judge names alone (a
    glob without ``/``, ``**``, braces or escapes; a type whose globs have no ``/``); None when
    only ripgrep can tell (then the copies are searched in a tree of links)."""
    tests: list[Callable[[str], bool]] = []
    glob = options.glob
    if glob is not None:
        negated, body = (True, glob[1:]) if glob.startswith("!") else (False, glob)
        if any(mark in body for mark in ("/", "{", "\\", "[^")):
            return None
        tests.append(lambda name: fnmatch.fnmatchcase(name, body) != negated)
    if options.file_type is not None:
        globs = type_globs(options.file_type, options)
        if any(mark in g for g in globs for mark in ("/", "{", "\\", "[^")):
            return None
        tests.append(lambda name: any(fnmatch.fnmatchcase(name, g) for g in globs))
    return lambda name: all(test(name) for test in tests)


def search_decoded(
    ctx: ToolContext, pattern: str, decoded: Decoded, options: RgOptions, paths: Sequence[str], cwd: str
) -> list[FileHits]:
    """The hits of ``pattern`` in the decoded copies of the files below ``paths`` (the search's
    folders or file), under the files' own paths, searched with ``options`` from ``cwd`` (the
    search's folder: in a tree of links, its place there).

    Raises:
        as ``search.search_json``.
    """
    with places(ctx, decoded, options, paths) as where:
        if not where.where:
            return []
        tree = where.tree
        run_in = _in_tree(ctx, tree, cwd) if tree is not None else os.path.dirname(where.where[0])
        if not os.path.isdir(run_in):
            run_in = os.path.dirname(where.where[0])
        found = search_json(pattern, where.where, options, cwd=run_in)
        if found is None:
            found = count_files(pattern, where.where, options, cwd=run_in)
        return where.adopt(found)[1]


def _in_tree(ctx: ToolContext, tree: str, real: str) -> str:
    """Where ``real`` (a root, folder or file of the workspace) is in the tree of links."""
    root = ctx.workspace.root_of(real) or real
    index = ctx.workspace.roots.index(root) if root in ctx.workspace.roots else 0
    return os.path.normpath(os.path.join(tree, str(index), os.path.relpath(real, root)))


def too_big_note(ctx: ToolContext, too_big: Sequence[tuple[str, str, int]]) -> str | None:
    """The note naming files that need decoding but were searched as raw bytes, being too big to
    decode whole: ``(big.log (gbk, 9 MB) is over 8 MB, so grep searched its bytes, not its decoded
    text; read it by offset.)``."""
    if not too_big:
        return None
    named = [
        f"{shown(ctx.workspace.display(path))} ({encoding}, {byte_size(size)})"
        for path, encoding, size in sorted(too_big)[:BINARY_NAMES]
    ]
    more = f" and {len(too_big) - BINARY_NAMES} more" if len(too_big) > BINARY_NAMES else ""
    one = len(too_big) == 1
    its, it = ("its", "it") if one else ("their", "them")
    return (
        f"({', '.join(named)}{more} {'is' if one else 'are'} over {byte_size(ctx.limits.index_bytes)}, so grep "
        f"searched {its} bytes, not {its} decoded text; read {it} by offset.)"
    )
