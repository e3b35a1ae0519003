"""Files ``read`` decodes that ripgrep cannot search as they are on disk, searched as ``read``
decodes them.

ripgrep searches bytes as UTF-8 and transcodes only UTF-16 with a byte-order mark. A file in a
legacy encoding (GBK, Shift-JIS, windows-1252, …) holds its text in other bytes, so a pattern with
non-ASCII text never matches it and a multi-byte encoding's second bytes can match ASCII by
accident; UTF-16 without a byte-order mark has NUL bytes between the letters. ``read`` decodes all
of them (``textfile.decode``), so grep must search them decoded too.

Finding them (``Census``): one more ripgrep walk of the root (``search.not_utf8_files``: the files
that are not UTF-8, and from its log the files with a NUL byte), run beside the search and kept
for ``CENSUS_SECONDS`` per root and ignore setting, so a session's greps pay it once a minute, not
each time. A file the search itself found with lines that are not UTF-8 is judged at once, so a
file that turned legacy since the census is still caught when its bytes match.

Judging them (``Mirror``): each is judged as ``read`` judges it (its first bytes, then
``decode``), once per version (path, size, mtime, ctime, inode); one that needs decoding is
written, decoded, as UTF-8 to a private folder: its lines exactly as ``read`` shows them.

Searching them (``search_decoded``): the copies are linked into a tree shaped like the workspace
and ripgrep searches that tree with the same glob and type, so the regex means the same, line
numbers are ``read``'s and the lines are the text ``read`` shows; the files' raw hits are dropped.
A file over ``Limits.index_bytes`` is not decoded whole: it keeps its raw hits and a note names it.
"""

from __future__ import annotations

import atexit
import codecs
import contextlib
import fnmatch
import hashlib
import os
import shutil
import stat
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from ...errors import LeanreadError
from ...render import BINARY_NAMES, byte_size
from ...rglog import ignored_lines, parse_log
from ...search import FileHits, RgOptions, count_files, not_utf8_files, search_json, type_globs
from ...sniff import binary_kind
from ...textfile import TextFile, decode, shown
from ...workspace import Resolved
from ..common import DenyFilter, ToolContext

__all__ = [
    "CENSUS_SECONDS",
    "Decoded",
    "Places",
    "Started",
    "needs_decoding",
    "places",
    "search_decoded",
    "too_big_note",
]

#: Seconds a root's census is used before its next grep walks it again.
CENSUS_SECONDS = 60.0
#: File versions whose verdict (and decoded copy) are kept, least recently used dropped first.
KEPT = 65536


def needs_decoding(text_file: TextFile) -> bool:
    """Whether ripgrep, searching the file's bytes, would not search the text ``read`` shows:
    any encoding but UTF-8 (with or without its byte-order mark) and UTF-16 with one."""
    if text_file.encoding == "utf-8":
        return False
    return not (text_file.bom and text_file.encoding in ("utf-16-le", "utf-16-be"))


class _Private:
    """A private temporary folder, made on first use and removed at exit."""

    def __init__(self, prefix: str) -> None:
        self._prefix = prefix
        self._path: str | None = None
        self._lock = threading.Lock()

    def path(self) -> str:
        with self._lock:
            if self._path is None:
                self._path = os.path.realpath(tempfile.mkdtemp(prefix=self._prefix))
                atexit.register(shutil.rmtree, self._path, True)
            return self._path

    def holds(self, path: str) -> bool:
        """Whether ``path`` lies in this folder (a workspace that holds the temporary folder would
        otherwise search leanread's own copies as its files)."""
        return self._path is not None and _under(path, self._path)


class Mirror:
    """The verdict on each file version judged, and the decoded copy (UTF-8, in a private folder)
    of each that needs one; shared by every session of the process, safe from several threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._folder = _Private("leanread-decoded-")
        self._kept: OrderedDict[tuple[object, ...], str | None] = OrderedDict()

    def holds(self, path: str) -> bool:
        """Whether ``path`` is in the folder of the copies."""
        return self._folder.holds(path)

    def lookup(self, key: tuple[object, ...]) -> tuple[bool, str | None]:
        """``(known, copy)``: whether this version was judged, and its copy (None: needs none)."""
        with self._lock:
            if key not in self._kept:
                return False, None
            self._kept.move_to_end(key)
            return True, self._kept[key]

    def keep(self, key: tuple[object, ...], text_file: TextFile | None) -> str | None:
        """Remember the verdict on this version, writing the decoded copy of ``text_file`` (its
        lines as ``read`` shows them, each ended by LF) when it needs one; returns the copy's path."""
        copy = None
        if text_file is not None and needs_decoding(text_file):
            name = hashlib.sha256(repr(key).encode("utf-8", "surrogatepass")).hexdigest()
            copy = os.path.join(self._folder.path(), name)
            text = "".join(line + "\n" for line in text_file.lines)
            with open(copy, "wb") as handle:
                handle.write(text.encode("utf-8", "surrogatepass"))
        with self._lock:
            self._kept[key] = copy
            while len(self._kept) > KEPT:
                _, dropped = self._kept.popitem(last=False)
                if dropped is not None:
                    with contextlib.suppress(OSError):
                        os.unlink(dropped)
        return copy


MIRROR = Mirror()
_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


@dataclass
class Decoded:
    """Files to search as ``read`` decodes them: each file's path by the path of its decoded copy;
    and files that need decoding but are too big to decode whole (path, encoding, bytes)."""

    copies: dict[str, str] = field(default_factory=dict)
    too_big: list[tuple[str, str, int]] = field(default_factory=list)


def _judge(
    ctx: ToolContext, path: str, decoded: Decoded, head_first: bool, denied: Callable[[str], bool] | None = None
) -> None:
    """Judge one file as ``read`` would decode it, adding it to ``decoded`` when it needs decoding;
    ``head_first``: look at its first bytes before reading it whole (a file with a NUL byte,
    which is mostly binary); ``denied``: a file it refuses is not opened (checked only before a
    version is first judged: a denied file's hits are dropped with the search's anyway)."""
    try:
        st = os.lstat(path)
    except OSError:
        return
    if not stat.S_ISREG(st.st_mode):
        return
    key = (path, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)
    known, copy = MIRROR.lookup(key)
    if not known:
        if denied is not None and denied(path):
            return
        copy = _first_judgement(ctx, path, key, st.st_size, decoded, head_first)
    if copy is not None:
        decoded.copies[path] = copy


def _first_judgement(
    ctx: ToolContext, path: str, key: tuple[object, ...], size: int, decoded: Decoded, head_first: bool
) -> str | None:
    try:
        with open(path, "rb") as handle:
            head = handle.read(ctx.limits.sniff_bytes)
            if head_first and not head.startswith(_BOMS) and binary_kind(head) is not None:
                return MIRROR.keep(key, None)  # as decode: a byte-order mark decides before the sniff
            if size > ctx.limits.index_bytes:
                _too_big(ctx, path, head, size, decoded)
                return None
            data = head + handle.read()
    except OSError:
        return None
    try:
        text_file: TextFile | None = decode(data, path, ctx.limits.sniff_bytes)
    except LeanreadError:
        text_file = None
    return MIRROR.keep(key, text_file)


def _too_big(ctx: ToolContext, path: str, head: bytes, size: int, decoded: Decoded) -> None:
    """A file over ``index_bytes``: named in ``too_big`` when its first bytes decode as a text
    that needs decoding (no verdict is kept: only the head was judged)."""
    try:
        text_file = decode(head, path, ctx.limits.sniff_bytes)
    except LeanreadError:
        return
    if needs_decoding(text_file):
        decoded.too_big.append((path, text_file.encoding, size))


@dataclass(frozen=True)
class _Listing:
    """One root's census: when it was taken, the files that are not UTF-8, those with a NUL byte,
    and the lines of its walk's log that name what ignore files left out (``rglog``)."""

    taken: float
    not_utf8: tuple[str, ...]
    nul: tuple[str, ...]
    ignored: bytes = b""


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


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


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
            _judge(ctx, target.real, self._result, head_first=True)
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
            for paths, head_first in ((listing.not_utf8, False), (listing.nul, True)):
                for path in paths:
                    if _under(path, top) and not _private(path):
                        _judge(self._ctx, path, self._result, head_first, denied)

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
            path = os.path.join(cwd, hits.path)
            if hits.block is not None and b'"lines":{"bytes"' in hits.block and path not in self._result.copies:
                _judge(self._ctx, path, self._result, head_first=False)
        return self._result


_TREES = _Private("leanread-trees-")


def _private(path: str) -> bool:
    """Whether ``path`` is one of leanread's decoded copies or trees of links."""
    return MIRROR.holds(path) or _TREES.holds(path)


@dataclass
class Places:
    """Where ripgrep searches the decoded copies (``where``: the copies themselves, or folders of
    a tree of links to them shaped like the workspace when a glob or type must apply to their
    names), and what each path it reports stands for (its file, its copy)."""

    where: list[str] = field(default_factory=list)
    mapped: dict[str, tuple[str, str]] = field(default_factory=dict)
    tree: str | None = None

    def adopt(self, found: Sequence[FileHits]) -> tuple[list[FileHits], list[FileHits]]:
        """``found`` split into the hits of files on disk and those of decoded copies, the latter
        under their files' paths."""
        raw: list[FileHits] = []
        decoded: list[FileHits] = []
        for hits in found:
            path = os.path.normpath(hits.path)
            place = self.mapped.get(path) if self.mapped else None
            if place is None:
                if not _private(path):
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
    found = Places()
    copies = {real: copy for real, copy in decoded.copies.items() if any(_under(real, p) for p in paths)}
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
    tree = tempfile.mkdtemp(dir=_TREES.path())
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
