"""Find line *k* of a big file without reading it from the start.

One streaming pass over the bytes counts the line feeds and keeps a sparse index of
checkpoints: for every ``stride`` bytes of the file, the byte offset of the first line that
starts at or after that point, with its 1-based line number. A window is then served by
seeking to the last checkpoint at or before its first line and scanning forward less than
``stride`` bytes plus the window itself, so memory stays O(window) plus the index
(16 bytes per checkpoint: about 256 KiB for a 1 GiB file at the default 64 KiB stride).

Lines are split on ``b"\\n"`` only; a CRLF line keeps its ``b"\\r"`` and the caller strips it.
This is exact for UTF-8 and for ASCII-compatible legacy encodings (Latin-1, cp1252, GBK,
Shift-JIS, ...), whose multibyte trail bytes are never 0x0A. It is wrong for UTF-16/UTF-32
(a 0x0A byte may be half of a character) and for files that end lines with a lone CR (they
count as one line here); ``cr_count``/``crlf_count``/``lf_count`` let the caller tell. A
UTF-8 byte-order mark stays in the bytes of line 1; the caller strips it.

The checkpoints are spaced in bytes, not in lines, so the scan before a window is bounded in
bytes whatever the line lengths: a file of 1 MiB minified lines costs no more than a log.

Files are opened with ``O_NONBLOCK`` and checked with ``fstat`` so a FIFO or device swapped in
after the caller's ``stat`` can never hang a call. Reads use ``pread`` (no shared file
position), so one ``LineIndex`` may serve many threads.
"""

from __future__ import annotations

import bisect
import hashlib
import os
from array import array
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor

from ..errors import InvalidArgument, PathError
from .fileversion import Source, StaleIndex, open_indexed, source_name, stale_message, version_of

#: Bytes read per ``pread`` while building the index.
CHUNK_BYTES = 1 << 20
#: Default distance in bytes between checkpoints.
DEFAULT_STRIDE = 64 * 1024
#: Bytes read per ``pread`` while serving a window.
_WINDOW_READ = 64 * 1024


class _BackgroundHash:
    """SHA-256 fed chunk by chunk on a worker thread, at most two chunks behind the reader."""

    def __init__(self) -> None:
        self._digest = hashlib.sha256()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="leanread-hash")
        self._pending: deque[Future[None]] = deque()

    def update(self, chunk: bytes | memoryview) -> None:
        if len(self._pending) >= 2:
            self._pending.popleft().result()
        self._pending.append(self._pool.submit(self._digest.update, chunk))

    def hexdigest(self) -> str:
        while self._pending:
            self._pending.popleft().result()
        return self._digest.hexdigest()

    def __enter__(self) -> _BackgroundHash:
        return self

    def __exit__(self, *exc: object) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def _pread(fd: int, length: int, offset: int, name: str) -> bytes:
    try:
        return os.pread(fd, length, offset)
    except OSError as exc:
        raise PathError(f"Cannot read {name}: {exc.strerror}.") from None


class LineIndex:
    """Line count and sparse line-start offsets of one version of a file.

    Build it with ``LineIndex.build``; the constructor takes already computed fields.

    Attributes:
        size: bytes indexed (the file's size at build time).
        mtime_ns: the file's modification time at build time, in nanoseconds.
        ino: the file's inode number at build time.
        ctime_ns: the file's inode change time at build time, in nanoseconds.
        total_lines: lines in the file: the count of ``b"\\n"``, plus one for a last line without
            a trailing newline; 0 for an empty file; a file ending in ``b"\\n"`` has no extra
            empty line.
        final_newline: the file is not empty and its last byte is ``b"\\n"``.
        lf_count: ``b"\\n"`` bytes in the file.
        cr_count: ``b"\\r"`` bytes in the file.
        crlf_count: ``b"\\r\\n"`` pairs in the file (a file is CRLF when this equals ``lf_count``).
        stride: requested distance in bytes between checkpoints.
        content_hash: SHA-256 hex digest of the bytes, computed in the same pass (on a second
            thread: hashlib releases the GIL on big buffers, so hashing overlaps the counting).
        growing: the file grew (same inode, more bytes) while it was indexed: the index holds
            its first ``size`` bytes, cut after the last complete line when there is one, and
            ``read_lines`` serves them while the file only grows.
    """

    __slots__ = (
        "_lines",
        "_offsets",
        "content_hash",
        "cr_count",
        "crlf_count",
        "ctime_ns",
        "final_newline",
        "growing",
        "ino",
        "lf_count",
        "mtime_ns",
        "size",
        "stride",
        "total_lines",
    )

    def __init__(
        self,
        *,
        size: int,
        mtime_ns: int,
        total_lines: int,
        final_newline: bool,
        lf_count: int,
        cr_count: int,
        crlf_count: int,
        stride: int,
        lines: array[int],
        offsets: array[int],
        content_hash: str = "",
        ino: int = 0,
        ctime_ns: int = 0,
        growing: bool = False,
    ) -> None:
        self.growing = growing
        self.content_hash = content_hash
        self.size = size
        self.mtime_ns = mtime_ns
        self.ino = ino
        self.ctime_ns = ctime_ns
        self.total_lines = total_lines
        self.final_newline = final_newline
        self.lf_count = lf_count
        self.cr_count = cr_count
        self.crlf_count = crlf_count
        self.stride = stride
        self._lines = lines
        self._offsets = offsets

    def __repr__(self) -> str:
        return (
            f"LineIndex(size={self.size}, mtime_ns={self.mtime_ns}, total_lines={self.total_lines}, "
            f"final_newline={self.final_newline}, checkpoints={len(self._offsets)})"
        )

    @property
    def version(self) -> tuple[int, int, int, int]:
        """``(size, mtime_ns, ino, ctime_ns)`` of the indexed version of the file."""
        return self.size, self.mtime_ns, self.ino, self.ctime_ns

    @property
    def checkpoints(self) -> int:
        """Number of checkpoints held (each 16 bytes)."""
        return len(self._offsets)

    @classmethod
    def build(cls, source: Source, stride: int = DEFAULT_STRIDE, *, name: str | None = None) -> LineIndex:
        """Index a file in one streaming pass of ``CHUNK_BYTES`` reads.

        The pass covers the bytes the file has when it starts. A file that grows meanwhile (same
        inode, more bytes: a log being written) gives an index of that snapshot, ``growing`` set,
        cut after its last complete line (unless it holds none, or the part after it passes
        ``CHUNK_BYTES``).

        Args:
            source: a path (opened non-blocking, closed after) or an open file descriptor
                (left open; read with ``pread``, its position is untouched).
            stride: distance in bytes between checkpoints, 1 or more. Smaller means a shorter
                scan before a window and a bigger index.
            name: the file's name in messages (default: the path, or "file descriptor N").

        Raises:
            InvalidArgument: ``stride`` < 1.
            NotAFile: not a regular file.
            PathError: cannot be opened or read.
            StaleIndex: the file shrank, was replaced or rewritten while it was being indexed.
        """
        if stride < 1:
            raise InvalidArgument(f"stride must be 1 byte or more (got {stride}).")
        shown = name or source_name(source)
        with open_indexed(source, shown) as (fd, st), _BackgroundHash() as hasher:
            size = st.st_size
            lines = array("q", [1])
            offsets = array("q", [0])
            lf = cr = crlf = 0
            prev_cr = False
            last_byte = b""
            tail: list[bytes] = []  # the bytes after the last LF so far, not hashed yet
            tail_bytes = 0
            mid_line = False  # the hashed bytes end inside a line (a long one, hashed early)
            next_mark = stride  # the next checkpoint is the first line start >= next_mark
            pos = 0
            while pos < size:
                chunk = _pread(fd, min(CHUNK_BYTES, size - pos), pos, shown)
                if not chunk:
                    raise StaleIndex(f"{shown} shrank while it was being indexed; read it again.")
                n = len(chunk)
                counted = 0
                while True:
                    rel = next_mark - 1 - pos
                    if rel >= n:
                        break
                    j = chunk.find(b"\n", max(rel, 0))
                    if j < 0:
                        break
                    lf += chunk.count(b"\n", counted, j + 1)
                    counted = j + 1
                    start = pos + j + 1
                    if start < size:
                        lines.append(lf + 1)
                        offsets.append(start)
                    next_mark = (start // stride + 1) * stride
                lf += chunk.count(b"\n", counted)
                if prev_cr and chunk[:1] == b"\n":
                    crlf += 1
                if chunk.find(b"\r") >= 0:
                    cr += chunk.count(b"\r")
                    crlf += chunk.count(b"\r\n")
                prev_cr = chunk[-1:] == b"\r"
                last_byte = chunk[-1:]
                pos += n
                cut = chunk.rfind(b"\n") + 1
                if cut or tail_bytes + n > CHUNK_BYTES:
                    mid_line = not cut  # a part past CHUNK_BYTES without a LF is hashed: no cut then
                    cut = cut or n
                    for part in tail:
                        hasher.update(part)
                    hasher.update(memoryview(chunk)[:cut])
                    tail, tail_bytes = [], 0
                if cut < n:
                    tail.append(chunk[cut:])
                    tail_bytes += n - cut
            now = os.fstat(fd)
            growing = version_of(now) != version_of(st)
            if growing and (now.st_ino != st.st_ino or now.st_size <= size):
                raise StaleIndex(f"{shown} changed while it was being indexed; read it again.")
            if growing and tail and lf and not mid_line:  # serve complete lines only: the writer may be mid-line
                size -= tail_bytes
                cr -= sum(part.count(b"\r") for part in tail)
                last_byte = b"\n"
                while offsets[-1] >= size:
                    offsets.pop()
                    lines.pop()
            else:
                for part in tail:
                    hasher.update(part)
            content_hash = hasher.hexdigest()
        final_newline = last_byte == b"\n"
        total = lf + (1 if size and not final_newline else 0)
        return cls(
            size=size,
            mtime_ns=st.st_mtime_ns,
            total_lines=total,
            final_newline=final_newline,
            lf_count=lf,
            cr_count=cr,
            crlf_count=crlf,
            stride=stride,
            lines=lines,
            offsets=offsets,
            content_hash=content_hash,
            ino=st.st_ino,
            ctime_ns=st.st_ctime_ns,
            growing=growing,
        )

    def line_offset(self, source: Source, line: int, *, name: str | None = None) -> int:
        """Byte offset where 1-based ``line`` starts; ``size`` for ``total_lines + 1``.

        Raises:
            InvalidArgument: ``line`` outside ``1 .. total_lines + 1``.
            NotAFile, PathError, StaleIndex: as for ``read_lines``.
        """
        if not 1 <= line <= self.total_lines + 1:
            raise InvalidArgument(f"line must be in 1..{self.total_lines + 1} (got {line}).")
        if line == self.total_lines + 1:
            return self.size
        shown = name or source_name(source)
        with open_indexed(source, shown) as (fd, st):
            self._check_fresh(shown, st, grown_ok=self.growing)
            return self._seek_line(fd, line, shown)

    def read_lines(
        self, source: Source, first: int, count: int, *, name: str | None = None, grown_ok: bool = False
    ) -> list[bytes]:
        """Up to ``count`` raw lines starting at 1-based line ``first``.

        Each line comes without its trailing ``b"\\n"``; a ``b"\\r"`` before it is kept. Fewer
        lines come back at the end of the file, none when ``first > total_lines``. Bytes read:
        less than ``stride`` before the window (whatever the line lengths), then the window
        itself, in 64 KiB ``pread`` calls.

        Args:
            source: the same file as indexed: a path or an open file descriptor (left open).
            first: 1-based line number, 1 or more.
            count: lines wanted, 0 or more.
            name: the file's name in messages (default: the path, or "file descriptor N").
            grown_ok: serve the indexed bytes of a file that has only grown since (same inode,
                more bytes), as a ``growing`` index always does.

        Raises:
            InvalidArgument: ``first`` < 1 or ``count`` < 0.
            NotAFile: not a regular file.
            PathError: cannot be opened or read.
            StaleIndex: the file's size, mtime, inode or ctime differs from the indexed version
                (beyond growing, where that is allowed).
        """
        if first < 1:
            raise InvalidArgument(f"first must be a 1-based line number (got {first}).")
        if count < 0:
            raise InvalidArgument(f"count must be 0 or more (got {count}).")
        count = min(count, self.total_lines - first + 1)
        if count <= 0:
            return []
        shown = name or source_name(source)
        with open_indexed(source, shown) as (fd, st):
            self._check_fresh(shown, st, grown_ok=grown_ok or self.growing)
            pos = self._seek_line(fd, first, shown)
            parts: list[bytes] = []
            seen = 0
            while seen < count and pos < self.size:
                part = _pread(fd, min(_WINDOW_READ, self.size - pos), pos, shown)
                if not part:
                    raise StaleIndex(f"{shown} shrank while it was being read; read it again.")
                parts.append(part)
                seen += part.count(b"\n")
                pos += len(part)
        return b"".join(parts).split(b"\n", count)[:count]

    def _check_fresh(self, name: str, st: os.stat_result, *, grown_ok: bool) -> None:
        now = version_of(st)
        if now == self.version or (grown_ok and st.st_ino == self.ino and st.st_size >= self.size):
            return
        raise StaleIndex(stale_message(name, "it was indexed", self.version, now))

    def _seek_line(self, fd: int, line: int, name: str) -> int:
        """Byte offset of 1-based ``line`` (``1 <= line <= total_lines``)."""
        i = bisect.bisect_right(self._lines, line) - 1
        skip = line - self._lines[i]
        pos = self._offsets[i]
        while skip:
            part = _pread(fd, min(_WINDOW_READ, self.size - pos), pos, name)
            if not part:
                raise StaleIndex(f"{name} shrank while it was being read; read it again.")
            found = part.count(b"\n")
            if found < skip:
                skip -= found
                pos += len(part)
                continue
            return pos + _nth_newline(part, skip) + 1
        return pos


def _nth_newline(buf: bytes, k: int) -> int:
    """Index in ``buf`` of its ``k``-th (1-based) ``b"\\n"``, which must exist.

    Halves the range with ``bytes.count`` while many newlines remain, then steps with ``find``:
    about twice ``len(buf)`` bytes scanned at worst, never one Python step per line.
    """
    lo, hi, before = 0, len(buf), 0  # the k-th newline lies in buf[lo:hi]; `before` precede lo
    while k - before > 32 and hi - lo > 64:
        mid = (lo + hi) // 2
        c = buf.count(b"\n", lo, mid)
        if before + c >= k:
            hi = mid
        else:
            before += c
            lo = mid
    j = lo - 1
    for _ in range(k - before):
        j = buf.find(b"\n", j + 1)
    return j
