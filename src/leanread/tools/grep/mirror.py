"""Files judged as ``read`` judges them, once per version, and the decoded copy of each that
ripgrep cannot search as it is on disk.

ripgrep searches bytes as UTF-8 and transcodes only UTF-16 with a byte-order mark. A file in a
legacy encoding (GBK, Shift-JIS, windows-1252, …) holds its text in other bytes, so a pattern with
non-ASCII text never matches it and a multi-byte encoding's second bytes can match ASCII by
accident; UTF-16 without a byte-order mark has NUL bytes between the letters. ``read`` decodes all
of them (``textfile.decode``). Each such file is judged as ``read`` judges it (its first bytes,
then ``decode``), once per version (path, size, mtime, ctime, inode; a version changed too
recently to be told from a later change is judged again, ``fileversion.told_apart``); one that needs decoding is
written, decoded, as UTF-8 to a private folder: its lines exactly as ``read`` shows them, each
ended by LF. A file over ``Limits.index_bytes`` is not decoded whole (``Decoded.too_big``).
"""

from __future__ import annotations

import atexit
import codecs
import contextlib
import hashlib
import os
import shutil
import stat
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from ...errors import LeanreadError
from ...files.fileversion import told_apart
from ...files.safeopen import open_plain
from ...files.sniff import binary_kind, text_encoding
from ...files.textfile import TextFile, decode
from ..common import ToolContext

__all__ = ["KEPT", "MIRROR", "TREES", "Decoded", "Mirror", "judge", "needs_decoding", "private", "under"]

#: File versions whose verdict (and decoded copy) are kept, least recently used dropped first.
KEPT = 65536


def needs_decoding(text_file: TextFile) -> bool:
    """Whether ripgrep, searching the file's bytes, would not search the text ``read`` shows:
    any encoding but UTF-8 (with or without its byte-order mark) and UTF-16 with one."""
    return _needs_decoding(text_file.encoding, text_file.bom)


def _needs_decoding(codec: str, bom: bool) -> bool:
    if codec == "utf-8":
        return False
    return not (bom and codec in ("utf-16-le", "utf-16-be"))


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
        return self._path is not None and under(path, self._path)


class Mirror:
    """The verdict on each file version judged, and the decoded copy (UTF-8, in a private folder)
    of each that needs one; shared by every session of the process, safe from several threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._folder = _Private("leanread-decoded-")
        self._kept: OrderedDict[tuple[object, ...], tuple[str | None, bool]] = OrderedDict()

    def holds(self, path: str) -> bool:
        """Whether ``path`` is in the folder of the copies."""
        return self._folder.holds(path)

    def lookup(self, key: tuple[object, ...]) -> tuple[bool, str | None]:
        """``(known, copy)``: whether this version was judged (and trusted), and its copy (None:
        needs none)."""
        with self._lock:
            copy, trusted = self._kept.get(key, (None, False))
            if not trusted:
                return False, None
            self._kept.move_to_end(key)
            return True, copy

    def keep(self, key: tuple[object, ...], text_file: TextFile | None, trusted: bool = True) -> str | None:
        """Remember the verdict on this version, writing the decoded copy of ``text_file`` (its
        lines as ``read`` shows them, each ended by LF) when it needs one; returns the copy's path.
        ``trusted`` False: the version may not tell a later change (``fileversion.told_apart``), so
        ``lookup`` does not give it (its copy is kept, to be written over or dropped in turn)."""
        copy = None
        if text_file is not None and needs_decoding(text_file):
            name = hashlib.sha256(repr(key).encode("utf-8", "surrogatepass")).hexdigest()
            copy = os.path.join(self._folder.path(), name)
            text = "".join(line + "\n" for line in text_file.lines)
            part = f"{copy}.{threading.get_ident()}"  # renamed over: a search reading it sees it whole
            with open(part, "wb") as handle:
                handle.write(text.encode("utf-8", "surrogatepass"))
            os.replace(part, copy)
        with self._lock:
            self._kept[key] = (copy, trusted)
            self._kept.move_to_end(key)
            while len(self._kept) > KEPT:
                _, (dropped, _) = self._kept.popitem(last=False)
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


def judge(
    ctx: ToolContext, path: str, decoded: Decoded, head_first: bool, denied: Callable[[str], bool] | None = None
) -> bool:
    """Judge one file as ``read`` would decode it, adding it to ``decoded`` when it needs decoding;
    ``head_first``: look at its first bytes before reading it whole (a file with a NUL byte,
    which is mostly binary); ``denied``: a file it refuses is not opened (checked only before a
    version is first judged: a denied file's hits are dropped with the search's anyway).

    Returns:
        True when the file needs no decoding (or is gone); False when it does, is too big to
        decode whole, or was not judged (denied).
    """
    since = time.time_ns()
    try:
        st = os.lstat(path)
    except OSError:
        return True
    if not stat.S_ISREG(st.st_mode):
        return True
    known, copy = MIRROR.lookup(_key(path, st))
    if not known:
        if denied is not None and denied(path):
            return False
        trusted = told_apart(st, since)
        if st.st_size > ctx.limits.index_bytes:
            _first_judgement(ctx, path, st, trusted, decoded, head_first)
            return False
        copy = _first_judgement(ctx, path, st, trusted, decoded, head_first)
    if copy is not None:
        decoded.copies[path] = copy
        return False
    return True


def _key(path: str, st: os.stat_result) -> tuple[object, ...]:
    """A version of the file at ``path``: its path, size, mtime, ctime, inode and device."""
    return (path, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


def _first_judgement(
    ctx: ToolContext, path: str, st: os.stat_result, trusted: bool, decoded: Decoded, head_first: bool
) -> str | None:
    """Judge the version ``st`` of the file (``trusted``: as ``Mirror.keep`` takes it); opened
    non-blocking, never through a link, so a FIFO swapped in since the stat does not block."""
    key = _key(path, st)
    fd = open_plain(path)
    if fd is None:
        return None
    try:
        with os.fdopen(fd, "rb") as handle:
            head = handle.read(ctx.limits.sniff_bytes)
            if head_first and not head.startswith(_BOMS) and binary_kind(head) is not None:
                return MIRROR.keep(key, None, trusted)  # as decode: a byte-order mark decides before the sniff
            if st.st_size > ctx.limits.index_bytes:
                _too_big(ctx, path, head, st.st_size, decoded)
                return None
            data = head + handle.read()
    except OSError:
        return None
    try:
        text_file: TextFile | None = decode(data, path, ctx.limits.sniff_bytes)
    except LeanreadError:
        text_file = None
    return MIRROR.keep(key, text_file, trusted)


def _too_big(ctx: ToolContext, path: str, head: bytes, size: int, decoded: Decoded) -> None:
    """A file over ``index_bytes``: named in ``too_big`` when its first bytes decode as a text
    that needs decoding, in the encoding ``read`` gives the file (judged from the complete lines
    of its head; no verdict is kept: only the head was judged), once however often it is judged."""
    if any(named == path for named, _, _ in decoded.too_big):
        return
    try:
        found = text_encoding(head, path, ctx.limits.sniff_bytes, size)
        codec, bom = found.codec, found.bom > 0
    except LeanreadError:  # not text to read, or UTF-16/32, which it cannot split by line
        try:
            text_file = decode(head, path, ctx.limits.sniff_bytes)
        except LeanreadError:
            return
        if not text_file.encoding.startswith("utf-"):
            return
        codec, bom = text_file.encoding, text_file.bom
    if _needs_decoding(codec, bom):
        decoded.too_big.append((path, codec, size))


def under(path: str, folder: str) -> bool:
    """Whether the absolute ``path`` is ``folder`` or lies below it."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


#: Where trees of links to the copies are made (``decoded.places``).
TREES = _Private("leanread-trees-")


def private(path: str) -> bool:
    """Whether ``path`` is one of leanread's decoded copies or trees of links."""
    return MIRROR.holds(path) or TREES.holds(path)
