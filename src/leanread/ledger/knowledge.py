"""What the model knows of a file's current version, worked out from the ledger's view records.

Pure functions: records and texts in, facts out. Line numbers are 1-based.

The model's view of a file is the version it saw last (the hash of its newest visible record)
and the lines of that version it still has: the ranges of the visible records of that version
that came after any visible record of another version. When the file has changed since, the
lines it saw are mapped onto the current version through a line diff (``difflib``), so lines
that did not change stay known under their new numbers.

Grep rows and outline rows (records of kind ``INDEX_KINDS``) are lines the model has seen, so an
edit may change them, but not lines it has as the file's text: a read never replaces them with
a marker or a stub (``Knowledge.as_text``). They are shown one by one, out of their context and
with holes (an outline leaves out bodies and blank lines), so a marker for them would ask the
model to splice a read's window out of an index. An outline's head is the file's text, every
line in order: the same call records it as a ``read`` too, and it counts as text until the file
changes (what is carried from the call stays index rows).

Knowledge that outlives a change is written back as *carry* records: a record of the new
version owned by the call that first showed the lines, so forgetting that call forgets them.
"""

from __future__ import annotations

import difflib
import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple, cast

from ..code.diffs import DiffLine, Opcode
from .store import CARRY, LineRange, ViewRecord

#: Record kinds whose lines are index rows (``grep`` matches and context, ``outline`` rows): seen,
#: but not held as the file's text (``Knowledge.as_text``).
INDEX_KINDS = frozenset({"grep", "outline"})
#: Records of a call that showed index rows that are not its own text records.
_NOT_TEXT = INDEX_KINDS | {CARRY}


class KnownLine(NamedTuple):
    """A line of the current version the model has: from ``call_id``, where it was line ``then``.
    (A named tuple: a whole read of a big file makes one per line.)"""

    call_id: str
    then: int


@dataclass(frozen=True)
class Knowledge:
    """The model's view of one file against its current version.

    Attributes:
        lines: current line number → where the model has it from.
        seen_hash: content hash of the version the model saw last, or None if it saw none.
        changed_since: the newest visible call, when the version it showed is not the current
            one (the file changed since); None when unchanged or never seen.
        seen: line numbers of the seen version the model has, each with its call id and the
            number the model knows it by.
        opcodes: ``difflib`` opcodes from the seen version to the current one, when changed and
            both texts were available; else None.
        seen_text: the seen version's lines, when changed and available.
    """

    lines: dict[int, KnownLine]
    seen_hash: str | None
    changed_since: str | None
    seen: dict[int, KnownLine]
    opcodes: list[Opcode] | None = None
    seen_text: Sequence[str] | None = None
    #: This knowledge without the lines the model has only as index rows (``INDEX_KINDS``);
    #: None when it has none such.
    text_only: Knowledge | None = None

    def as_text(self) -> Knowledge:
        """The lines the model has as the file's text (a read window, an edit, a write): what a
        read's stub, diff or markers may stand for. Lines it has only as grep or outline rows are
        left out (still in ``lines``: an edit may change them)."""
        return self.text_only or self

    @property
    def unchanged(self) -> bool:
        """The model saw this very version last."""
        return self.seen_hash is not None and self.changed_since is None

    def missing(self, first: int, last: int) -> list[int]:
        """Line numbers in ``first..last`` the model does not have."""
        return [n for n in range(first, last + 1) if n not in self.lines]

    def without(self, line: int | None) -> Knowledge:
        """This knowledge with current line ``line`` taken as not held, so a read shows it (the
        matched line of a ``match_id`` read); itself when ``line`` is None or not held."""
        if line is None or line not in self.lines:
            return self
        text_only = self.text_only.without(line) if self.text_only is not None else None
        return replace(self, lines={n: known for n, known in self.lines.items() if n != line}, text_only=text_only)


def ranges_of(numbers: Iterable[int]) -> tuple[LineRange, ...]:
    """Sorted line numbers folded into inclusive ranges: ``[1, 2, 3, 7]`` → ``((1, 3), (7, 7))``."""
    out: list[LineRange] = []
    for n in sorted(set(numbers)):
        if out and out[-1][1] == n - 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return tuple(out)


def _latest_group(records: Sequence[ViewRecord], total: int | None) -> list[ViewRecord]:
    """Visible records of the newest visible version, newest first, up to the first visible
    record of another version, or up to a text record of all ``total`` lines of it (the
    version's line count, when known): nothing older can change what the model has of it. So a
    file read whole a thousand times costs one record, not a thousand, on every call.
    ``records`` are oldest first (``LedgerStore.views_of``)."""
    group: list[ViewRecord] = []
    for rec in reversed(records):
        if not rec.visible:
            continue
        if group and rec.content_hash != group[0].content_hash:
            break
        group.append(rec)
        if total is not None and _whole_text(rec, total):
            break
    return group


def _whole_text(rec: ViewRecord, total: int) -> bool:
    """Whether ``rec`` shows every line ``1..total`` as text under its own numbers."""
    return (
        rec.kind not in _NOT_TEXT
        and len(rec.ranges) == 1
        and rec.ranges[0][0] <= 1
        and rec.ranges[0][1] >= total
        and _plain(rec)
    )


def _newest_visible(records: Sequence[ViewRecord]) -> ViewRecord | None:
    """The newest visible record (``records`` oldest first), or None."""
    return next((rec for rec in reversed(records) if rec.visible), None)


def latest_hash(records: Sequence[ViewRecord]) -> str | None:
    """Content hash of the version the model saw last (its newest visible record), or None."""
    newest = _newest_visible(records)
    return newest.content_hash if newest is not None else None


def line_opcodes(old: Sequence[str], new: Sequence[str]) -> list[Opcode]:
    """``difflib.SequenceMatcher`` opcodes between two line lists (0-based, half-open)."""
    return [
        (str(tag), i1, i2, j1, j2)
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    ]


def map_lines(opcodes: Sequence[Opcode]) -> dict[int, int]:
    """Old line number → new line number for every line in an ``equal`` block (1-based)."""
    mapping: dict[int, int] = {}
    for tag, i1, i2, j1, _ in opcodes:
        if tag == "equal":
            for k in range(i2 - i1):
                mapping[i1 + k + 1] = j1 + k + 1
    return mapping


def _plain(rec: ViewRecord) -> bool:
    """Whether ``rec``'s ranges are ascending, apart and under their own numbers (no origins)."""
    ranges = rec.ranges
    return (
        not rec.origins
        and all(b1 < a2 for (_, b1), (a2, _) in itertools.pairwise(ranges))
        and all(a <= b for a, b in ranges)
    )


def fold_seen(group: Sequence[ViewRecord], total: int | None = None) -> dict[int, KnownLine]:
    """The lines of one version the model has, from that version's visible records ``group``
    (newest first): the newest call wins each line and each number the model knows a line by
    (a line whose number a newer call gave to another line is lost). ``total`` (the version's
    line count, when known) lets the fold stop once every line is decided, so a session that
    read a file many times costs one pass over its lines, not one per read; an older record of
    the very ranges of a newer one is skipped (it can decide nothing).

    Returns:
        line number → where the model has it from.
    """
    decided: dict[int, KnownLine | None] = {}
    owner: dict[int, int] = {}  # number the model knows a line by → the line a newer call gave it
    own: tuple[LineRange, ...] = ()  # the newest record's ranges: each number in them owned by its own line
    inside = 0  # lines of 1..total decided
    lost = False  # whether a line was decided as lost (None)
    done: set[tuple[tuple[LineRange, ...], tuple[int, ...]]] = set()
    for rec in group:
        if (rec.ranges, rec.origins) in done:
            continue  # an older record showing the same lines as a newer one decides nothing
        done.add((rec.ranges, rec.origins))
        if not decided and _plain(rec):  # the newest record: every line of it is the model's as numbered
            own = rec.ranges
            for a, b in rec.ranges:
                numbers = range(a, b + 1)
                # tuple.__new__ makes the named tuples in C: a whole read of a big file makes one a line
                pairs = zip(itertools.repeat(rec.call_id), numbers)
                decided.update(zip(numbers, map(tuple.__new__, itertools.repeat(KnownLine), pairs), strict=True))
                inside += total is not None and max(0, min(b, total) - max(a, 1) + 1)
            if total is not None and inside >= total:
                break
            continue
        starts = rec.origins or tuple(a for a, _ in rec.ranges)
        for (a, b), origin in zip(reversed(rec.ranges), reversed(starts), strict=True):
            shift = origin - a
            for n in range(b, a - 1, -1):
                then = n + shift
                holder = then if any(x <= then <= y for x, y in own) else owner.setdefault(then, n)
                if n not in decided:
                    decided[n] = KnownLine(rec.call_id, then) if holder == n else None
                    lost = lost or holder != n
                    inside += total is not None and 1 <= n <= total
        if total is not None and inside >= total:
            break
    if not lost:
        return cast("dict[int, KnownLine]", decided)
    return {n: known for n, known in decided.items() if known is not None}


def know(
    records: Sequence[ViewRecord],
    current_hash: str,
    current_lines: Sequence[str] | None,
    get_version: Callable[[str], str | None],
) -> Knowledge:
    """The model's ``Knowledge`` of the version ``current_hash`` whose lines are ``current_lines``
    (None when the file is too big to hold whole: then a changed file counts as unseen), with
    its ``as_text`` part when some of the lines come from index rows."""
    newest = _newest_visible(records)
    if newest is None:
        return Knowledge({}, None, None, {})
    seen_hash = newest.content_hash
    old_lines: list[str] | None = None
    if seen_hash != current_hash:
        old_text = get_version(seen_hash)
        old_lines = None if old_text is None else old_text.split("\n")
    held = current_lines if seen_hash == current_hash else old_lines  # the lines of the version seen
    total = None if held is None else len(held)
    group = _latest_group(records, total)
    changed_since = None
    if seen_hash != current_hash:
        changed_since = next((r.call_id for r in group if r.ranges), group[0].call_id)
    seen = fold_seen(group, total)
    whole = _mapped(seen, seen_hash, changed_since, current_lines, old_lines)
    # A call's records are made together, so the group holds them, but a carry record stands for an
    # older call whose own records may lie before it.
    calls_of = records if any(r.kind == CARRY for r in group) else group
    index_calls = {r.call_id for r in calls_of if r.kind in INDEX_KINDS}
    if not any(r.call_id in index_calls for r in group):
        return whole
    # a call's own text records count (an outline's head); what is carried from it stays index rows
    text_seen = fold_seen([r for r in group if r.call_id not in index_calls or r.kind not in _NOT_TEXT], total)
    # a number a newer index row gave to another line is no longer the model's for this one
    kept = {n: k for n, k in text_seen.items() if (w := seen.get(n)) is not None and w.then == k.then}
    return replace(whole, text_only=_mapped(kept, seen_hash, changed_since, current_lines, old_lines, whole.opcodes))


def _mapped(
    seen: dict[int, KnownLine],
    seen_hash: str,
    changed_since: str | None,
    current_lines: Sequence[str] | None,
    old_lines: Sequence[str] | None,
    opcodes: list[Opcode] | None = None,
) -> Knowledge:
    """The ``Knowledge`` of the lines ``seen`` of version ``seen_hash`` (lines ``old_lines``),
    mapped onto the current version when it changed (``changed_since``); ``opcodes`` between
    the two when already worked out."""
    if changed_since is None:
        return Knowledge(dict(seen), seen_hash, None, seen)
    if old_lines is None or current_lines is None:
        return Knowledge({}, seen_hash, changed_since, seen)
    opcodes = opcodes if opcodes is not None else line_opcodes(old_lines, current_lines)
    lines = {new: seen[old] for old, new in map_lines(opcodes).items() if old in seen}
    return Knowledge(lines, seen_hash, changed_since, seen, opcodes, old_lines)


def carry_records(
    knowledge: Knowledge, path: str, content_hash: str, size: int, mtime_ns: int, skip: Iterable[int] = ()
) -> list[ViewRecord]:
    """Records of the current version for the lines the model knows from earlier calls, one per
    call (owned by that call, kind ``carry``), each range with the number the model knows its
    first line by; lines in ``skip`` (shown anew) are left out, and so are moved lines whose old
    number now names another line."""
    skipped = set(skip)
    # A number the model now reads as another line (shown under it here, or known under it
    # unmoved) no longer points at an older line: the model's memory keeps the latest text.
    taken = skipped | {n for n, known in knowledge.lines.items() if known.then == n}
    by_call: dict[str, list[tuple[int, int]]] = {}
    for n, known in sorted(knowledge.lines.items()):
        if n in skipped or (known.then != n and known.then in taken):
            continue
        by_call.setdefault(known.call_id, []).append((n, known.then))
    records: list[ViewRecord] = []
    for call, pairs in sorted(by_call.items()):
        ranges: list[LineRange] = []
        origins: list[int] = []
        for n, then in pairs:
            if ranges and ranges[-1][1] == n - 1 and origins[-1] + (n - ranges[-1][0]) == then:
                ranges[-1] = (ranges[-1][0], n)
            else:
                ranges.append((n, n))
                origins.append(then)
        same = all(o == a for o, (a, _) in zip(origins, ranges, strict=True))
        records.append(
            ViewRecord(
                call,
                path,
                content_hash,
                tuple(ranges),
                size,
                mtime_ns,
                kind=CARRY,
                origins=() if same else tuple(origins),
            )
        )
    return records


def as_known(line: DiffLine, knowledge: Knowledge) -> DiffLine:
    """The diff line with its old number as the model knows it (lines may have moved since)."""
    known = knowledge.seen.get(line.old) if line.old is not None else None
    return line if known is None else replace(line, old=known.then)


Span = tuple[int, int, int]


def patch_numbers(knowledge: Knowledge, spans: Sequence[Span]) -> Knowledge:
    """The knowledge with each line's number moved as a reader applying a patch to its own
    numbering moves it. ``spans`` are ``(first, end, offset)`` in the model's numbering: lines
    ``first..end-1`` were replaced (dropped here), and lines from ``end`` on move by ``offset``
    until the next span."""
    lines: dict[int, KnownLine] = {}
    for n, known in knowledge.lines.items():
        if any(first <= known.then < end for first, end, _ in spans):
            continue
        before = [offset for _, end, offset in spans if end <= known.then]
        lines[n] = KnownLine(known.call_id, known.then + (before[-1] if before else 0))
    text_only = patch_numbers(knowledge.text_only, spans) if knowledge.text_only is not None else None
    return replace(knowledge, lines=lines, text_only=text_only)


def hunk_spans(groups: Sequence[Sequence[DiffLine]], knowledge: Knowledge) -> list[Span]:
    """The ``patch_numbers`` spans of diff hunks, with old numbers as the model knows them."""
    spans: list[Span] = []
    for group in groups:
        olds = [as_known(line, knowledge).old for line in group if line.old is not None]
        news = [line.new for line in group if line.new is not None]
        old = [n for n in olds if n is not None]
        if not old or not news:
            continue
        spans.append((min(old), max(old) + 1, max(news) - max(old)))
    return spans


def hunks_known(groups: Sequence[Sequence[DiffLine]], knowledge: Knowledge) -> bool:
    """Whether each hunk's old side (context and removed lines) is text the model was shown,
    under consecutive numbers as it knows them: only then is the diff one against what it has."""
    for group in groups:
        olds = [line.old for line in group if line.old is not None]
        if any(old not in knowledge.seen for old in olds):
            return False
        known = [knowledge.seen[old].then for old in olds]
        if known != list(range(known[0], known[0] + len(known))) if known else False:
            return False
    return True
