"""The reverse fold of ``knowledge.fold_seen`` (newest call first, stopping once every line is
decided) gives exactly what the original forward fold over the whole history gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from leanread.knowledge import KnownLine, fold_seen
from leanread.ledger import ViewRecord


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
