"""ripgrep's searches for the ``grep`` tool: matching lines per file (``search_json``, from
``rg --json``), counts per file (``count_files``), and a file's hits parsed (``parse_hits``).
How ``rg`` is found, its command line and its run under a time limit and a size budget are
``ripgrep``'s.

Output shapes (ripgrep 14):

- ``search_json``: the ``--json`` messages, one per line; per file a ``begin``, its ``match``
  messages in line order, an ``end`` with ``stats.matched_lines`` and ``binary_offset`` (not null
  when the file holds a NUL byte).
- ``count_files``: ``--count --null``, ``path NUL matching-lines`` per file.

Binary files: ripgrep calls a file binary at its first NUL byte and, in a folder, stops searching
it there, so a text file with one stray NUL before its match would vanish from the results. So
``search_json`` passes ``--binary`` (a file with a NUL is searched on until its first match) and
judges each file ripgrep found binary as ``read`` does (``sniff.binary_kind`` on its first
bytes): an almost-text file is searched again with ``--text`` (exact lines, line numbers right),
a binary one is left out and named in the caller's ``binary`` list. ``count_files`` counts with
``--text`` and judges every counted file the same way.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .ripgrep import JSON_BUDGET, SNIFF_BYTES, STREAM_BUDGET, RgOptions, base_args, debug_args, run_rg
from .sniff import binary_kind

__all__ = ["MAX_SPANS", "FileHits", "Hit", "count_files", "parse_hits", "search_json"]


def _path_of(value: dict[str, Any]) -> str:
    """A path of ripgrep's JSON: ``{"text": …}``, or ``{"bytes": base64}`` for a name that is not UTF-8."""
    if "text" in value:
        return str(value["text"])
    return os.fsdecode(base64.b64decode(value["bytes"]))


@dataclass(frozen=True)
class FileHits:
    """The matching lines ripgrep found in one file.

    Attributes:
        path: the path as ripgrep printed it (absolute when the searched path was).
        count: matching lines.
        block: the file's raw ``match`` messages (JSON lines), or None when only counted.
        transcoded: ripgrep searched the file's text as ``read`` decodes it, written as UTF-8 to
            ``searched`` (a legacy encoding, UTF-16 without a byte-order mark); the hits' lines
            are that UTF-8.
        searched: the file ripgrep searched in place of ``path`` (when ``transcoded``).
    """

    path: str
    count: int
    block: bytes | None = None
    transcoded: bool = False
    searched: str | None = None


_BEGIN = b'{"type":"begin"'
_END = b'{"type":"end"'


class _Blocks:
    """Cuts ``--json`` output, as it arrives, into one ``FileHits`` per file. Once the blocks
    kept pass ``keep`` bytes, later files are only counted (``block`` None, from their ``end``
    message): a pattern that matches most lines costs one run, not a run cut short and a second
    one to count."""

    def __init__(self, on_file: Callable[[FileHits], None] | None, keep: int | None = None) -> None:
        self.data = bytearray()
        self.pos = 0
        self.files: list[FileHits] = []
        self.binary: list[str] = []  # files ripgrep found a NUL byte in (their hits are not kept)
        self.on_file = on_file
        self.scanned = 0  # where the search for the current file's end message goes on from
        self.left = keep  # bytes of blocks still to keep (None: no limit)

    def feed(self, chunk: bytes) -> None:
        data = self.data
        data += chunk
        # A JSON string never holds a bare '"', so these markers only start messages.
        while True:
            if self.left == 0:  # only counting now: a file's end message is all that is read
                begin = end = data.find(_END, self.pos)
            elif (begin := data.find(_BEGIN, self.pos)) >= 0:
                # go on where the last chunk's search stopped: a file with many hits arrives in
                # many chunks, and searching its block from the start each time would be quadratic
                end = data.find(_END, max(begin, self.scanned))
            else:
                break
            eol = data.find(b"\n", end) if end >= 0 else -1
            if eol < 0:  # the file's end message has not arrived yet
                self.scanned = max(begin, (end if end >= 0 else len(data)) - len(_END))
                if self.left == 0:
                    self.pos = self.scanned  # what comes before the end message is not needed
                break
            closing = json.loads(data[end:eol])["data"]
            self.pos = self.scanned = eol
            if closing.get("binary_offset") is not None:
                self.binary.append(_path_of(closing["path"]))
                continue
            self._add(closing, data, data.find(b"\n", begin) + 1, end)
        # what was cut into files is not needed again (a bytearray drops its head in place)
        del data[: self.pos]
        self.scanned -= self.pos
        self.pos = 0

    def _add(self, closing: dict[str, Any], data: bytearray, first: int, end: int) -> None:
        path, count = _path_of(closing["path"]), int(closing["stats"]["matched_lines"])
        if self.left is not None:
            if not 0 < end - first <= self.left:  # past the bytes kept: counted only from now on
                self.left = 0
                self.files.append(FileHits(path, count))
                return
            self.left -= end - first
        hits = FileHits(path, count, bytes(data[first:end]))
        self.files.append(hits)
        if self.on_file is not None:
            self.on_file(hits)


def search_json(
    pattern: str,
    paths: Sequence[str],
    options: RgOptions,
    *,
    cwd: str,
    budget: int | None = JSON_BUDGET,
    stream: int | None = STREAM_BUDGET,
    on_file: Callable[[FileHits], None] | None = None,
    binary: list[str] | None = None,
    sniff_bytes: int = SNIFF_BYTES,
    log: bytearray | None = None,
    max_count: int | None = None,
) -> list[FileHits] | None:
    """Search ``paths`` for ``pattern`` with ``rg --json``; one ``FileHits`` per file with a
    match, in ripgrep's order (files with a NUL byte that are almost text after the others).

    Args:
        budget: bytes of match messages kept; the files that finish after the kept ones passed it
            are only counted (``FileHits.block`` None). None: every file's are kept.
        stream: bytes of output read at most; past it the run is stopped.
        on_file: called with each kept file's hits as soon as ripgrep has finished the file, while
            it searches on (so a caller can prepare its result meanwhile).
        binary: gets the path of each file with a match that is left out as binary.
        sniff_bytes: leading bytes that decide whether a file with a NUL byte is text.
        log: gets the walk's ``--debug`` log (``rglog.parse_log`` reads what it left out).
        max_count: the first matching lines of each file at most (``--max-count``; a file's
            count is then theirs too).

    Returns:
        None when the output passed ``stream`` bytes: count with ``count_files`` instead.

    Raises:
        InvalidArgument: the pattern, glob or type is not valid for ripgrep.
        SearchUnavailable: ripgrep is missing or failed.
        LeanreadError: the run took longer than ``options.timeout``.
    """
    most = ["--max-count", str(max_count)] if max_count is not None else []
    args = [*base_args(options), *debug_args(log), *most, "--binary", "--json", "--regexp", pattern, "--", *paths]
    blocks = _Blocks(on_file, budget)
    if run_rg(args, options, cwd, stream, blocks.feed, log) is None:
        return None
    texts, binaries = _judge(blocks.binary, cwd, sniff_bytes)
    if binary is not None:
        binary.extend(binaries)
    if texts:
        again = _Blocks(on_file, blocks.left)
        args = [*base_args(options), *most, "--text", "--json", "--regexp", pattern, "--", *texts]
        if run_rg(args, options, cwd, stream, again.feed) is None:
            return None
        blocks.files.extend(again.files)
    return blocks.files


def _judge(paths: Sequence[str], cwd: str, sniff_bytes: int) -> tuple[list[str], list[str]]:
    """``paths`` split into (almost text, binary) by their first ``sniff_bytes``, as ``read``
    decides; a file that cannot be opened counts as binary."""
    texts: list[str] = []
    binaries: list[str] = []
    for path in paths:
        try:
            fd = os.open(os.path.join(cwd, path), os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            binaries.append(path)
            continue
        with os.fdopen(fd, "rb") as handle:
            head = handle.read(sniff_bytes)
        (texts if binary_kind(head) is None else binaries).append(path)
    return texts, binaries


_COUNT_ROW = re.compile(rb"([^\0]*)\0([0-9]+)\n")


def count_files(
    pattern: str,
    paths: Sequence[str],
    options: RgOptions,
    *,
    cwd: str,
    binary: list[str] | None = None,
    sniff_bytes: int = SNIFF_BYTES,
    log: bytearray | None = None,
) -> list[FileHits]:
    """Matching lines per file (``rg --count --text``), without their text; binary files (judged
    as ``read`` judges them) are left out and put in ``binary``; ``log`` as for ``search_json``.

    Raises:
        as ``search_json``.
    """
    # --with-filename: for one file operand ripgrep prints the count alone (no name, no NUL)
    count = ["--text", "--count", "--with-filename", "--null"]
    args = [*base_args(options), *debug_args(log), *count, "--regexp", pattern, "--", *paths]
    data = run_rg(args, options, cwd, None, log=log) or b""
    # ``path\0count\n``: a name may hold a line break, never a NUL
    files = [FileHits(os.fsdecode(name), int(count)) for name, count in _COUNT_ROW.findall(data)]
    _, binaries = _judge([f.path for f in files], cwd, sniff_bytes)
    if binary is not None:
        binary.extend(binaries)
    left_out = set(binaries)
    return [f for f in files if f.path not in left_out]


@dataclass(frozen=True)
class Hit:
    """One matching line from ripgrep.

    Attributes:
        line: 1-based line number.
        raw: the line's bytes as ripgrep saw them (UTF-16 files transcoded to UTF-8), line
            ending included.
        spans: ``(start, end)`` byte offsets of the first matches within ``raw`` (``MAX_SPANS`` at most).
        offset: byte offset of the line's start in what ripgrep searched (the file itself, unless
            ripgrep transcoded it from UTF-16 or dropped a byte-order mark).
        utf8: ``raw`` is UTF-8 whatever the file's encoding (ripgrep searched the file's decoded
            text, ``FileHits.transcoded``).
    """

    line: int
    raw: bytes
    spans: tuple[tuple[int, int], ...]
    offset: int = 0
    utf8: bool = False


def _bytes_of(value: dict[str, Any]) -> bytes:
    if "text" in value:
        return str(value["text"]).encode("utf-8", "surrogatepass")
    try:
        return base64.b64decode(value["bytes"])
    except (binascii.Error, KeyError):
        return b""


#: Submatches kept per line at most: a pattern that matches the empty string (``a*``) gives one
#: at every column of a line, and only the first ones are ever shown or needed.
MAX_SPANS = 8
#: ripgrep writes a match message's fields in one order, the submatches last (``--json`` docs).
_SUBMATCHES = b',"submatches":['
_SPAN = re.compile(rb'"start":([0-9]+),"end":([0-9]+)\}')
#: Bytes of submatches past which they are read with ``_SPAN`` rather than parsed as JSON.
_LONG_SUBMATCHES = 512


def _data_of(message: bytes) -> tuple[dict[str, Any], tuple[tuple[int, int], ...]] | None:
    """A ``match`` message's ``data`` and its first ``MAX_SPANS`` submatch spans, or None for
    another message; thousands of submatches are read without building their JSON objects."""
    cut = message.find(_SUBMATCHES)
    if cut >= 0 and len(message) - cut > _LONG_SUBMATCHES and message.startswith(b'{"type":"match"'):
        data = json.loads(message[:cut] + b"}}")["data"]
        found = itertools.islice(_SPAN.finditer(message, cut), MAX_SPANS)
        return data, tuple((int(m.group(1)), int(m.group(2))) for m in found)
    parsed = json.loads(message)
    if parsed.get("type") != "match":
        return None
    data = parsed["data"]
    subs = itertools.islice(data.get("submatches", ()), MAX_SPANS)
    return data, tuple((int(sub["start"]), int(sub["end"])) for sub in subs)


def parse_hits(block: bytes, utf8: bool = False) -> list[Hit]:
    """The ``match`` messages of one file's block (see ``FileHits.block``), in line order, each
    with at most ``MAX_SPANS`` submatch spans; ``utf8`` as ``Hit.utf8``."""
    hits: list[Hit] = []
    for line in block.splitlines():
        found = _data_of(line)
        if found is None:
            continue
        data, spans = found
        offset = int(data.get("absolute_offset", 0))
        hits.append(Hit(int(data["line_number"]), _bytes_of(data["lines"]), spans, offset, utf8))
    return hits
