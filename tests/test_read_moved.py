"""A re-read of a file changed outside leanread says where every line it leaves out was when the
model read it: a diff's sentence names the lines that moved, and a model that rebuilds the window
from its earlier read and this answer, reading the words and the hunks, gets the file's lines."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leanread import MemoryLedger, Session
from leanread.code.diffs import moved_runs
from leanread.view.hunks import moved_clause

WIDE = [f"    value_{i} = compute(alpha, beta, gamma, delta, option={i})" for i in range(1, 61)]


def _write(path: Path, lines: list[str]) -> None:
    path.write_text("".join(f"{line}\n" for line in lines))


def test_a_diff_says_which_lines_moved(session: Session, root: Path) -> None:
    _write(root / "f.py", WIDE)
    session.read("f.py")
    changed = [*WIDE[:4], *WIDE[5:]]  # line 5 deleted
    changed[48] = "    value_50 = compute(alpha, beta, gamma, delta, option=-50)"
    _write(root / "f.py", changed)
    assert session.read("f.py", offset=20).text == "\n".join(
        [
            "<path>f.py</path>",
            "<type>diff</type>",
            "<content>",
            "(f.py changed since you read it. Lines 20-59 as a diff against what you were shown; lines outside "
            "the hunks are unchanged; lines 20-47 were 21-48 and lines 51-59 were 52-60 when you read them.)",
            "@@ -49,3 +48,3 @@",
            " " + WIDE[48],
            "-" + WIDE[49],
            "+" + changed[48],
            " " + WIDE[50],
            "",
            "(End of file - total 59 lines)",
            "</content>",
        ]
    )


def test_a_diff_without_moves_keeps_the_short_sentence(session: Session, root: Path) -> None:
    _write(root / "f.py", WIDE)
    session.read("f.py")
    changed = [*WIDE]
    changed[29] = "    value_30 = compute(alpha, beta, gamma, delta, option=-30)"
    _write(root / "f.py", changed)
    text = session.read("f.py", offset=10).text
    assert text.split("\n")[3] == (
        "(f.py changed since you read it. Lines 10-60 as a diff against what you were shown; "
        "lines outside the hunks are unchanged.)"
    )


def test_moved_runs_and_their_words() -> None:
    runs = moved_runs([(1, 1), (2, 3), (3, 4), (4, 5), (6, 6), (7, 5), (8, 9), (9, 10)])
    assert runs == [(2, 4, 3), (7, 7, 5), (8, 9, 9)]
    assert moved_clause(runs) == " lines 2-4 were 3-5, line 7 was 5 and lines 8-9 were 9-10 when you read them"
    assert moved_clause([]) == ""


# --- the property: rebuild the window as a model would --------------------------------------

_FOOTER = re.compile(r"^\((?:Showing lines (\d+)-(\d+) of \d+|End of file - total (\d+) lines?)")
_MARKER = re.compile(
    r"^… lines? (\d+)(?:-(\d+))? unchanged since you read (?:them|it)(?: as lines? (\d+)(?:-\d+)?)? …$"
)
_STUB = re.compile(r"^\((?:Lines (\d+)-(\d+)|Line (\d+)) unchanged since you read")
_DIFF = re.compile(
    r"^\(.* changed since you read it\. Lines (\d+)-(\d+) as a diff .*?unchanged(?:; (.*) when you read them)?\.\)$"
)
_MOVE = re.compile(r"^(?:lines (\d+)-(\d+) were (\d+)-\d+|line (\d+) was (\d+))$")
_HUNK = re.compile(r"^@@ -\S+ \+(\d+)(?:,(\d+))? @@$")


def _body(text: str) -> list[str]:
    rows = text.split("\n")
    return rows[rows.index("<content>") + 1 : rows.index("</content>")]


def _window(rows: list[str]) -> tuple[int, int]:
    for row in rows:
        found = _FOOTER.match(row)
        if found and found.group(3):
            return -1, int(found.group(3))
        if found:
            return int(found.group(1)), int(found.group(2))
    raise AssertionError(f"no footer in {rows}")


def _rebuild(text: str, seen: list[str], offset: int) -> tuple[int, list[str]]:
    """The window's first line and its lines, from ``seen`` (the model's lines 1..) and ``text``."""
    rows = _body(text)
    first, last = _window(rows)
    first = offset if first < 0 else first
    diff = _DIFF.match(rows[0])
    if diff:
        first, last = int(diff.group(1)), int(diff.group(2))
        then = {n: n for n in range(first, last + 1)}
        for part in re.split(r", | and ", diff.group(3) or ""):
            if part:
                move = _MOVE.match(part)
                assert move, part
                if move.group(1):
                    a, b, c = (int(move.group(i)) for i in (1, 2, 3))
                    then.update({n: c + n - a for n in range(a, b + 1)})
                else:
                    then[int(move.group(4))] = int(move.group(5))
        got: dict[int, str] = {}
        n = 0
        for row in rows[1:]:
            header = _HUNK.match(row)
            if header:
                n = int(header.group(1)) + (1 if header.group(2) == "0" else 0)
            elif row[:1] in (" ", "+") and n:
                got[n] = row[1:]
                n += 1
            elif row == "":
                break
        return first, [got[k] if k in got else seen[then[k] - 1] for k in range(first, last + 1)]
    stub = _STUB.match(rows[0])
    if stub:
        a = int(stub.group(1) or stub.group(3))
        b = int(stub.group(2) or stub.group(3))
        return a, seen[a - 1 : b]
    out: list[str] = []
    for row in rows:
        if row == "":
            break
        marker = _MARKER.match(row)
        if marker:
            a = int(marker.group(1))
            b = int(marker.group(2) or a)
            c = int(marker.group(3) or a)
            out.extend(seen[c - 1 : c - 1 + b - a + 1])
        else:
            out.append(row)
    return first, out


# long lines, so that a diff is often the cheapest answer; repeated ones, so that the diff can be ambiguous
_TEXTS = st.sampled_from(
    [
        "        result = transform(payload, option=default_option, retries=3)",
        "        return combine(result, previous_result, strategy=merge_strategy)",
        "    if not isinstance(payload, Mapping) and payload is not None:",
        "        raise ValueError(f'unexpected payload {payload!r} for this handler')",
        "    }",
    ]
)
_OP = st.tuples(st.sampled_from(["delete", "insert", "change"]), st.integers(0, 999), _TEXTS)
_OPS = st.lists(_OP, min_size=1, max_size=4)


def _apply(lines: list[str], ops: list[tuple[str, int, str]]) -> list[str]:
    out = [*lines]
    for op, where, text in ops:
        if op == "insert":
            out.insert(where % (len(out) + 1), text)
        elif out and op == "delete":
            del out[where % len(out)]
        elif out:
            out[where % len(out)] = text
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    old=st.builds(
        _apply, st.integers(1, 60).map(lambda n: WIDE[:n]), st.lists(_OP.filter(lambda op: op[0] == "change"))
    ),
    ops=_OPS,
    offset=st.integers(1, 60),
    limit=st.one_of(st.none(), st.integers(1, 60)),
)
def test_a_window_rebuilt_from_the_words_is_the_file(
    old: list[str], ops: list[tuple[str, int, str]], offset: int, limit: int | None
) -> None:
    new = _apply(old, ops)
    if not new:
        return
    offset = min(offset, len(new))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "f.txt"
        _write(path, old)
        session = Session([folder], ledger=MemoryLedger())
        seen = _body(session.read("f.txt").text)[: len(old)]
        assert seen == old
        _write(path, new)
        result = session.read("f.txt", offset=offset, limit=limit)
    assert not result.is_error, result.text
    first, rebuilt = _rebuild(result.text, seen, offset)
    assert first == offset
    assert rebuilt == new[first - 1 : first - 1 + len(rebuilt)], result.text
    end = len(new) if limit is None else min(len(new), offset + limit - 1)
    assert len(rebuilt) == end - first + 1, result.text
