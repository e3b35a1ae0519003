"""The model's view stays exact: a reconstructor that sees only tool results (stubs, markers,
diffs, edit summaries, refusals) rebuilds every window it reads exactly as the disk holds it,
whatever outside changes, touches, edits and forgets happen in between."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from leanread import MemoryLedger, Session
from leanread.view.reconstruct import Held, View, apply_edit, apply_grep, apply_read, apply_refusal, compact

WORDS = ["alpha", "beta", "gamma", "delta", "    return x", "", "# note", "x = 1"]

steps_strategy = st.lists(
    st.one_of(
        st.tuples(st.just("read"), st.integers(1, 40), st.integers(1, 40)),
        st.tuples(st.just("read"), st.just(1), st.just(100)),
        st.tuples(st.just("outside"), st.integers(0, 39), st.sampled_from(["replace", "insert", "delete"])),
        st.tuples(st.just("touch"), st.just(0), st.just("")),
        st.tuples(st.just("edit"), st.integers(0, 39), st.sampled_from(["EDITED", "one\ntwo", ""])),
        st.tuples(st.just("compact"), st.integers(1, 30), st.just("")),
        st.tuples(st.just("rewind"), st.integers(1, 30), st.just("")),
    ),
    max_size=14,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(  # a diff read, then an edit and a refusal diff after another outside change
    initial=["alpha"] * 20,
    steps=[
        ("read", 1, 100),
        ("outside", 5, "replace"),
        ("read", 1, 100),
        ("edit", 9, "one\ntwo"),
        ("outside", 14, "insert"),
        ("edit", 2, "EDITED"),
        ("read", 1, 100),
    ],
    crlf=False,
    wide=True,
)
@given(
    initial=st.lists(st.sampled_from(WORDS), min_size=1, max_size=30),
    steps=steps_strategy,
    crlf=st.booleans(),
    wide=st.booleans(),
)
def test_every_read_rebuilds_the_disk(
    initial: list[str], steps: list[tuple[str, int, object]], crlf: bool, wide: bool
) -> None:
    newline = "\r\n" if crlf else "\n"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "f.py")
        pad = " = transform(payload, option=value, retries=3)  # keep" if wide else ""
        lines = [f"{w} #{i}{pad}" if w else "" for i, w in enumerate(initial)]
        path.write_bytes((newline.join(lines) + newline).encode())
        session = Session([tmp], ledger=MemoryLedger())
        view = View()
        history: list[tuple[str, dict[int, Held]]] = []  # (call id, the view after it), for rewind
        for kind, number, arg in steps:
            disk = path.read_bytes().decode().split(newline)[:-1]
            if kind == "read":
                if not disk:
                    continue
                offset = (number - 1) % len(disk) + 1
                result = session.read("f.py", offset=offset, limit=int(str(arg)))
                assert not result.is_error, result.text
                shown = apply_read(view, result)
                meta = result.metadata
                assert shown == disk[meta["offset"] - 1 : meta["last_line"]], result.text
                history.append((meta["call_id"], dict(view.lines)))
            elif kind == "outside":
                index = number % (len(disk) + 1)
                if arg == "insert":
                    disk.insert(index, f"inserted {number}")
                elif disk and index < len(disk):
                    if arg == "replace":
                        disk[index] = f"replaced {number}"
                    else:
                        del disk[index]
                path.write_bytes("".join(line + newline for line in disk).encode())
            elif kind == "touch":
                os.utime(path)
            elif kind == "edit":
                if not disk:
                    continue
                target = disk[number % len(disk)]
                if not target or disk.count(target) != 1:
                    continue
                new = str(arg) or "EMPTY"
                result = session.edit("f.py", target, new)
                if not result.is_error:
                    apply_edit(view, result, target, new)
                elif "@@" in result.text:  # refused with the diff of an outside change
                    apply_refusal(view, result)
                else:
                    continue  # refused before anything was shown: nothing recorded
                history.append((result.metadata["call_id"], dict(view.lines)))
            elif kind == "compact" and history:
                last = number % len(history)
                session.compact(history[last][0])
                compact(view, {call for call, _ in history[: last + 1]})
            elif kind == "rewind" and history:
                to = number % len(history)
                session.rewind(history[to][0])
                view.lines = dict(history[to][1])
                del history[to + 1 :]


_GREP_LINE = st.text(alphabet="ab \t#", min_size=0, max_size=12)


@settings(max_examples=80, deadline=None)
@given(
    lines=st.lists(_GREP_LINE, min_size=1, max_size=30),
    before=st.integers(0, 4),
    after=st.integers(0, 4),
    read_first=st.none() | st.tuples(st.integers(1, 30), st.integers(1, 10)),
)
def test_every_grep_row_numbered_or_not_is_the_line_it_stands_for(
    lines: list[str], before: int, after: int, read_first: tuple[int, int] | None
) -> None:
    """A grep's rows, a context row without its number included (it is the line after the row
    before it), rebuild each line they show exactly; a read first makes some rows markers."""
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "f.txt").write_text("\n".join(lines) + "\n")
        session = Session([folder], ledger=MemoryLedger())
        if read_first is not None:
            session.read("f.txt", offset=min(read_first[0], len(lines)), limit=read_first[1])
        found = session.grep("#", before=before, after=after)
    views: dict[str, View] = {}
    apply_grep(views, found)
    shown = views.get("f.txt", View()).lines
    assert {n: text for n, (text, _) in shown.items()} == {n: lines[n - 1] for n in shown}
    unnumbered = [row for row in found.text.split("\n") if row.startswith("\t")]
    if any("#" in line for line in lines) and (before or after) and read_first is None:
        assert len(unnumbered) == sum(1 for n in shown if n - 1 in shown and "#" not in lines[n - 1])
