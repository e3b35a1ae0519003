"""Which files below a search's paths need decoding to be searched (``mirror``), found by a
census of each root: its walk (``files.walk``: every file ripgrep walks, with its version, kept true
from stats, listed again only where a folder moved) and what keeps ripgrep from searching each
file as UTF-8 (``search_files.utf8_flaw``), sniffed once per version. Each grep brings the census
up to date below its paths beside its search, so a file created, moved, rewritten by temp file and
rename, or written by ``edit`` since the last grep is searched as ``read`` decodes it (one
rewritten in place by another program, its folder unchanged, once ``walk.FULL_STAT_NS`` passed).
A file the search found with lines that are not UTF-8 is judged at once too, were it changed while
the census was taken.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ...files.rgsearch import FileHits
from ...files.ripgrep import RgOptions
from ...files.search_files import utf8_flaw
from ...files.walk import Walk, refreshed
from ...files.workspace import Resolved
from ..common import DenyFilter, ToolContext
from .mirror import Decoded, judge, private, under

__all__ = ["CENSUS", "Census", "RootCensus", "Started"]


@dataclass(frozen=True)
class RootCensus:
    """One root's census: its walk; the files that may need decoding, each by whether its flaw is
    a NUL byte (``utf8_flaw``: mostly binary, so judged by its head first); and those with a NUL
    byte judged to need no decoding, not judged again while their version stands (django's 1362
    images and catalogs would cost a stat each, each grep)."""

    walk: Walk
    flagged: dict[str, bool]
    settled: set[str] = field(default_factory=set)


class Census:
    """Each root's census per ignore setting and deny list, brought up to date by each grep;
    shared by every session of the process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: dict[tuple[object, ...], RootCensus] = {}

    def last(self, root: str, options: RgOptions) -> RootCensus | None:
        """The census of ``root`` as the last grep left it, if one did."""
        with self._lock:
            return self._kept.get(_census_key(root, options))

    def of(self, root: str, options: RgOptions, below: str | None = None) -> RootCensus:
        """The census of ``root`` (absolute paths) brought up to date below the folder ``below``
        (default: all of it), walked with ``options``' ignore setting and deny list (its glob and
        type are applied later, to the decoded copies).

        Raises:
            SearchUnavailable, LeanreadError: ripgrep missing or failing.
        """
        old = self.last(root, options)
        walk = refreshed(old.walk if old else None, root, replace(options, glob=None, file_type=None), below)
        census = _sniffed(old, walk)
        with self._lock:
            self._kept[_census_key(root, options)] = census
        return census


def _sniffed(old: RootCensus | None, walk: Walk) -> RootCensus:
    """The census of ``walk``: each file whose version ``old`` holds keeps its verdict, the
    others (new, changed, or too recent to trust) are sniffed (``utf8_flaw``)."""
    if old is not None and walk.files is old.walk.files:  # no file changed since the last census
        return RootCensus(walk, old.flagged, old.settled)
    flagged: dict[str, bool] = {}
    settled: set[str] = set()
    for path, version in walk.files.items():
        if old is not None and version is not None and old.walk.files.get(path) == version:
            if path in old.flagged:
                flagged[path] = old.flagged[path]
            if path in old.settled:
                settled.add(path)
            continue
        flaw = utf8_flaw(path)
        if flaw is not None:
            flagged[path] = flaw == "nul"
    return RootCensus(walk, flagged, settled)


def _census_key(root: str, options: RgOptions) -> tuple[object, ...]:
    return (root, options.no_ignore, options.skip, options.policy)


CENSUS = Census()


class Started:
    """The decoded files below a search's paths: the roots' censuses brought up to date in a
    thread beside the search (``result``; a stat of each folder below the paths and of the files
    ``walk.refreshed`` names, or a root's first walk); meanwhile, when each root has a census, the
    files the last one flagged are judged at once (``upfront``: their copies are searched in the
    search's own ripgrep run). A file named by the model is judged at once."""

    def __init__(
        self, ctx: ToolContext, target: Resolved, paths: Sequence[str], roots: Sequence[str], options: RgOptions
    ) -> None:
        self._ctx = ctx
        self._result = Decoded()
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        self.upfront: Decoded | None = self._result
        #: the roots' censuses once up to date (none for a file named by the model)
        self.censuses: list[RootCensus] = []
        if not target.is_dir:
            judge(ctx, target.real, self._result, head_first=True)
            return
        last = [census for census in (CENSUS.last(root, options) for root in roots) if census is not None]
        self.upfront = self._judged(paths, last) if len(last) == len(roots) else None
        self._thread = threading.Thread(target=self._run, args=(paths, roots, options), daemon=True)
        self._thread.start()

    def _judged(self, paths: Sequence[str], censuses: Sequence[RootCensus]) -> Decoded:
        """The files below ``paths`` that ``censuses`` flag, judged (``mirror.judge``)."""
        decoded = Decoded()
        denied = DenyFilter(self._ctx)
        below = tuple(top.rstrip(os.sep) + os.sep for top in paths)
        for census in censuses:
            for path, nul in census.flagged.items():
                if (nul and path in census.settled) or not path.startswith(below) or private(path):
                    continue
                if judge(self._ctx, path, decoded, nul, denied) and nul:
                    census.settled.add(path)
        return decoded

    def _run(self, paths: Sequence[str], roots: Sequence[str], options: RgOptions) -> None:
        try:
            self.censuses = [CENSUS.of(root, options, next(p for p in paths if under(p, root))) for root in roots]
            self._result = self._judged(paths, self.censuses)
        except BaseException as exc:  # handed to the caller's thread by result()
            self._error = exc

    def ignored_log(self) -> bytes:
        """What ignore files left out of the roots' walks, as ``rglog`` lines (after ``result``)."""
        return b"\n".join(census.walk.log() for census in self.censuses)

    def result(self, found: Sequence[FileHits] = (), cwd: str = "") -> Decoded:
        """The decoded files, judged from the censuses once up to date; ``found`` (the search's
        hits, paths from ``cwd``): a file with lines that are not UTF-8 is judged too, were it
        changed after its census.

        Raises:
            LeanreadError: as the census raised it.
        """
        if self._thread is not None:
            self._thread.join()
        if self._error is not None:
            raise self._error
        for hits in found:
            if hits.block is not None and b'"lines":{"bytes"' in hits.block:
                path = os.path.join(cwd, hits.path)
                if path not in self._result.copies:
                    judge(self._ctx, path, self._result, head_first=False)
        return self._result
