"""Step 3 of ``grep``: the page of matches as rows per file, within the byte cap: the path, then
``12<TAB>text`` for a match and ``13-<TAB>text`` for context (``render.grep_text`` drops the
number of a context row right after its line's neighbour); each match's row marked (``ID_SLOT``)
until the ledger hands out its id (for the metadata)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ...files.rgsearch import FileHits, Hit, search_json
from ...files.ripgrep import RgOptions
from ...files.textfile import TextFile, shown
from ...files.workspace import Resolved
from ...ledger.knowledge import Knowledge
from ...view.frame import Own
from ...view.marks import marker_pays
from ...view.render import byte_size
from ...view.rows import LINE_CHARS, context, matched
from ..common import ToolContext, knowledge_of
from .lines import Prepared, prepare


@dataclass
class Shown:
    """What the result shows of one file."""

    resolved: Resolved
    text_file: TextFile
    rows: list[str] = field(default_factory=list)
    whole: list[int] = field(default_factory=list)  # lines shown whole: the grant
    matches: list[tuple[int, int]] = field(default_factory=list)  # (line, column) of each match shown
    groups: list[tuple[int, list[int]]] = field(default_factory=list)  # per match: (rows, lines shown whole)
    cut: bool = False  # a line of the file was shown cut
    knowledge: Knowledge | None = None  # what the model knew of the file before this call


@dataclass
class Focused:
    """A focused page: the rows to show (match ids still ``ID_SLOT``) and the files, each with
    only its kept matches and the lines of those shown whole (the grant)."""

    rows: list[str]
    files: list[Shown]


def _column(hit: Hit, text_file: TextFile, line: str) -> int:
    """0-based character index in ``line`` where the first match of ``hit`` starts."""
    start = hit.spans[0][0] if hit.spans else 0
    head = hit.raw[:start]
    if hit.utf8 or text_file.encoding.startswith(("utf-8", "utf-16", "utf-32")):
        chars = len(head.decode("utf-8", "surrogateescape"))
    else:
        chars = len(head.decode(text_file.encoding, "replace"))
    return min(chars, len(line))


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


#: Marks a match's row until the ids are handed out (the ids go to the metadata, not the text,
#: so the slot is then removed); the bytes it takes in the text.
ID_SLOT = "\x00"
ID_BYTES = 0


@dataclass(frozen=True)
class GroupRows:
    """The rows of one match's group: ``rows`` (a run of lines the model holds may be one marker
    row), the lines among them shown whole (the grant), the match's 0-based column, and whether a
    line was shown cut."""

    rows: list[str]
    whole: list[int]
    column: int
    cut: bool


def _held_marker(first: int, last: int, match: int) -> str:
    """The row that stands for lines ``first``-``last``, which the model holds as read; it names
    the match's line when the run holds it (read's wording, so ``edit`` refuses it as text)."""
    span = f"line {first}" if first == last else f"lines {first}-{last}"
    where = f"; the match is line {match}" if first <= match <= last else ""
    return f"… {span} unchanged since you read them{where} …"


def _rows(
    group: tuple[int, int, int],
    line_of: Callable[[int], str],
    hit: Hit,
    text_file: TextFile,
    held: Collection[int] = frozenset(),
) -> GroupRows:
    """The rows of one match's group; a run of lines in ``held`` (the model has them as text under
    these numbers) is one marker row where that pays (``marks.marker_pays``)."""
    first, match, last = group
    rows: list[tuple[int, str]] = []
    whole: list[int] = []
    column = 0
    cut = False
    for n in range(first, last + 1):
        line = line_of(n)
        if n == match:
            column = _column(hit, text_file, line)
            rows.append((n, f"{ID_SLOT}{n}\t{matched(line, n, column)}"))
        else:
            rows.append((n, f"{n}-\t{context(line)}"))
        if len(line) > LINE_CHARS:
            cut = True
            continue
        whole.append(n)
    if not held:
        return GroupRows([row for _, row in rows], whole, column, cut)
    return _marked(rows, whole, column, cut, set(held), match)


def _marked(
    rows: list[tuple[int, str]], whole: list[int], column: int, cut: bool, held: set[int], match: int
) -> GroupRows:
    """``rows`` (line, row) with each run of whole lines in ``held`` put as one marker row where
    the marker pays; the lines it stands for are no longer in ``whole`` (this call did not show
    them; the model's earlier read did)."""
    shown_whole = set(whole)
    out: list[str] = []
    kept: list[int] = []
    i = 0
    while i < len(rows):
        j = i
        while j < len(rows) and rows[j][0] in held and rows[j][0] in shown_whole:
            j += 1
        if j > i:
            run = rows[i:j]
            marker = _held_marker(run[0][0], run[-1][0], match)
            if marker_pays(marker, [row.replace(ID_SLOT, "") for _, row in run]):
                out.append(Own((ID_SLOT if any(n == match for n, _ in run) else "") + marker))
            else:
                out.extend(row for _, row in run)
                kept.extend(n for n, _ in run)
            i = j
            continue
        n, row = rows[i]
        out.append(row)
        if n in shown_whole:
            kept.append(n)
        i += 1
    return GroupRows(out, kept, column, cut)


@dataclass
class Page:
    """The matches of the sorted list that this call shows, per file."""

    files: list[tuple[FileHits, int, int]]  # (file, index of its first match on the page, count on the page)


def page_of(files: Sequence[FileHits], first: int, cap: int) -> Page:
    """The ``cap`` matches from the ``first`` (1-based) of the sorted ``files``."""
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
    return Page(chosen)


def render_page(
    ctx: ToolContext, page: Sequence[tuple[Prepared, int, int]], before: int, after: int, budget: int
) -> tuple[list[Shown], list[str], int, bool]:
    """The files of the page as rows within ``budget`` bytes, notes on files left out, how many
    matches of the page were used up (shown or left out), and whether the budget stopped the page
    early."""
    used = 0
    consumed = 0
    shown_files: list[Shown] = []
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
        knowledge = knowledge_of(ctx, resolved, text_file, keep_version=False)
        entry = Shown(resolved, text_file, knowledge=knowledge)
        header_bytes = len(shown(resolved.display).encode("utf-8")) + 1
        groups = _groups([h.line for h in hits], before, after, len(text_file.lines))
        held = held_as_read(knowledge)
        for group, hit in zip(groups, hits, strict=True):
            made = _rows(group, line_of, hit, text_file, held)
            size = sum(len(r.encode("utf-8")) + 1 for r in made.rows) + ID_BYTES + (0 if entry.rows else header_bytes)
            while not used and size > budget and group[0] < group[2]:  # the first match alone is too big:
                first, match, last = group  # narrow its context until it fits the cap
                group = (first + (match - first + 1) // 2, match, last - (last - match + 1) // 2)
                made = _rows(group, line_of, hit, text_file, held)
                size = sum(len(r.encode("utf-8")) + 1 for r in made.rows) + ID_BYTES + header_bytes
                capped_context = True
            if used and used + size > budget:
                if entry.matches:
                    shown_files.append(entry)
                return shown_files, _with_not_text(notes, not_text), consumed, True
            used += size
            consumed += 1
            entry.rows.extend(made.rows)
            entry.whole.extend(made.whole)
            entry.groups.append((len(made.rows), made.whole))
            entry.cut = entry.cut or made.cut
            entry.matches.append((hit.line, made.column + 1))
        if entry.matches:
            shown_files.append(entry)
    if capped_context:
        notes.append(
            f"(The context of the first match was narrowed to fit {byte_size(ctx.limits.max_bytes)}; read around it "
            "instead.)"
        )
    return shown_files, _with_not_text(notes, not_text), consumed, capped_context


def held_as_read(knowledge: Knowledge) -> frozenset[int]:
    """Line numbers of the current version the model has as text under the same numbers (a read,
    an edit or a write still visible; not grep or outline rows): the lines a marker may stand for."""
    return frozenset(n for n, line in knowledge.as_text().lines.items() if line.then == n)


def _with_not_text(notes: list[str], count: int) -> list[str]:
    if count:
        noun = "file that is" if count == 1 else "files that are"
        notes.append(f"({count} {noun} not text left out.)")
    return notes


def assemble(shown_files: Sequence[Shown], ids: Sequence[str]) -> tuple[list[str], list[dict[str, Any]]]:
    """The rows of every file with the match ids filled in, and the matches for the metadata."""
    body: list[str] = []
    matches: list[dict[str, Any]] = []
    it = iter(ids)
    for s in shown_files:
        body.append(shown(s.resolved.display))
        pending = iter(s.matches)
        for row in s.rows:
            if ID_SLOT in row:
                match_id = next(it)
                line, column = next(pending)
                matches.append({"id": match_id, "path": s.resolved.display, "line": line, "column": column})
                row = without_slot(row)
            body.append(row)
    return body, matches


def without_slot(row: str) -> str:
    """``row`` with its match's ``ID_SLOT`` taken out, still ``Own`` when it was (a marker)."""
    plain = row.replace(ID_SLOT, "", 1)
    return Own(plain) if isinstance(row, Own) else plain


def _by_need(files: Sequence[tuple[FileHits, int]]) -> dict[int, list[FileHits]]:
    """``files`` (each with the matching lines a page needs of it) in groups searched in one
    ripgrep run each, each group with the most its files need: a file never gets more than twice
    what it needs (one that needs 90 lines is not searched for another's 200,000)."""
    groups: dict[int, list[tuple[FileHits, int]]] = {}
    for hits, needed in files:
        groups.setdefault(max(needed - 1, 0).bit_length(), []).append((hits, needed))
    return {max(n for _, n in group): [hits for hits, _ in group] for group in groups.values()}


class Pager:
    """The page of ``count`` matches from the ``first`` (1-based), rendered within ``budget``
    bytes: ``pager(count, budget)`` gives what ``render_page`` gives. Files ripgrep only counted
    (``block`` None) are searched again for the lines a page shows, as far as it needs them; files
    ``ready`` (prefetched) are not loaded again."""

    def __init__(
        self,
        ctx: ToolContext,
        pattern: str,
        options: RgOptions,
        files: Sequence[FileHits],
        by_path: dict[str, FileHits],
        ready: dict[str, Prepared],
        first: int,
        before: int,
        after: int,
    ) -> None:
        self._ctx = ctx
        self._pattern = pattern
        self._options = options
        self._files = files
        self._by_path = by_path
        self._ready = ready
        self._held: dict[str, int] = {}  # counted files searched again: the hits held of each
        self.first = first
        self._before = before
        self._after = after

    def __call__(self, count: int, budget: int) -> tuple[list[Shown], list[str], int, bool]:
        ctx, by_path = self._ctx, self._by_path
        page = page_of(self._files, self.first, count)
        held = self._held
        wanted = [(f, skip + take) for f, skip, take in page.files if f.block is None]
        missing = [(f, needed) for f, needed in wanted if held.get(f.path, 0) < needed]
        for needed, files in _by_need(missing).items():  # counted only: search them again
            again = self._again(files, needed)
            by_path.update(again)
            held.update((path, needed) for path in again)
        prepared = [
            (
                self._ready.get(f.path)
                or prepare(ctx, by_path[f.path], self._before, self._after, slice(skip, skip + take)),
                skip,
                take,
            )
            for f, skip, take in page.files
        ]
        return render_page(ctx, prepared, self._before, self._after, budget)

    def _again(self, files: Sequence[FileHits], needed: int) -> dict[str, FileHits]:
        """The first ``needed`` hits with their lines of each of ``files``, which ripgrep only
        counted, by path (a file that matches on every one of its million lines gives no more than
        the page shows); a file searched decoded is searched in its decoded copy again."""
        searched = {f.searched or f.path: f for f in files}
        plain = replace(self._options, glob=None, file_type=None)
        where, primary = list(searched), self._ctx.workspace.primary
        # no byte limit: --max-count bounds the run by the page, however long its lines
        found = search_json(self._pattern, where, plain, cwd=primary, budget=None, stream=None, max_count=needed) or []
        again: dict[str, FileHits] = {}
        for hits in found:
            counted = searched.get(hits.path)
            if counted is not None:
                again[counted.path] = replace(
                    hits, path=counted.path, transcoded=counted.transcoded, searched=counted.searched
                )
        return again
