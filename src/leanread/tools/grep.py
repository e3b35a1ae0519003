"""The ``grep`` tool: ripgrep's hits, grouped by file, capped, with ids that ``read`` opens.

Result (``<type>grep</type>``)::

    <path>src</path>
    <type>grep</type>
    <content>
    src/app.py
      m1 12: def handler(request):
      13- return None
    src/util.py
      m2 4: handler = make()

    (2 matches in 2 files.)
    </content>

ripgrep finds the matching lines (``search``); the lines shown come from the file as ``read``
decodes it (``load_text``), so they are exactly the lines a plain ``read`` shows, and every line
shown whole is recorded in the ledger as seen (``kind="grep"``), so ``edit`` works on it.
"""

from __future__ import annotations

import codecs
import os
import re
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import pruning
from ..errors import InvalidArgument, LeanreadError, NotText, PathError
from ..knowledge import ranges_of
from ..names import show_path
from ..pruning import guards
from ..render import CUT_MARKER, binary_skipped, byte_size, envelope
from ..result import ToolResult
from ..search import FileHits, Hit, RgOptions, count_files, parse_hits, search_json
from ..search_fallback import Searched, search_or_literal
from ..textfile import IndexedLines, TextFile, content_hash, shown
from ..tokens import count_tokens
from ..workspace import Resolved, read_regular_file
from .common import DenyFilter, ToolContext, audit_focus, knowledge_of, load_text, record_view

NAME = "grep"

#: Matches shown per call when ``max_results`` is not given.
MAX_RESULTS = 100
#: With a focus question and no ``max_results``, matches judged at once when they pass one page
#: (the pruned page must still fit ``max_bytes``, else the first page is pruned on its own).
FOCUS_MATCHES = 2000
#: Characters of a line shown whole; a longer matching line shows a window around the match,
#: a longer context line its start, cut with ``CUT_MARKER``.
LINE_CHARS = 400
#: Characters of the window of a long matching line, of which ``WINDOW_LEAD`` come before the match.
WINDOW_CHARS = 240
WINDOW_LEAD = 80
#: Lines shown around a match by ``read(match_id=…)`` when no ``context_before``/``context_after`` is given.
READ_CONTEXT = 20

#: The constants ``grep.txt`` quotes (see ``tools.description``).
FACTS: dict[str, object] = {
    "max_results": MAX_RESULTS,
    "line_chars": LINE_CHARS,
    "read_context": READ_CONTEXT,
}

#: Model-facing description of each parameter (MCP input schema, CLI help).
PARAMETERS: dict[str, str] = {
    "pattern": "Regular expression (ripgrep/Rust syntax) to search for; escape ( [ { . * + ? | with a backslash "
    "to match them literally.",
    "path": "File or folder to search: relative to the workspace root, or absolute inside it. Default: the root.",
    "glob": "Search only files whose path (from the workspace root) matches this glob, e.g. *.py, src/**/*.ts, "
    "!*.min.js.",
    "type": "Search only files of this ripgrep type, e.g. py, js, ts, rust, go, java, md.",
    "case_insensitive": "true: ignore case.",
    "context": "Lines to show before and after each match. Default: 0.",
    "before": "Lines to show before each match (overrides context).",
    "after": "Lines to show after each match (overrides context).",
    "max_results": f"Matches to show at most. Default: {MAX_RESULTS}.",
    "offset": "1-based number of the first match to show, to page on (0 is taken as 1). Default: 1.",
    "files_only": "true: list only the files that match, with their match counts (no lines); offset and "
    "max_results then count files.",
    "focus": 'A complete, self-contained question the matches should answer, e.g. "Where is the retry delay '
    'of failed uploads computed?": a long result keeps only the matches most relevant to it, and says how many '
    "it omitted in which files.",
}


#: The ``read`` parameters that open a match (the read tool's module lists its own parameters).
@dataclass(frozen=True)
class GrepRequest:
    """The parameters of one ``grep`` call (see ``PARAMETERS``); ``type`` is ``file_type`` here."""

    pattern: str
    path: str | None = None
    glob: str | None = None
    file_type: str | None = None
    case_insensitive: bool = False
    context: int | None = None
    before: int | None = None
    after: int | None = None
    max_results: int | None = None
    offset: int | None = None
    files_only: bool = False
    focus: str | None = None


def _check(request: GrepRequest) -> tuple[int, int, int, int]:
    """``(before, after, max_results, first)`` of a valid request.

    Raises:
        InvalidArgument: an empty pattern or a count out of range.
    """
    if not request.pattern:
        raise InvalidArgument("pattern is empty; pass the text or regular expression to search for.")
    if "\x00" in request.pattern:
        raise InvalidArgument("pattern contains a NUL character; ripgrep cannot search for it.")
    for name in ("context", "before", "after"):
        value = getattr(request, name)
        if value is not None and value < 0:
            raise InvalidArgument(f"{name} must be 0 or more (got {value}); it counts lines around each match.")
    if request.max_results is not None and request.max_results < 1:
        raise InvalidArgument(f"max_results must be 1 or more (got {request.max_results}).")
    if request.offset is not None and request.offset < 0:
        raise InvalidArgument(f"offset must be 1 or more (got {request.offset}); use offset=1 for the first match.")
    both = request.context or 0
    before = both if request.before is None else request.before
    after = both if request.after is None else request.after
    return before, after, request.max_results or MAX_RESULTS, max(request.offset or 1, 1)


def _plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}" + ("" if count == 1 else "es" if noun.endswith("ch") else "s")


# --- what to show of one file ----------------------------------------------------------------


@dataclass
class _Shown:
    """What the result shows of one file."""

    resolved: Resolved
    text_file: TextFile
    rows: list[str] = field(default_factory=list)
    whole: list[int] = field(default_factory=list)  # lines shown whole: the grant
    matches: list[tuple[int, int]] = field(default_factory=list)  # (line, column) of each match shown
    groups: list[tuple[int, list[int]]] = field(default_factory=list)  # per match: (rows, lines shown whole)
    cut: bool = False  # a line of the file was shown cut


def _loader(
    ctx: ToolContext, resolved: Resolved, spans: Sequence[tuple[int, int]]
) -> tuple[TextFile, Callable[[int], str]]:
    """The file as ``read`` decodes it, and line ``n`` of it for the lines in ``spans`` (a file
    over ``limits.index_bytes`` is read window by window through the line index).

    Raises:
        LeanreadError: as ``load_text``; ``PathError`` when the file changed between the windows.
    """
    if resolved.size <= ctx.limits.index_bytes:
        whole = load_text(ctx, resolved)
        return whole, lambda n: whole.lines[n - 1]
    held: dict[int, str] = {}
    first_file: TextFile | None = None
    for a, b in spans:
        n = a
        while n <= b:
            part = load_text(ctx, resolved, n, b - n + 1)
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
        first_file = load_text(ctx, resolved, 1, 1)
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
    byte-order mark, no CR or NUL anywhere, not yet seen by the model. ``decode``
    makes such a file's lines ``text.split("\\n")``; here only the lines around the hits are cut out
    of the bytes, from the line offsets ripgrep gives. None for any other file (the caller
    decodes it whole)."""
    if resolved.size > ctx.limits.index_bytes or ctx.ledger.views_of(ctx.session_id, resolved.real):
        return None
    data = read_regular_file(resolved)
    if data.startswith(_BOMS) or b"\r" in data or b"\x00" in data:
        return None
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
        content_hash=content_hash(data),
        size=len(data),
    )


_BOMS = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def _expected(hit: Hit, text_file: TextFile) -> str:
    """The line as ripgrep saw it, decoded as ``read`` decodes the file (line ending dropped)."""
    raw = hit.raw.removesuffix(b"\n")
    if text_file.newline == "\r\n":
        raw = raw.removesuffix(b"\r")
    if text_file.encoding.startswith(("utf-8", "utf-16", "utf-32")):  # ripgrep transcodes UTF-16 to UTF-8
        return shown(raw.decode("utf-8", "surrogateescape"))
    return raw.decode(text_file.encoding, "replace")


def _column(hit: Hit, text_file: TextFile, line: str) -> int:
    """0-based character index in ``line`` where the first match of ``hit`` starts."""
    start = hit.spans[0][0] if hit.spans else 0
    head = hit.raw[:start]
    if text_file.encoding.startswith(("utf-8", "utf-16", "utf-32")):
        chars = len(head.decode("utf-8", "surrogateescape"))
    else:
        chars = len(head.decode(text_file.encoding, "replace"))
    return min(chars, len(line))


def _window(line: str, number: int, column: int) -> str:
    """A long matching line as a window around the match, with where it is and how to read on."""
    start = max(0, column - WINDOW_LEAD)
    end = min(len(line), start + WINDOW_CHARS)
    start = max(0, end - WINDOW_CHARS)
    text = ("…" if start else "") + line[start:end] + ("…" if end < len(line) else "")
    return (
        f"{text} [line cut: match at column {column + 1:,} of {len(line):,} chars; "
        f"read on with offset={number}, char_offset={start + 1}]"
    )


def _groups(lines: Sequence[int], before: int, after: int, total: int) -> list[tuple[int, int, int]]:
    """``(first, match, last)`` line ranges per match: its context, without lines an earlier
    group shows, and stopping before the next match (whose own group shows what follows)."""
    groups: list[tuple[int, int, int]] = []
    end = 0
    for i, n in enumerate(lines):
        first = max(n - before, end + 1, 1)
        stop = lines[i + 1] - 1 if i + 1 < len(lines) else total
        last = min(n + after, stop, total)
        groups.append((first, n, last))
        end = last
    return groups


#: Stands for a match id until the ids are handed out: the bytes it may take.
_ID_SLOT = "\x00"
_ID_BYTES = 8


def _rows(
    group: tuple[int, int, int], line_of: Callable[[int], str], hit: Hit, text_file: TextFile
) -> tuple[list[str], list[int], int]:
    """The rows of one match's group, the lines among them shown whole, and the match's column."""
    first, match, last = group
    rows: list[str] = []
    whole: list[int] = []
    column = 0
    for n in range(first, last + 1):
        line = line_of(n)
        if n == match:
            column = _column(hit, text_file, line)
            if len(line) > LINE_CHARS:
                rows.append(f"  {_ID_SLOT} {n}: {_window(line, n, column)}")
                continue
            rows.append(f"  {_ID_SLOT} {n}: {line}" if line else f"  {_ID_SLOT} {n}:")
        elif len(line) > LINE_CHARS:
            rows.append(f"  {n}- {line[:LINE_CHARS]}{CUT_MARKER.format(length=len(line))}")
            continue
        else:
            rows.append(f"  {n}- {line}" if line else f"  {n}-")
        whole.append(n)
    return rows, whole, column


# --- the search ------------------------------------------------------------------------------


@dataclass
class _Page:
    """The matches of the sorted list that this call shows, per file."""

    files: list[tuple[FileHits, int, int]]  # (file, index of its first match on the page, count on the page)


def _page(files: Sequence[FileHits], first: int, cap: int) -> _Page:
    chosen: list[tuple[FileHits, int, int]] = []
    skip = first - 1
    room = cap
    for f in files:
        if room <= 0:
            break
        if skip >= f.count:
            skip -= f.count
            continue
        take = min(f.count - skip, room)
        chosen.append((f, skip, take))
        room -= take
        skip = 0
    return _Page(chosen)


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
class _Prepared:
    """One file with hits, loaded as ``read`` loads it and checked against ripgrep's lines; or
    why it is left out (``problem``: ``gone``, ``not text``, ``changed``, ``cr``)."""

    path: str
    hits: list[Hit]
    resolved: Resolved | None = None
    text_file: TextFile | None = None
    line_of: Callable[[int], str] | None = None
    problem: str | None = None


def _prepare(ctx: ToolContext, found: FileHits, before: int, after: int, wanted: slice | None = None) -> _Prepared:
    """Load the file of ``found`` and check its lines against ripgrep's (``wanted``: the hits
    needed, default all: a file over the line-index size loads only the lines around them)."""
    hits = parse_hits(found.block or b"")
    resolved = _resolved(ctx, found.path)
    if resolved is None:
        return _Prepared(found.path, hits, problem="gone")
    chosen = hits[wanted] if wanted is not None else hits
    text_file: TextFile | None = None
    try:
        text_file = _plain_utf8(ctx, resolved, chosen, before, after)
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
            raise _Changed(resolved.display)
    except NotText:
        return _Prepared(found.path, hits, resolved, problem="not text")
    except (_Changed, PathError, KeyError):
        cr = text_file is not None and text_file.newline == "\r"
        return _Prepared(found.path, hits, resolved, text_file, problem="cr" if cr else "changed")
    return _Prepared(found.path, hits, resolved, text_file, line_of)


class _Prefetch:
    """Prepares files while ripgrep still searches, as long as every match found so far would
    be on the page (so the work is rarely thrown away); ``run`` takes the prepared files from
    ``ready`` and prepares the rest of its page itself."""

    def __init__(self, ctx: ToolContext, before: int, after: int, room: int) -> None:
        self._ctx = ctx
        self._before = before
        self._after = after
        self._room = room
        self._denied = DenyFilter(ctx)
        self.ready: dict[str, _Prepared] = {}

    def __call__(self, found: FileHits) -> None:
        if self._room < found.count or self._denied(found.path):
            self._room = 0
            return
        self._room -= found.count
        self.ready[found.path] = _prepare(self._ctx, found, self._before, self._after)


def _search(
    pattern: str, target: Resolved, options: RgOptions, ctx: ToolContext, prefetch: _Prefetch
) -> tuple[list[FileHits], dict[str, FileHits], Searched[list[FileHits]], str | None]:
    """Every file with a match, sorted by path, deny-listed files dropped; the hits of each by
    path (without their lines, ``block`` None, when the search passed its budget and only
    counted); how it was searched (as literal text after ``search_or_literal``'s fallback); and
    the note naming binary files with a match that were left out."""
    cwd = target.real if target.is_dir else os.path.dirname(target.real)
    binary: list[str] = []
    sniff = ctx.limits.sniff_bytes

    def once(how: RgOptions) -> list[FileHits]:
        binary.clear()
        found = search_json(pattern, [target.real], how, cwd=cwd, on_file=prefetch, binary=binary, sniff_bytes=sniff)
        if found is None:
            prefetch.ready.clear()
            binary.clear()
            found = count_files(pattern, [target.real], how, cwd=cwd, binary=binary, sniff_bytes=sniff)
        return found

    searched = search_or_literal(pattern, options, once, len)
    denied = DenyFilter(ctx)
    files = sorted((f for f in searched.found if not denied(f.path)), key=lambda f: f.path)
    skipped = sorted(shown(ctx.workspace.display(os.path.join(cwd, p))) for p in binary if not denied(p))
    return files, {f.path: f for f in files}, searched, binary_skipped(skipped)


def _glob_under(glob: str, folder: str) -> str:
    """``glob`` as ripgrep applies it under ``folder``: results show paths from the workspace
    root, so a glob written from there (``src/app/*.py`` with ``path="src"``) drops the folder."""
    negated, pattern = ("!", glob[1:]) if glob.startswith("!") else ("", glob)
    pattern = pattern.removeprefix("./")
    prefix = folder.rstrip("/") + "/"
    if folder not in (".", "") and pattern.startswith(prefix):
        pattern = pattern[len(prefix) :]
    return negated + pattern


def run(ctx: ToolContext, request: GrepRequest, call_id: str) -> ToolResult:
    """Execute one ``grep``; the lines it shows whole are recorded in the ledger under ``call_id``
    and its matches under new match ids.

    Raises:
        LeanreadError: a bad argument (pattern, glob, type, counts), a path outside the
            workspace or denied, ripgrep missing, failing or taking longer than its timeout.
    """
    before, after, cap, first = _check(request)
    target = ctx.workspace.resolve(request.path or ".")
    options = RgOptions(
        case_insensitive=request.case_insensitive,
        glob=_glob_under(request.glob, target.display) if request.glob else None,
        file_type=request.file_type or None,
        policy=ctx.policy,
    )
    prefetch = _Prefetch(ctx, before, after, 0 if request.files_only else first - 1 + cap)
    files, by_path, searched, skipped = _search(request.pattern, target, options, ctx, prefetch)
    options, literal = searched.options, [searched.note] if searched.note else []
    skipped_note = [skipped] if skipped else []
    total = sum(f.count for f in files)
    if request.files_only:
        return _files_only(ctx, call_id, target.display, files, total, first, cap, [*literal, *skipped_note])
    if total and first > total:
        raise InvalidArgument(
            f"offset={first} is past the last match: there are {_plural(total, 'match')}; "
            f"use an offset from 1 to {total}."
        )

    def render(count: int, budget: int) -> tuple[list[_Shown], list[str], int, bool]:
        """The page of ``count`` matches from ``first`` rendered within ``budget`` bytes."""
        page = _page(files, first, count)
        missing = [f.path for f, _, _ in page.files if f.block is None]
        if missing:  # counted only: search the page's files again for their lines
            again = search_json(request.pattern, missing, options, cwd=ctx.workspace.primary, budget=None) or []
            by_path.update({f.path: f for f in again if f.path in by_path})
        prepared = [
            (
                prefetch.ready.get(f.path) or _prepare(ctx, by_path[f.path], before, after, slice(skip, skip + take)),
                skip,
                take,
            )
            for f, skip, take in page.files
        ]
        return _render_page(ctx, prepared, before, after, budget)

    shown_files, notes, consumed, capped = render(cap, ctx.limits.max_bytes)
    last = first + consumed - 1
    truncated = "bytes" if capped else "limit" if last < total else None
    summary = _summary(target.display, total, len(files), first, last, capped, ctx)
    focus: dict[str, Any] | None = None
    focused: _Focused | None = None
    unpruned: str | None = None
    if request.focus is not None and request.max_results is None and truncated is not None:
        # the question may find its matches past this page: judge up to FOCUS_MATCHES at once
        wide_files, wide_notes, wide_consumed, wide_capped = render(FOCUS_MATCHES, guards.MAX_CHARS)
        wide_last = first + wide_consumed - 1
        wide_summary = _summary(target.display, total, len(files), first, wide_last, False, ctx)
        wide_cut = "bytes" if wide_capped else None
        focused, focus, unpruned = _focus(
            ctx, wide_files, request.focus, first, target.display, wide_notes, wide_summary, wide_cut
        )
        page_text = _page_text(shown_files, target.display, notes, summary)
        if focused is not None and focus is not None:
            wide_text = envelope(shown(target.display), "grep", [*focused.rows, "", *wide_notes, wide_summary])
            wide_bytes = len(wide_text.encode()) + (_ID_BYTES - 1) * wide_text.count(_ID_SLOT)
            # shown only when it fits the cap and costs no more than the first page without focus
            if wide_bytes <= min(ctx.limits.max_bytes, len(page_text.encode())):
                notes, last, summary = wide_notes, wide_last, wide_summary
                truncated = "limit" if last < total else None
                focus.update(tokens_before=count_tokens(page_text), matches_judged=wide_consumed)
            else:
                focused = None
    if request.focus is not None and focused is None:
        focused, focus, unpruned = _focus(
            ctx, shown_files, request.focus, first, target.display, notes, summary, truncated
        )
    if focused is not None:
        shown_files = focused.files
    ids = ctx.ledger.put_matches(
        ctx.session_id, [(s.resolved.real, line) for s in shown_files for line, _ in s.matches]
    )
    body, matches = _assemble(shown_files, ids) if focused is None else _fill(focused, ids)
    for s in shown_files:
        knowledge = knowledge_of(ctx, s.resolved, s.text_file, keep_version=False)
        record_view(ctx, call_id, s.resolved, s.text_file, ranges_of(s.whole), kind="grep", knowledge=knowledge)
    lines = [*body, ""] if body else []
    text = envelope(shown(target.display), "grep", [*lines, *literal, *notes, *skipped_note, summary])
    if focus is not None and focused is not None:
        focus["tokens_after"] = count_tokens(text)
    if focus is not None:
        audit_focus(ctx, "grep", target.display, focus, unpruned or text, text, pruned=focused is not None)
    metadata: dict[str, Any] = {
        "call_id": call_id,
        "path": target.display,
        "type": "grep",
        "total_matches": total,
        "total_files": len(files),
        "offset": first,
        "last_match": last if total else None,
        "next_offset": last + 1 if last < total else None,
        "truncated": truncated,
        "matches": matches,
        "literal": options.fixed_strings,
        "tokens": count_tokens(text),
    }
    if focus is not None:
        metadata["focus"] = focus
    return ToolResult(text, metadata=metadata)


def _files_only(
    ctx: ToolContext,
    call_id: str,
    where: str,
    files: Sequence[Any],
    total: int,
    first: int,
    cap: int,
    notes: Sequence[str] = (),
) -> ToolResult:
    """The files that match, ``path (N matches)`` one per line, paged over files, ``notes`` before the summary."""
    if total and first > len(files):
        raise InvalidArgument(
            f"offset={first} is past the last file: {_plural(len(files), 'file')} match; "
            f"use an offset from 1 to {len(files)}."
        )
    page = files[first - 1 : first - 1 + cap]
    rows = [f"{shown(ctx.workspace.display(f.path))} ({_plural(f.count, 'match')})" for f in page]
    last = first + len(page) - 1
    if not total:
        place = "the workspace" if where == "." else shown(where)
        summary = f"(No matches in {place}; gitignored, binary and deny-listed files are not searched.)"
    elif last < len(files):
        summary = (
            f"(Showing files {first:,}-{last:,} of {len(files):,}, {_plural(total, 'match')} in all. "
            f"Use offset={last + 1} to continue.)"
        )
    else:
        summary = f"({_plural(total, 'match')} in {_plural(len(files), 'file')}.)"
    text = envelope(shown(where), "grep", [*rows, *([""] if rows else []), *notes, summary])
    metadata: dict[str, Any] = {
        "call_id": call_id,
        "path": where,
        "type": "grep",
        "files_only": True,
        "total_matches": total,
        "total_files": len(files),
        "offset": first,
        "next_offset": last + 1 if last < len(files) else None,
        "tokens": count_tokens(text),
    }
    return ToolResult(text, metadata=metadata)


def _render_page(
    ctx: ToolContext, page: Sequence[tuple[_Prepared, int, int]], before: int, after: int, budget: int
) -> tuple[list[_Shown], list[str], int, bool]:
    """The files of the page as rows within ``budget`` bytes, notes on files left out, how many
    matches of the page were used up (shown or left out), and whether the budget stopped the page
    early."""
    used = 0
    consumed = 0
    shown_files: list[_Shown] = []
    notes: list[str] = []
    not_text = 0
    capped_context = False
    for ready, skip, take in page:
        if ready.problem is not None or ready.resolved is None or ready.text_file is None or ready.line_of is None:
            consumed += take
            where = shown(ready.resolved.display) if ready.resolved is not None else None
            if ready.problem == "not text":
                not_text += 1
            elif ready.problem == "cr":
                notes.append(
                    f"({where} has CR line endings, which ripgrep does not split on; it was left out: read it.)"
                )
            elif where is not None:
                notes.append(f"({where} changed during the search and was left out; search again.)")
            continue
        resolved, text_file, line_of = ready.resolved, ready.text_file, ready.line_of
        hits = ready.hits[skip : skip + take]
        entry = _Shown(resolved, text_file)
        header_bytes = len(shown(resolved.display).encode("utf-8")) + 1
        groups = _groups([h.line for h in hits], before, after, len(text_file.lines))
        for group, hit in zip(groups, hits, strict=True):
            rows, whole, column = _rows(group, line_of, hit, text_file)
            size = sum(len(r.encode("utf-8")) + 1 for r in rows) + _ID_BYTES + (0 if entry.rows else header_bytes)
            while not used and size > budget and group[0] < group[2]:  # the first match alone is too big:
                first, match, last = group  # narrow its context until it fits the cap
                group = (first + (match - first + 1) // 2, match, last - (last - match + 1) // 2)
                rows, whole, column = _rows(group, line_of, hit, text_file)
                size = sum(len(r.encode("utf-8")) + 1 for r in rows) + _ID_BYTES + header_bytes
                capped_context = True
            if used and used + size > budget:
                if entry.matches:
                    shown_files.append(entry)
                return shown_files, _with_not_text(notes, not_text), consumed, True
            used += size
            consumed += 1
            entry.rows.extend(rows)
            entry.whole.extend(whole)
            entry.groups.append((len(rows), whole))
            entry.cut = entry.cut or len(whole) < len(rows)
            entry.matches.append((hit.line, column + 1))
        if entry.matches:
            shown_files.append(entry)
    if capped_context:
        notes.append(
            f"(The context of the first match was narrowed to fit {byte_size(budget)}; read around it instead.)"
        )
    return shown_files, _with_not_text(notes, not_text), consumed, capped_context


class _Changed(LeanreadError):
    """A file's lines no longer agree with ripgrep's hits."""


def _with_not_text(notes: list[str], count: int) -> list[str]:
    if count:
        noun = "file that is" if count == 1 else "files that are"
        notes.append(f"({count} {noun} not text left out.)")
    return notes


def _assemble(shown_files: Sequence[_Shown], ids: Sequence[str]) -> tuple[list[str], list[dict[str, Any]]]:
    """The rows of every file with the match ids filled in, and the matches for the metadata."""
    body: list[str] = []
    matches: list[dict[str, Any]] = []
    it = iter(ids)
    for s in shown_files:
        body.append(shown(s.resolved.display))
        pending = iter(s.matches)
        for row in s.rows:
            if _ID_SLOT in row:
                match_id = next(it)
                line, column = next(pending)
                matches.append({"id": match_id, "path": s.resolved.display, "line": line, "column": column})
                row = row.replace(_ID_SLOT, match_id, 1)
            body.append(row)
    return body, matches


def _summary(where: str, total: int, file_count: int, first: int, last: int, capped: bool, ctx: ToolContext) -> str:
    if not total:
        place = "the workspace" if where == "." else shown(where)
        return f"(No matches in {place}; gitignored, binary and deny-listed files are not searched.)"
    files = _plural(file_count, "file")
    if first == 1 and last == total:
        return f"({_plural(total, 'match')} in {files}.)"
    showing = f"Showing matches {first:,}-{last:,} of {total:,} in {files}."
    if capped:
        showing = f"Output capped at {byte_size(ctx.limits.max_bytes)}. {showing}"
    if last < total:
        showing += f" Use offset={last + 1} to continue, or narrow the search with path, glob or type."
    return f"({showing})"


# --- focus -----------------------------------------------------------------------------------

_PREFIX = re.compile(r"^  (?:\x00 )?[0-9]+[:-] ?")


@dataclass
class _Focused:
    """A focused page: the rows to show (match ids still ``_ID_SLOT``) and the files, each with
    only its kept matches and the lines of those shown whole (the grant)."""

    rows: list[str]
    files: list[_Shown]


def _focus(
    ctx: ToolContext,
    shown_files: Sequence[_Shown],
    question: str,
    first: int,
    where: str,
    notes: Sequence[str],
    summary: str,
    truncated: str | None,
) -> tuple[_Focused | None, dict[str, Any], str | None]:
    """The page pruned to the matches most relevant to ``question`` by ``ctx.pruner`` (None: shown
    whole), the ``focus`` metadata (``kept_matches``/``total_matches`` and tokens, or why it was
    ``skipped``/``fail_open``) and, when pruned, the unfocused output (its match ids numbered
    from ``m1`` within the page, since omitted matches get no id). The guards are those of
    ``pruning.guards``, measured on the unfocused output."""
    backend = pruning.backend_name(ctx.pruner)
    info: dict[str, Any] = {"question": question, "backend": backend}
    try:
        full = _page_text(shown_files, where, notes, summary)
        lines = full.split("\n")
        chars = len(full)
        if not question.strip():
            info["skipped"] = "empty question"
        elif truncated == "bytes" or any(s.cut for s in shown_files):  # a page of max_results is whole
            info["skipped"] = "output already cut"
        elif len(lines) < guards.MIN_LINES:
            info["skipped"] = f"under {guards.MIN_LINES} lines"
        elif chars < guards.MIN_CHARS:
            info["skipped"] = f"under {guards.MIN_CHARS:,} characters"
        elif chars > guards.MAX_CHARS:
            info["skipped"] = f"over {guards.MAX_CHARS:,} characters"
        if "skipped" in info:
            return None, info, None
        blocks: list[str] = []
        heads: list[str] = []
        for s in shown_files:
            at = 0
            for size, _whole in s.groups:
                rows = s.rows[at : at + size]
                at += size
                blocks.append("\n".join(_PREFIX.sub("", r) for r in rows))
                heads.append(next(_PREFIX.sub("", r) for r in rows if _ID_SLOT in r))
        kept = set(_keep_blocks(ctx.pruner, blocks, heads, question))
        if not kept:
            info["skipped"] = "no match answers the question"
            return None, info, None
        if len(kept) > guards.MAX_KEPT_SHARE * len(blocks):
            info["skipped"] = f"over {guards.MAX_KEPT_SHARE:.0%} of the matches kept"
            return None, info, None
        focused = _focused_rows(shown_files, kept, first)
        focused.rows.insert(
            0,
            f"[focus: kept {len(kept)} of {len(blocks)} matches for {pruning.quoted_question(question)}; "
            "omitted matches can be shown by grep without focus or with offset]",
        )
    except Exception as exc:  # fail open: any error gives the whole page
        return None, {"question": question, "backend": backend, "fail_open": f"{type(exc).__name__}: {exc}"}, None
    info.update(kept_matches=len(kept), total_matches=len(blocks), tokens_before=count_tokens(full))
    return focused, info, full


def _page_text(shown_files: Sequence[_Shown], where: str, notes: Sequence[str], summary: str) -> str:
    """The page as grep shows it without focus, its match ids numbered from ``m1``."""
    count = sum(len(s.matches) for s in shown_files)
    body, _ = _assemble(shown_files, [f"m{i + 1}" for i in range(count)])
    return envelope(shown(where), "grep", [*body, "", *notes, summary] if body else [*notes, summary])


def _keep_blocks(pruner: pruning.Pruner, blocks: Sequence[str], heads: Sequence[str], question: str) -> list[int]:
    """The blocks to keep: block-level BM25 for the default local pruner (matches are short
    documents of their own), the pruner's kept lines for any other backend."""
    if type(pruner) is pruning.LocalPruner and pruner.expand:
        return pruning.keep_blocks(blocks, heads, question)
    return pruning.keep_blocks_by(pruner, blocks, heads, question)


def _focused_rows(shown_files: Sequence[_Shown], kept: set[int], first: int) -> _Focused:
    """The rows of the kept matches (``kept``: indices in page order), the file path before a
    file's first kept match, and one marker per run of omitted matches."""
    rows: list[str] = []
    files: list[_Shown] = []
    omitted: dict[str, int] = {}
    run_start = 0
    index = 0

    def flush() -> None:
        if omitted:
            n = sum(omitted.values())
            where = ", ".join(f"{path}: {count}" for path, count in omitted.items())
            rows.append(
                f"  … {_plural(n, 'match')} omitted ({where}); "
                f"grep without focus or with offset={run_start} shows {'it' if n == 1 else 'them'} …"
            )
            omitted.clear()

    for s in shown_files:
        entry: _Shown | None = None
        at = 0
        for (size, whole), match in zip(s.groups, s.matches, strict=True):
            group_rows = s.rows[at : at + size]
            at += size
            if index in kept:
                flush()
                if entry is None:
                    entry = _Shown(s.resolved, s.text_file)
                    files.append(entry)
                    rows.append(shown(s.resolved.display))
                rows.extend(group_rows)
                entry.rows.extend(group_rows)
                entry.whole.extend(whole)
                entry.matches.append(match)
                entry.groups.append((size, whole))
            else:
                if not omitted:
                    run_start = first + index
                display = shown(s.resolved.display)
                omitted[display] = omitted.get(display, 0) + 1
            index += 1
    flush()
    return _Focused(rows, files)


def _fill(focused: _Focused, ids: Sequence[str]) -> tuple[list[str], list[dict[str, Any]]]:
    """The focused rows with the match ids filled in, and the kept matches for the metadata."""
    body: list[str] = []
    matches: list[dict[str, Any]] = []
    it = iter(ids)
    pending = iter((s, line, column) for s in focused.files for line, column in s.matches)
    for row in focused.rows:
        if _ID_SLOT in row:
            match_id = next(it)
            s, line, column = next(pending)
            matches.append({"id": match_id, "path": s.resolved.display, "line": line, "column": column})
            row = row.replace(_ID_SLOT, match_id, 1)
        body.append(row)
    return body, matches
