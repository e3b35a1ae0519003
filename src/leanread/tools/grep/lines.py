"""Step 2 of ``grep``: each file with hits loaded as ``read`` decodes it, and checked against
ripgrep's lines (a file that changed since, or that ripgrep splits otherwise, is left out)."""

from __future__ import annotations

import codecs
import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ...errors import LeanreadError, NotText, PathError
from ...files.names import show_path
from ...files.rgsearch import FileHits, Hit, parse_hits
from ...files.textfile import IndexedLines, TextFile, content_hash, load_text, shown
from ...files.workspace import Resolved, read_regular_file
from ...ledger.knowledge import latest_hash
from ..common import ToolContext


def _loader(
    ctx: ToolContext, resolved: Resolved, spans: Sequence[tuple[int, int]]
) -> tuple[TextFile, Callable[[int], str]]:
    """The file as ``read`` decodes it, and line ``n`` of it for the lines in ``spans`` (a file
    over ``limits.index_bytes`` is read window by window through the line index).

    Raises:
        LeanreadError: as ``load_text``; ``PathError`` when the file changed between the windows.
    """
    if resolved.size <= ctx.limits.index_bytes:
        whole = load_text(resolved, ctx.limits)
        return whole, lambda n: whole.lines[n - 1]
    held: dict[int, str] = {}
    first_file: TextFile | None = None
    for a, b in spans:
        n = a
        while n <= b:
            part = load_text(resolved, ctx.limits, n, b - n + 1)
            if first_file is None:
                first_file = part
            elif part.content_hash != first_file.content_hash and not part.growing:  # growing: appended to
                raise PathError(f"{resolved.display} changed while it was read.")
            got = 0
            while n <= b and n <= len(part.lines):
                try:
                    held[n] = part.lines[n - 1]
                except IndexError:
                    break
                n += 1
                got += 1
            if not got:
                break
    if first_file is None:
        first_file = load_text(resolved, ctx.limits, 1, 1)
    return first_file, lambda n: held[n]


class _SparseLines(IndexedLines):
    """The lines of a file of which only some are held (those a grep result shows); like
    ``IndexedLines``, reaching another raises IndexError, and ``whole_lines`` treats it as partial."""

    def __init__(self, total: int, held: dict[int, str]) -> None:
        super().__init__(total, 1, ())
        self._lines = held

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index + 1 not in self._lines:
            raise IndexError(f"line {index + 1} is not held")
        return self._lines[index + 1]


def _plain_utf8(ctx: ToolContext, resolved: Resolved, hits: Sequence[Hit], before: int, after: int) -> TextFile | None:
    """The fast way to the lines a grep result shows, for the usual file: UTF-8 without a
    byte-order mark, no CR or NUL anywhere, and either not seen by the model or seen last in
    this very version (what it knows then needs no line but the count: ``knowledge.know``).
    ``decode`` makes such a file's lines ``text.split("\\n")``; here only the lines around the hits
    are cut out of the bytes, from the line offsets ripgrep gives. None for any other file (the
    caller decodes it whole)."""
    if resolved.size > ctx.limits.index_bytes:
        return None
    data = read_regular_file(resolved)
    if data.startswith(_BOMS) or b"\r" in data or b"\x00" in data:
        return None
    digest = content_hash(data)
    if latest_hash(ctx.ledger.views_of(ctx.session_id, resolved.real)) not in (None, digest):
        return None  # changed since the model saw it: what it knows is mapped line by line
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    newlines = data.count(b"\n")
    final_newline = data.endswith(b"\n")
    total = newlines + (0 if final_newline or not data else 1)
    held: dict[int, str] = {}
    for hit in hits:
        start = hit.offset
        for n in range(hit.line, max(1, hit.line - before) - 1, -1):  # the hit, then the lines before it
            end = data.find(b"\n", start)
            held.setdefault(n, data[start : len(data) if end < 0 else end].decode("utf-8"))
            if start == 0:
                break
            start = data.rfind(b"\n", 0, start - 1) + 1
        start = hit.offset
        for n in range(hit.line + 1, min(total, hit.line + after) + 1):
            start = data.find(b"\n", start) + 1
            end = data.find(b"\n", start)
            held.setdefault(n, data[start : len(data) if end < 0 else end].decode("utf-8"))
    return TextFile(
        lines=_SparseLines(total, held),
        encoding="utf-8",
        bom=False,
        newline="\n",
        final_newline=final_newline and total > 0,
        content_hash=digest,
        size=len(data),
    )


_BOMS = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def _expected(hit: Hit, text_file: TextFile) -> str:
    """The line as ripgrep saw it, decoded as ``read`` decodes the file (line ending dropped)."""
    raw = hit.raw.removesuffix(b"\n")
    if text_file.newline == "\r\n":
        raw = raw.removesuffix(b"\r")
    if hit.utf8 or text_file.encoding.startswith(("utf-8", "utf-16", "utf-32")):  # ripgrep transcodes UTF-16
        return shown(raw.decode("utf-8", "surrogateescape"))
    return raw.decode(text_file.encoding, "replace")


def _resolved(ctx: ToolContext, path: str) -> Resolved | None:
    """The file ripgrep reported, as ``Workspace.resolve`` would give it, or None when it is no
    longer a regular file inside the workspace. ripgrep follows no links below the realpath it
    was given and skips special files, so its paths are realpaths already: one ``lstat`` does."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode) or ctx.workspace.root_of(path) is None:
        return None
    primary = ctx.workspace.primary.rstrip(os.sep) + os.sep
    inside = path.startswith(primary) and os.sep == "/"
    return Resolved(
        real=path,
        display=show_path(path[len(primary) :]) if inside else ctx.workspace.display(path),
        size=st.st_size,
        mtime_ns=st.st_mtime_ns,
        is_dir=False,
        ino=st.st_ino,
        ctime_ns=st.st_ctime_ns,
        dev=st.st_dev,
    )


@dataclass(frozen=True)
class Prepared:
    """One file with hits, loaded as ``read`` loads it and checked against ripgrep's lines; or
    why it is left out (``problem``: ``gone``, ``not text``, ``changed``, ``cr``)."""

    path: str
    hits: list[Hit]
    resolved: Resolved | None = None
    text_file: TextFile | None = None
    line_of: Callable[[int], str] | None = None
    problem: str | None = None


def prepare(ctx: ToolContext, found: FileHits, before: int, after: int, wanted: slice | None = None) -> Prepared:
    """Load the file of ``found`` and check its lines against ripgrep's (``wanted``: the hits
    needed, default all: a file over the line-index size loads only the lines around them)."""
    hits = parse_hits(found.block or b"", found.transcoded)
    resolved = _resolved(ctx, found.path)
    if resolved is None:
        return Prepared(found.path, hits, problem="gone")
    chosen = hits[wanted] if wanted is not None else hits
    text_file: TextFile | None = None
    try:
        text_file = None if found.transcoded else _plain_utf8(ctx, resolved, chosen, before, after)
        if text_file is not None:
            lines = text_file.lines
            line_of: Callable[[int], str] = lambda n: lines[n - 1]  # noqa: E731
        else:
            spans = [(max(1, h.line - before), h.line + after) for h in chosen]
            text_file, line_of = _loader(ctx, resolved, spans)
        total = len(text_file.lines)
        if len(hits) != found.count or any(
            h.line > total or _expected(h, text_file) != line_of(h.line) for h in chosen
        ):
            raise Changed(resolved.display)
    except NotText:
        return Prepared(found.path, hits, resolved, problem="not text")
    except (Changed, PathError, KeyError):
        cr = text_file is not None and text_file.newline == "\r"
        return Prepared(found.path, hits, resolved, text_file, problem="cr" if cr else "changed")
    return Prepared(found.path, hits, resolved, text_file, line_of)


class Changed(LeanreadError):
    """A file's lines no longer agree with ripgrep's hits."""
