"""The model's view stays exact: a reconstructor that sees only tool results (stubs, markers,
diffs, edit summaries, refusals) rebuilds every window it reads exactly as the disk holds it,
whatever outside changes, touches, edits and forgets happen in between."""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from leanread import MemoryLedger, Session, ToolResult

MARKER = re.compile(r"^… lines? (\d+)(?:-(\d+))? unchanged since you read (?:them|it)(?: as lines? (\d+)(?:-\d+)?)? …$")
STUB = re.compile(r"^\(Lines? (\d+)(?:-(\d+))? unchanged since you read (?:them|it), still in your context\.")
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$")
SUMMARY = re.compile(r"lines? (\d+)(?:-(\d+))? (?:is|are) now lines? (\d+)(?:-(\d+))?\.$")
EXCERPT = re.compile(r"^(\d+): (.*)$")
NOTICE = re.compile(r"^\((End of file|Empty file|Showing lines|Output capped|File |.* changed since you read it;)")


Held = tuple[str, frozenset[str]]


@dataclass
class View:
    """What the model holds of one file: line number → (text, the calls whose results hold it)."""

    lines: dict[int, Held] = field(default_factory=dict)

    def text(self, n: int) -> str:
        assert n in self.lines, f"the result relies on line {n}, which the model does not have"
        return self.lines[n][0]

    def show(self, n: int, text: str, call: str) -> Held:
        """What the model holds at ``n`` once ``call`` showed ``text`` there."""
        held = self.lines.get(n)
        return (text, held[1] | {call}) if held and held[0] == text else (text, frozenset({call}))


def _body(text: str) -> list[str]:
    inner = text.split("<content>\n", 1)[1].split("\n</content>", 1)[0].split("\n")
    while inner and NOTICE.match(inner[-1]):
        inner.pop()
    if inner and inner[-1] == "":
        inner.pop()
    return inner


def _hunks(rows: list[str]) -> list[tuple[int, int, list[str]]]:
    """(old start, new start, lines with their tags) per hunk."""
    out: list[tuple[int, int, list[str]]] = []
    for row in rows:
        if match := HUNK.match(row):
            old, new = int(match.group(1)), int(match.group(3))
            # a count of 0 puts start on the line before
            old += 1 if match.group(2) == "0" else 0
            new += 1 if match.group(4) == "0" else 0
            out.append((old, new, []))
        elif out:
            out[-1][2].append(row)
    return out


def _apply_hunks(
    view: View, hunks: list[tuple[int, int, list[str]]], first: int, last: int, call: str
) -> dict[int, Held]:
    """The window first..last after a diff: hunk lines as shown, others placed by the offsets."""
    placed: dict[int, Held] = {}
    edges: list[tuple[int, int]] = []  # (new number, new - old) at hunk edges
    for old, new, rows in hunks:
        o, n = old, new
        start_offset = new - old
        for row in rows:
            tag, text = row[:1], row[1:]
            if tag == " ":
                placed[n] = view.show(n, text, call)
                o, n = o + 1, n + 1
            elif tag == "-":
                o += 1
            else:
                placed[n] = view.show(n, text, call)
                n += 1
        edges.append((new, start_offset))
        edges.append((n - 1, n - o))
    for number in range(first, last + 1):
        if number in placed:
            continue
        before = [offset for at, offset in edges if at < number]
        offset = before[-1] if before else edges[0][1]
        source = number - offset
        view.text(source)  # the model must have it
        placed[number] = view.lines[source]
    return placed


def apply_read(view: View, result: ToolResult) -> list[str]:
    """Update the view from a read result; return the window as the model now has it."""
    meta = result.metadata
    first, last, call = meta["offset"], meta["last_line"], meta["call_id"]
    rows = _body(result.text)
    if "<type>diff</type>" in result.text:
        window = _apply_hunks(view, _hunks(rows[1:]), first, last, call)
    else:
        window: dict[int, Held] = {}
        n = first
        for row in rows:
            stub = STUB.match(row)
            marker = MARKER.match(row)
            hit = stub or marker
            if hit:
                a = int(hit.group(1))
                b = int(hit.group(2) or a)
                then = int(marker.group(3)) if marker and marker.group(3) else a
                assert a == n, (row, n)
                for k in range(a, b + 1):
                    view.text(then + k - a)
                    window[k] = view.lines[then + k - a]
                n = b + 1
            else:
                window[n] = view.show(n, row, call)
                n += 1
        assert n == last + 1, (n, last, result.text)
    view.lines.update(window)
    return [window[k][0] for k in range(first, last + 1)]


def apply_edit(view: View, result: ToolResult, old: str, new: str) -> None:
    """The model applies its own edit to what it holds, renumbering what follows."""
    summary = result.text.split("\n")[3]
    match = SUMMARY.search(summary)
    assert match, summary
    a, b = int(match.group(1)), int(match.group(2) or match.group(1))
    c, d = int(match.group(3)), int(match.group(4) or match.group(3))
    block = "\n".join(view.text(k) for k in range(a, b + 1)).replace(old, new, 1).split("\n")
    assert len(block) == d - c + 1
    shifted = {(k if k < a else k + (d - c) - (b - a)): v for k, v in view.lines.items() if not a <= k <= b}
    call = result.metadata["call_id"]
    shifted.update({c + i: (text, frozenset({call})) for i, text in enumerate(block)})
    for row in result.text.split("\n")[4:-1]:  # the numbered excerpt around the change
        if match := EXCERPT.match(row):
            number, text = int(match.group(1)), match.group(2)
            held = shifted.get(number)
            shifted[number] = (text, held[1] | {call}) if held and held[0] == text else (text, frozenset({call}))
    view.lines = shifted


def apply_refusal(view: View, result: ToolResult) -> None:
    """A refusal with the diff of an outside change: the model patches all it holds."""
    call = result.metadata["call_id"]
    patched: dict[int, Held] = {}
    spans: list[tuple[int, int, int]] = []  # old start, old end (exclusive), offset after the hunk
    for old, new, rows in _hunks(result.text.split("\n")):
        o, n = old, new
        for row in rows:
            tag, text = row[:1], row[1:]
            if tag in " +":
                held = view.lines.get(o) if tag == " " else None
                before = held[1] if held and held[0] == text else frozenset()
                patched[n] = (text, before | {call})
                n += 1
            if tag in " -":
                o += 1
        spans.append((old, o, n - o))
    for k, value in view.lines.items():
        if any(start <= k < end for start, end, _ in spans):
            continue
        before = [offset for _, end, offset in spans if end <= k]
        patched.setdefault(k + (before[-1] if before else 0), value)
    view.lines = patched


def compact(view: View, gone: set[str]) -> None:
    """The results of ``gone`` were summarised away: the lines only they held are gone."""
    kept = {k: (text, calls - gone) for k, (text, calls) in view.lines.items()}
    view.lines = {k: v for k, v in kept.items() if v[1]}


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
