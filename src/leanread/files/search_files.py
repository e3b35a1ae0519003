"""ripgrep runs that name files rather than lines: the files a walk finds (``ls``, ``walk``),
whether a glob or type selects any (``grep``'s answer when nothing matched) and a file type's
globs; and what in a file's bytes keeps ripgrep from searching it as UTF-8 (``utf8_flaw``,
``grep``'s census of the files to search decoded). Options, the deny list and failures are as
for ``search``."""

from __future__ import annotations

import codecs
import os
from collections.abc import Sequence
from typing import Literal

from .ripgrep import RgOptions, base_args, debug_args, find_rg, run_rg
from .safeopen import open_plain

__all__ = ["FLAW_CHUNK", "has_files", "list_files", "type_globs", "utf8_flaw"]


def list_files(
    path: str, options: RgOptions, *, cwd: str, log: bytearray | None = None, depth: int | None = None
) -> list[str]:
    """Files below ``path`` as ``rg --files`` finds them (ignore rules, the deny list and
    ``options.skip`` applied), as ripgrep prints them, unsorted; ``log`` as for ``search_json``;
    ``depth``: only this many levels below ``path`` (1: the files directly in it).

    Raises:
        InvalidArgument: the glob is not valid.
        SearchUnavailable, LeanreadError: as ``search_json``.
    """
    deeper = [] if depth is None else ["--max-depth", str(depth)]
    args = [*base_args(options), *debug_args(log), "--files", "--null", *deeper, "--", path]
    data = run_rg(args, options, cwd, None, log=log) or b""
    return [os.fsdecode(name) for name in data.split(b"\0") if name]


def has_files(paths: Sequence[str], options: RgOptions, *, cwd: str) -> bool:
    """Whether ripgrep's walk of ``paths`` with ``options`` (its glob and type too) finds any file;
    the walk stops at the first.

    Raises:
        as ``list_files``.
    """
    args = [*base_args(options), "--files", "--null", "--", *paths]
    return run_rg(args, options, cwd, 0) is None


def type_globs(file_type: str, options: RgOptions) -> tuple[str, ...]:
    """The globs of ripgrep's file type ``file_type`` (``rust`` → ``*.rs``), from ``rg --type-list``
    (asked once per process); empty for a type ripgrep does not know."""
    if not _TYPES:
        rg = find_rg()
        data = run_rg([rg, "--no-config", "--type-list"], options, os.path.dirname(rg), None) or b""
        for line in data.decode("utf-8", "replace").splitlines():
            name, _, globs = line.partition(": ")
            _TYPES[name] = tuple(g.strip() for g in globs.split(","))
    return _TYPES.get(file_type, ())


_TYPES: dict[str, tuple[str, ...]] = {}


def utf8_flaw(path: str) -> Literal["nul", "not-utf-8"] | None:
    """What keeps ripgrep from searching the regular file at ``path`` as the UTF-8 text ``read``
    shows, read in chunks of ``FLAW_CHUNK`` bytes up to the first chunk with one: a NUL byte in it
    (``"nul"``; ripgrep, finding one in a buffer, stops: mostly a binary file, or UTF-16), else
    bytes that are not UTF-8 (``"not-utf-8"``: a legacy encoding); None when no chunk has either
    (or it is no regular file, or cannot be read). Opened non-blocking and never through a link,
    so a FIFO swapped in does not block.
    """
    fd = open_plain(path)
    if fd is None:
        return None
    try:
        return _flaw(fd)
    except OSError:
        return None
    finally:
        os.close(fd)


#: Bytes read at a time by ``utf8_flaw``.
FLAW_CHUNK = 1 << 18


def _flaw(fd: int) -> Literal["nul", "not-utf-8"] | None:
    decoder = codecs.getincrementaldecoder("utf-8")()
    while True:
        chunk = os.read(fd, FLAW_CHUNK)
        if b"\0" in chunk:
            return "nul"
        try:  # ASCII with no sequence begun before it is UTF-8: most code, checked without decoding
            if not chunk.isascii() or decoder.getstate()[0] or not chunk:
                decoder.decode(chunk, final=not chunk)
        except UnicodeDecodeError:
            return "not-utf-8"
        if not chunk:
            return None
