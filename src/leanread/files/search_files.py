"""ripgrep runs that name files rather than lines: the files a walk finds (``ls``), whether a
glob or type selects any (``grep``'s answer when nothing matched), the files that are not UTF-8
(``grep``'s census of files to search decoded), and a file type's globs. Options, the deny list
and failures are as for ``search``."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace

from .ripgrep import RgOptions, base_args, debug_args, find_rg, run_rg

__all__ = ["has_files", "list_files", "not_utf8_files", "type_globs"]


def list_files(path: str, options: RgOptions, *, cwd: str, log: bytearray | None = None) -> list[str]:
    """Files below ``path`` as ``rg --files`` finds them (ignore rules, the deny list and
    ``options.skip`` applied), as ripgrep prints them, unsorted; ``log`` as for ``search_json``.

    Raises:
        InvalidArgument: the glob is not valid.
        SearchUnavailable, LeanreadError: as ``search_json``.
    """
    args = [*base_args(options), *debug_args(log), "--files", "--null", "--", path]
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


def not_utf8_files(paths: Sequence[str], options: RgOptions, *, cwd: str, log: bytearray) -> list[str]:
    """The files below ``paths`` (walked as a search with ``options`` walks them) that are not
    UTF-8: ripgrep decodes each as UTF-8 (``-E utf-8``, UTF-16 with a byte-order mark still
    transcoded) and lists those where it had to put U+FFFD for bytes that are not UTF-8 (a file
    holding U+FFFD itself is listed too). A file with a NUL byte is not listed: ripgrep stops at
    the NUL and logs it in ``log`` (``rglog.parse_log`` gives them as ``nul_files``).

    Raises:
        SearchUnavailable, LeanreadError: as ``search_json``.
    """
    plain = replace(options, case_insensitive=False, fixed_strings=False)
    args = [*base_args(plain), "--debug", "--encoding", "utf-8", "--files-with-matches", "--null"]
    data = run_rg([*args, "--regexp", r"\x{FFFD}", "--", *paths], plain, cwd, None, log=log) or b""
    return [os.fsdecode(name) for name in data.split(b"\0") if name]
