"""The fast paths of a read give exactly what the plain loops they replace give: the reverse fold
of ``knowledge.fold_seen`` (newest call first, stopping once every line is decided) against the
forward fold over the whole history, ``select_window``'s C-level plain window against the
line-by-line loop, a window's whole ranges against the line-by-line walk, and the frame's
whole-text checks against the line-by-line ones."""

from __future__ import annotations

from dataclasses import replace
from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

from leanread.config.settings import Limits
from leanread.ledger import knowledge
from leanread.ledger.knowledge import KnownLine, fold_seen, know
from leanread.ledger.store import CARRY, ViewRecord
from leanread.view.frame import Own, any_hidden, frame_like, hidden_notice, needs_seal
from leanread.view.render import Window, cut_line, select_window


def forward_fold(group: list[ViewRecord]) -> dict[int, KnownLine]:
    """The fold as ``know`` did it before: every record, oldest first."""
    seen: dict[int, KnownLine] = {}
    holder: dict[int, int] = {}
    for rec in reversed(group):
        for n, then in rec.known_as().items():
            stale = holder.get(then)
            if stale is not None and stale != n:
                del seen[stale]
            previous = seen.get(n)
            if previous is not None and holder.get(previous.then) == n:
                del holder[previous.then]
            seen[n] = KnownLine(rec.call_id, then)
            holder[then] = n
    return seen


TOTAL = 12


@st.composite
def records(draw: st.DrawFn) -> list[ViewRecord]:
    out: list[ViewRecord] = []
    for seq in range(1, draw(st.integers(0, 8)) + 1):
        cuts = sorted(draw(st.sets(st.integers(1, TOTAL), max_size=6)))
        ranges = tuple((a, b) for a, b in zip(cuts[::2], cuts[1::2], strict=False))
        moved = draw(st.booleans())
        origins = tuple(draw(st.integers(1, TOTAL)) for _ in ranges) if moved else ()
        out.append(ViewRecord(f"r{seq}", "/f", "h", ranges, 1, 1, seq=seq, origins=origins))
    return list(reversed(out))  # newest first, as ``fold_seen`` takes them


@settings(max_examples=400, deadline=None)
@given(records(), st.booleans())
def test_reverse_fold_equals_the_forward_fold(group: list[ViewRecord], bounded: bool) -> None:
    assert fold_seen(group, TOTAL if bounded else None) == forward_fold(group)


def test_a_whole_file_read_ends_the_fold_at_the_newest_read() -> None:
    full = [ViewRecord(f"r{i}", "/f", "h", ((1, 3),), 1, 1, seq=i) for i in range(5, 0, -1)]
    assert fold_seen(full, 3) == {n: KnownLine("r5", n) for n in (1, 2, 3)}


def loop_window(lines: list[str], first: int, limit: int, limits: Limits) -> Window:
    """``select_window`` as it was: the line-by-line loop."""
    total = len(lines)
    shown: list[str] = []
    cut: list[tuple[int, int]] = []
    used = 0
    end = min(total, first - 1 + limit)
    stop = "eof" if end == total else "limit"
    for number in range(first, end + 1):
        line = lines[number - 1]
        visible = cut_line(line, limits.max_line_chars)
        size = len(visible.encode("utf-8")) + 1
        if shown and used + size > limits.max_bytes:
            stop = "bytes"
            break
        used += size
        shown.append(visible)
        if visible is not line:
            cut.append((number, len(line)))
    return Window(first, first + len(shown) - 1, total, tuple(shown), tuple(cut), stop)  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(st.sampled_from("ab\u00e9\u4e2d\U0001f600 "), max_size=30), max_size=40).map(
        lambda lines: lines if len(lines) % 3 else [line.replace("\u00e9", "e") for line in lines]  # ASCII too
    ),
    st.integers(1, 40),
    st.integers(1, 50),
    st.integers(1, 400),
    st.integers(1, 40),
)
def test_the_plain_window_equals_the_line_by_line_loop(
    lines: list[str], first: int, limit: int, max_bytes: int, max_chars: int
) -> None:
    first = min(first, max(1, len(lines)))
    limits = replace(Limits(), max_bytes=max_bytes, max_line_chars=max_chars)
    assert select_window(lines, first, limit, limits, "plain") == loop_window(lines, first, limit, limits)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 30), st.integers(0, 30), st.sets(st.integers(1, 60), max_size=8))
def test_whole_ranges_equal_the_line_by_line_walk(first: int, count: int, cut: set[int]) -> None:
    last = first + count - 1
    cuts = tuple((n, 999) for n in sorted(cut) if first <= n <= last)
    window = Window(first, last, 100, ("x",) * count, cuts, "eof")
    walked: list[tuple[int, int]] = []
    for number in range(first, last + 1):
        if number in cut:
            continue
        if walked and walked[-1][1] == number - 1:
            walked[-1] = (walked[-1][0], number)
        else:
            walked.append((number, number))
    assert window.full_ranges == tuple(walked)


#: Pieces that make a line read like the frame, or nearly, or hide characters.
PIECES = ["(End", " of file", "</content>", "<path>", "… lines 3", "\n", "@@ ", "  ", "x", "unchanged since you read",
          "Instructions from ", "\u202e", "\U000e0041", "(focus", "[focus:"]  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.tuples(st.lists(st.sampled_from(PIECES), max_size=4).map("".join), st.booleans()), max_size=6),
    st.booleans(),
)
def test_the_whole_text_checks_equal_the_line_by_line_ones(rows: list[tuple[str, bool]], diff: bool) -> None:
    lines = [Own(text) if own else text for text, own in rows]
    per_line = any(not isinstance(line, Own) and frame_like(line, diff=diff) for line in lines)
    assert needs_seal(lines, diff=diff) == per_line
    texts = [text for text, _ in rows]
    assert any_hidden(texts) == (hidden_notice(enumerate(texts, 1)) is not None)


LINES = [f"line {n}" for n in range(1, TOTAL + 1)]
OLD = "\n".join(f"old {n}" for n in range(1, TOTAL + 1))


@st.composite
def histories(draw: st.DrawFn) -> list[ViewRecord]:
    """A file's records, oldest first: two versions, every kind, some hidden, whole reads among them."""
    out: list[ViewRecord] = []
    for seq in range(1, draw(st.integers(1, 10)) + 1):
        if draw(st.booleans()):
            ranges: tuple[tuple[int, int], ...] = ((1, TOTAL),)
        else:
            cuts = sorted(draw(st.sets(st.integers(1, TOTAL), min_size=2, max_size=6)))
            ranges = tuple((a, b) for a, b in zip(cuts[::2], cuts[1::2], strict=False))
        kind = draw(st.sampled_from(["read", "read", "edit", "grep", "outline", CARRY]))
        moved = kind == CARRY and draw(st.booleans())
        origins = tuple(draw(st.integers(1, TOTAL)) for _ in ranges) if moved else ()
        version = draw(st.sampled_from(["now", "old"]))
        visible = draw(st.integers(0, 4)) > 0
        call = f"r{draw(st.integers(1, seq))}" if kind == CARRY else f"r{seq}"
        out.append(ViewRecord(call, "/f", version, ranges, 1, 1, kind, (), visible, seq, origins))
    return out


@settings(max_examples=400, deadline=None)
@given(histories())
def test_knowledge_stops_at_a_whole_text_read_as_the_whole_history_gives(history: list[ViewRecord]) -> None:
    """``know`` walks a version's records only back to the newest text record of all its lines
    (a file read whole a thousand times costs one record); what it gives equals the walk of the
    whole history."""

    def versions(digest: str) -> str | None:
        return OLD if digest == "old" else None

    fast = know(history, "now", LINES, versions)
    with patch.object(knowledge, "_whole_text", lambda rec, total: False):  # the walk of every record
        whole = know(history, "now", LINES, versions)
    assert fast.as_text() == whole.as_text()
    assert (fast.lines, fast.seen, fast.seen_hash, fast.changed_since) == (
        whole.lines,
        whole.seen,
        whole.seen_hash,
        whole.changed_since,
    )
