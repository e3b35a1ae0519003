"""Which files below a search's folder need decoding to be searched (``mirror``), found by a
census of each root: one more ripgrep walk (``search_files.not_utf8_files``: the files that are
not UTF-8, and from its log the files with a NUL byte and what ignore files left out), run beside
the search and kept ``CENSUS_SECONDS`` per root and ignore setting, so a session's greps pay it
once a minute, not each time. A file the search itself found with lines that are not UTF-8 is
judged at once, so a file that turned legacy since the census is still caught when its bytes match.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ...files.rglog import ignored_lines, parse_log
from ...files.rgsearch import FileHits
from ...files.ripgrep import RgOptions
from ...files.search_files import not_utf8_files
from ...files.workspace import Resolved
from ..common import DenyFilter, ToolContext
from .mirror import Decoded, judge, private, under

__all__ = ["CENSUS", "CENSUS_SECONDS", "Census", "Started"]

#: Seconds a root's census is used before its next grep walks it again.
CENSUS_SECONDS = 60.0


@dataclass(frozen=True)
class _Listing:
    """One root's census: when it was taken, the files that are not UTF-8, those with a NUL byte,
    and the lines of its walk's log that name what ignore files left out (``rglog``); ``settled``:
    files with a NUL byte judged not to need decoding (mostly binary), not judged again while the
    census is kept (django's 1362 images and catalogs would cost a stat each, each grep)."""

    taken: float
    not_utf8: tuple[str, ...]
    nul: tuple[str, ...]
    ignored: bytes = b""
    settled: set[str] = field(default_factory=set)


class Census:
    """Each root's census (``search.not_utf8_files``), kept ``CENSUS_SECONDS`` per root, ignore
    setting and deny list; shared by every session of the process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: dict[tuple[object, ...], _Listing] = {}

    def kept(self, root: str, options: RgOptions) -> _Listing | None:
        """The census of ``root`` while it is kept, else None."""
        with self._lock:
            kept = self._kept.get(_census_key(root, options))
        return kept if kept is not None and time.monotonic() - kept.taken < CENSUS_SECONDS else None

    def of(self, root: str, options: RgOptions) -> _Listing:
        """The census of ``root`` (absolute paths), walked with ``options``' ignore setting and
        deny list (its glob and type are applied later, to the decoded copies).

        Raises:
            SearchUnavailable, LeanreadError: ripgrep missing or failing.
        """
        kept = self.kept(root, options)
        if kept is not None:
            return kept
        walk = replace(options, glob=None, file_type=None)
        log = bytearray()
        taken = time.monotonic()
        names = not_utf8_files([root], walk, cwd=root, log=log)
        nul = tuple(os.path.join(root, name) for name, _ in parse_log(bytes(log)).nul_files)
        listing = _Listing(taken, tuple(os.path.join(root, name) for name in names), nul, ignored_lines(bytes(log)))
        with self._lock:
            self._kept[_census_key(root, options)] = listing
        return listing


def _census_key(root: str, options: RgOptions) -> tuple[object, ...]:
    return (root, options.no_ignore, options.skip, options.policy)


CENSUS = Census()


class Started:
    """The decoded files below a search's target: judged at once when the root's census is kept
    (``upfront``), else in a thread beside the search (the census needs its walk); a file named by
    the model is judged at once."""

    def __init__(self, ctx: ToolContext, target: Resolved, roots: Sequence[str], options: RgOptions) -> None:
        self._ctx = ctx
        self._result = Decoded()
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        self.upfront: Decoded | None = self._result
        #: the roots' censuses (none for a file named by the model)
        self.listings: list[_Listing] = []
        if not target.is_dir:
            judge(ctx, target.real, self._result, head_first=True)
            return
        kept = [CENSUS.kept(root, options) for root in roots]
        if all(listing is not None for listing in kept):
            self.listings = [listing for listing in kept if listing is not None]
            self._judge_all(target.real, self.listings)
            return
        self.upfront = None
        self._thread = threading.Thread(target=self._run, args=(target.real, roots, options), daemon=True)
        self._thread.start()

    def _judge_all(self, top: str, listings: Sequence[_Listing]) -> None:
        denied = DenyFilter(self._ctx)
        for listing in listings:
            for path in listing.not_utf8:
                if under(path, top) and not private(path):
                    judge(self._ctx, path, self._result, False, denied)
            for path in listing.nul:
                fresh = path not in listing.settled and under(path, top) and not private(path)
                if fresh and judge(self._ctx, path, self._result, True, denied):
                    listing.settled.add(path)

    def _run(self, top: str, roots: Sequence[str], options: RgOptions) -> None:
        try:
            self.listings = [CENSUS.of(root, options) for root in roots]
            self._judge_all(top, self.listings)
        except BaseException as exc:  # handed to the caller's thread by result()
            self._error = exc

    def ignored_log(self) -> bytes:
        """What ignore files left out of the roots' walks, as ``rglog`` lines (after ``result``)."""
        return b"\n".join(listing.ignored for listing in self.listings)

    def result(self, found: Sequence[FileHits] = (), cwd: str = "") -> Decoded:
        """The decoded files, once judged; ``found`` (the search's hits, paths from ``cwd``): a file
        with lines that are not UTF-8 is judged too, were it not in the census.

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


