"""How a read compares a window with what the model has as text (the ledger's ``Knowledge``,
``as_text``) and picks the cheapest truthful answer: the full window, a stub, a diff, or the
window with markers. A stub or marker is used only where it pays (``marks.marker_pays``), and a
window asked for by name (``symbol=``) is never cut up by markers."""

from __future__ import annotations

from dataclasses import dataclass

from ...code.diffs import DiffLine, hunks, moved_runs, window_lines
from ...ledger.knowledge import Knowledge, KnownLine, as_known, hunks_known, ranges_of
from ...ledger.store import LineRange
from ...tokens import count_tokens
from ...view.formats import decorate
from ...view.frame import Own
from ...view.hunks import format_hunk, moved_clause
from ...view.marks import marker_pays
from ...view.render import Window, render_unchanged, unchanged_marker, unchanged_note
from .shared import Page


@dataclass
class Output:
    """One way to answer a read: the text, the lines it shows whole, and the calls it points to."""

    text: str
    shown: tuple[LineRange, ...]
    points_to: list[str]
    mode: str
    renumbered: tuple[int, ...] = ()
    tokens: int = 0
    #: tokens of the plain full window this answer stands for (set by ``answer_of``)
    full_tokens: int | None = None

    def __post_init__(self) -> None:
        self.tokens = count_tokens(self.text)


def _known_runs(window: Window, knowledge: Knowledge) -> list[tuple[int, int, KnownLine | None]]:
    """The window cut into runs ``(first, last, known)``: lines the model has under numbers moved
    by one offset (``known`` is the run's first line; the lines may come from several calls, one
    marker says it the same), or (``None``) lines it does not have. Cut lines never count as had."""
    cut = {n for n, _ in window.cut_lines}
    runs: list[tuple[int, int, KnownLine | None]] = []
    for n in range(window.first, window.last + 1):
        known = None if n in cut else knowledge.lines.get(n)
        if runs:
            a, _, head = runs[-1]
            same = (known is None and head is None) or (
                known is not None and head is not None and known.then - n == head.then - a
            )
            if same:
                runs[-1] = (a, n, head)
                continue
        runs.append((n, n, known))
    return runs


def _elided_of(page: Page) -> Output:
    """The window with each run of lines the model already has replaced by a marker, where the
    marker pays (``marker_pays``)."""
    window, knowledge, fmt = page.window, page.knowledge, page.job.fmt
    body: list[str] = []
    shown: list[int] = []
    placed: list[int] = []  # lines a marker stands for: the model now has them under these numbers
    points_to: list[str] = []
    cut = {n for n, _ in window.cut_lines}
    for a, b, known in _known_runs(window, knowledge):
        decorated = [decorate(n, window.lines[n - window.first], fmt) for n in range(a, b + 1)]
        if known is not None:
            marker = unchanged_marker(a, b, known.then)
            if marker_pays(marker, decorated):
                body.append(marker)
                points_to.extend(knowledge.lines[n].call_id for n in range(a, b + 1))
                placed.extend(range(a, b + 1))
                continue
        body.extend(decorated)
        shown.extend(n for n in range(a, b + 1) if n not in cut)
    changed = None
    if knowledge.changed_since is not None and points_to:
        changed = f"({page.display} changed since you read it; the lines marked unchanged are as you saw them.)"
    text = page.render_lines(body, note=changed)
    mode = "elided" if points_to else "full"
    return Output(text, ranges_of(shown), list(dict.fromkeys(points_to)), mode, renumbered=tuple(placed))


def _stub_of(page: Page) -> Output | None:
    """The stub when the model has every line of the window of this very version and the stub
    pays (``marker_pays``)."""
    window, knowledge = page.window, page.knowledge
    if not knowledge.unchanged or not window.lines or knowledge.missing(window.first, window.last):
        return None
    if window.cut_lines or any(knowledge.lines[n].then != n for n in range(window.first, window.last + 1)):
        return None  # a cut line, or lines the model knows by other numbers: markers say which
    if not marker_pays(unchanged_note(window), window.lines):
        return None
    calls = sorted({knowledge.lines[n].call_id for n in range(window.first, window.last + 1)}, key=_call_order)
    final_newline = page.lines.text_file.final_newline
    text = render_unchanged(page.display, window, page.job.ctx.limits, final_newline=final_newline)
    return Output(text, (), calls, "stub")


def _call_order(call_id: str) -> tuple[int, str]:
    """Sort ``r2`` before ``r10``; other ids (the harness's) by text."""
    return (int(call_id[1:]), "") if call_id[1:].isdigit() else (1 << 62, call_id)


def _implied_lines_known(
    lines: list[DiffLine], groups: list[list[DiffLine]], in_hunks: set[int], knowledge: Knowledge
) -> bool:
    """Whether every line the diff leaves out is one the model has, under the number a reader
    applying the diff would give it: lines before the first hunk keep that hunk's starting offset
    (new minus old), lines after a hunk its ending offset; old numbers as the model knows them."""
    edges: list[tuple[int, int]] = []  # (new number, new - old) at each hunk's edge context lines
    for group in groups:
        for line in (group[0], group[-1]):
            old = as_known(line, knowledge).old
            if line.tag == " " and line.new is not None and old is not None:
                edges.append((line.new, line.new - old))
    for line in lines:
        if line.tag != " " or line.new is None or line.new in in_hunks:
            continue
        known = knowledge.lines.get(line.new)
        before = [offset for new, offset in edges if new < line.new]
        offset = before[-1] if before else edges[0][1] if edges else 0
        if known is None or known.then != line.new - offset:
            return False
    return True


def _diff_of(page: Page) -> Output | None:
    """The window as a unified diff against the version the model saw, when it saw every line
    the diff leaves out or removes."""
    window, knowledge = page.window, page.knowledge
    if knowledge.opcodes is None or knowledge.seen_text is None or window.cut_lines:
        return None
    lines = window_lines(knowledge.opcodes, knowledge.seen_text, page.lines.text_file.lines, window.first, window.last)
    if lines is None or all(line.tag == " " for line in lines):
        return None
    groups = hunks(lines, context=1)
    if not hunks_known(groups, knowledge):
        return None
    in_hunks = {line.new for group in groups for line in group if line.new is not None}
    if not _implied_lines_known(lines, groups, in_hunks, knowledge):
        return None
    calls = list(
        dict.fromkeys(knowledge.seen[line.old].call_id for g in groups for line in g if line.old in knowledge.seen)
    )
    body = [row for group in groups for row in format_hunk([as_known(line, knowledge) for line in group])]
    outside = [(n, knowledge.lines[n].then) for n in range(window.first, window.last + 1) if n not in in_hunks]
    moved = moved_clause(moved_runs(outside))
    header = Own(
        f"({page.display} changed since you read it. Lines {window.first}-{window.last} as a diff against "
        f"what you were shown; lines outside the hunks are unchanged{';' + moved if moved else ''}.)"
    )
    text = page.render_lines([header, *body], shown_as="diff")
    window_numbers = tuple(range(window.first, window.last + 1))
    return Output(text, ranges_of(in_hunks), calls, "diff", renumbered=window_numbers)


def answer_of(page: Page, fresh: bool) -> Output:
    """The cheapest truthful answer: the full window, a stub, a diff, or the window with markers
    (``fresh``: the full window). A definition asked for by name (``Page.named``) is shown from its
    first line, or as a stub, a diff or markers only when the model has every line of it."""
    full = Output(page.render(), page.window.full_ranges, [], "full")
    chosen = _cheapest(page, fresh, full)
    chosen.full_tokens = full.tokens
    return chosen


def _cheapest(page: Page, fresh: bool, full: Output) -> Output:
    if fresh or page.job.fmt != "plain" or page.knowledge.seen_hash is None or not page.window.lines:
        return full  # line numbers were asked for: a stub or markers would not give them
    stub = _stub_of(page)
    if stub is not None and stub.tokens < full.tokens:
        return stub
    diff = _diff_of(page)
    if diff is not None and diff.tokens * 2 < full.tokens:
        return diff
    elided = _elided_of(page)
    window = page.window
    whole = len(elided.renumbered) == len(window.lines)  # markers only: the model has every line
    if whole and not marker_pays(unchanged_note(window), window.lines):
        return full  # they must pay as the stub they stand in for would
    if page.named and not whole:
        return full  # a definition asked for by name is not cut up by markers
    return elided if elided.tokens < full.tokens else full
