"""Rebuild what the model holds of each file from leanread's tool results alone.

A ``View`` is what the model has of one file: line number → the text and the calls whose results
hold it. ``apply_read`` turns a read result (full window, stub, markers, or a unified diff) into
the window as the model now has it; ``apply_edit``/``apply_write``/``apply_grep``/``apply_refusal``
follow the model's own edits, writes, grep results and refusal diffs. A result that relies on a
line the model does not have, or that does not add up, raises ``Divergence``: the replay's
truthfulness check (and ``tests/test_reconstruct.py``) compare every rebuilt window with the disk.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..result import ToolResult
from .rows import ROW_PREFIX

MARKER = re.compile(r"^… lines? (\d+)(?:-(\d+))? unchanged since you read (?:them|it)(?: as lines? (\d+)(?:-\d+)?)? …$")
STUB = re.compile(r"^\(Lines? (\d+)(?:-(\d+))? unchanged since you read (?:them|it), still in your context\.")
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$")
SUMMARY = re.compile(
    r"^(?:Replaced \d+ occurrences; )?(Edited|Removed|edited|removed) lines? (\d+)(?:-(\d+))?"
    r"(?: \(([+-]\d+) lines?\))?"
)
EXCERPT = re.compile(r"^(\d+): (.*)$")
NOTICE = re.compile(
    r"^\((End of file|Empty file|Showing lines|Output capped|File |Lines? \d|.* changed since you read it;)"
)
CUT = re.compile(
    r"… \[line cut: [\d,]+ chars in all\]$|\[line cut: match at column [\d,]+ of [\d,]+ chars; read on with .*\]$"
)


class Divergence(Exception):
    """A result the model could not rebuild a true view from (a line it does not have, a count
    that does not add up, a window that differs from the disk)."""


def check(condition: bool, message: object) -> None:
    """Raise ``Divergence(message)`` unless ``condition``."""
    if not condition:
        raise Divergence(str(message))


Held = tuple[str, frozenset[str]]


@dataclass
class View:
    """What the model holds of one file: line number → (text, the calls whose results hold it)."""

    lines: dict[int, Held] = field(default_factory=dict)
    #: Outline rows ``first-last: signature``: the signature line is somewhere in first..last
    #: (after the decorators), the row does not say where. A later result that relies on a line
    #: of that range the model does not hold by number places it there (``text``).
    loose: dict[tuple[int, int], Held] = field(default_factory=dict)

    def text(self, n: int) -> str:
        if n not in self.lines:
            ranges = [r for r in self.loose if r[0] <= n <= r[1]]
            if ranges:  # the innermost definition's signature: the one line of it the model holds
                inner = min(ranges, key=lambda r: r[1] - r[0])
                self.lines[n] = self.loose.pop(inner)
        check(n in self.lines, f"the result relies on line {n}, which the model does not have")
        return self.lines[n][0]

    def show(self, n: int, text: str, call: str) -> Held:
        """What the model holds at ``n`` once ``call`` showed ``text`` there (a loose signature
        shown there by number is placed)."""
        for key in [r for r, (sig, _) in self.loose.items() if r[0] <= n <= r[1] and sig == text]:
            self.lines.setdefault(n, self.loose.pop(key))
        held = self.lines.get(n)
        return (text, held[1] | {call}) if held and held[0] == text else (text, frozenset({call}))


def _body(text: str) -> list[str]:
    check("<content>\n" in text and "\n</content>" in text, "the result has no <content> envelope")
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
    check(bool(hunks), "a diff result without hunks")
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
    window: dict[int, Held]
    if "<type>diff</type>" in result.text:
        window = _apply_hunks(view, _hunks(rows[1:]), first, last, call)
    else:
        window = {}
        n = first
        for row in rows:
            stub = STUB.match(row)
            marker = MARKER.match(row)
            hit = stub or marker
            if hit:
                a = int(hit.group(1))
                b = int(hit.group(2) or a)
                then = int(marker.group(3)) if marker and marker.group(3) else a
                check(a == n, (row, n))
                for k in range(a, b + 1):
                    view.text(then + k - a)
                    window[k] = view.lines[then + k - a]
                n = b + 1
            else:
                window[n] = view.show(n, row, call)
                n += 1
        check(n == last + 1, f"the window ends at line {n - 1}, its metadata says {last}")
    view.lines.update(window)
    return [window[k][0] for k in range(first, last + 1)]


FOCUS_OMITTED = re.compile(r"^… lines? (\d+)(?:-(\d+))? omitted …$")


def apply_focus(view: View, result: ToolResult) -> dict[int, str]:
    """A read pruned for a focus question: the rows after its ``[focus: …]`` header are file
    lines from the window's first on, each ``… lines A-B omitted …`` marker skipping A-B and each
    ``… lines A-B unchanged since you read them …`` standing for lines the view must hold. The
    kept lines are held under their numbers; returns them."""
    meta = result.metadata
    first, last, call = meta["offset"], meta["last_line"], meta["call_id"]
    rows = _body(result.text)
    check(bool(rows) and rows[0].startswith("[focus: "), "a focused read starts with its [focus: …] header")
    kept: dict[int, str] = {}
    n = first
    for row in rows[1:]:
        omitted = FOCUS_OMITTED.match(row) or MARKER.match(row)
        if omitted:
            a, b = int(omitted.group(1)), int(omitted.group(2) or omitted.group(1))
            check(a == n, (row, n))
            if omitted.re is MARKER:  # kept lines the model has: they must be in the view
                kept.update((k, view.text(k)) for k in range(a, b + 1))
            n = b + 1
            continue
        view.lines[n] = view.show(n, row, call)
        kept[n] = row
        n += 1
    check(n == last + 1, f"the focused window ends at line {n - 1}, its metadata says {last}")
    return kept


OUTLINE_ROW = re.compile(r"^(\d+)(?:-(\d+))?\t(.*)$")


def outline_rows(text: str) -> list[str]:
    """The rows of an outline result's text (``12\ttext``, ``10-20\tdef f():``), in order."""
    return [row for row in text.split("\n") if OUTLINE_ROW.match(row)]


def apply_outline(view: View, result: ToolResult) -> dict[int, str]:
    """An outline result: its head and tail rows (``12: text``) are held under their numbers, each
    definition row (``10-20: def f():``) as a loose signature of lines 10-20. Returns the rows
    held by number."""
    call = result.metadata["call_id"]
    placed: dict[int, str] = {}
    for row in _body(result.text)[1:]:
        found = OUTLINE_ROW.match(row)
        if found is None:
            continue
        first, text = int(found.group(1)), found.group(3)
        if found.group(2) is None:
            view.lines[first] = view.show(first, text, call)
            placed[first] = text
        else:
            key = (first, int(found.group(2)))
            held = view.loose.get(key)
            view.loose[key] = (text, held[1] | {call}) if held and held[0] == text else (text, frozenset({call}))
    return placed


def _shift_loose(view: View, a: int, b: int, delta: int) -> None:
    """Loose signatures after an edit of lines a..b that moved what follows by ``delta``: ranges
    past the edit move, ranges that overlap it are forgotten unless they enclose it."""
    moved: dict[tuple[int, int], Held] = {}
    for (first, last), held in view.loose.items():
        if last < a:
            moved[(first, last)] = held
        elif first > b:
            moved[(first + delta, last + delta)] = held
        elif first < a and last > b:
            moved[(first, last + delta)] = held
    view.loose = moved


def apply_edit(view: View, result: ToolResult, old: str, new: str) -> None:
    """The model applies its own edit to what it holds, renumbering what follows. When leanread
    matched ``old`` by a looser rule than exact text, the model knows its ``new`` as it wrote it,
    and the numbered excerpt the result shows."""
    summary = result.text.split("\n")[0]
    match = SUMMARY.search(summary)
    check(match is not None, summary)
    assert match is not None
    a, b = int(match.group(2)), int(match.group(3) or match.group(2))
    if match.group(1).lower() == "removed":
        c, d = a, a - 1
    else:
        c, d = a, b + int(match.group(4) or 0)
    joined = "\n".join(view.text(k) for k in range(a, b + 1))
    old_n, new_n = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
    if old_n in joined:
        block = joined.replace(old_n, new_n, 1).split("\n")
    else:  # a looser matching rule: the model holds what it wrote
        block = new_n.split("\n")
        if len(block) != d - c + 1 and block and block[-1] == "":
            block.pop()
    check(len(block) == d - c + 1, f"the edit's new lines {c}-{d} do not fit {len(block)} written lines")
    shifted = {(k if k < a else k + (d - c) - (b - a)): v for k, v in view.lines.items() if not a <= k <= b}
    _shift_loose(view, a, b, (d - c) - (b - a))
    call = result.metadata["call_id"]
    # new_string shifted as the note says: the model holds those lines only where the result shows them
    keep = not (old_n not in joined and "; new_string indented " in summary)
    shifted.update({c + i: (text, frozenset({call})) for i, text in enumerate(block) if keep})
    for row in result.text.split("\n")[1:]:  # the numbered excerpt around the change, when shown
        if match := EXCERPT.match(row):
            number, text = int(match.group(1)), match.group(2)
            held = shifted.get(number)
            shifted[number] = (text, held[1] | {call}) if held and held[0] == text else (text, frozenset({call}))
    view.lines = shifted


def apply_write(view: View, result: ToolResult, content: str) -> None:
    """The model wrote ``content`` whole: it holds every line of it."""
    call = result.metadata["call_id"]
    lines = content.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    view.lines = {i + 1: (text, frozenset({call})) for i, text in enumerate(lines)}
    view.loose = {}


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
        shifts = [offset for _, end, offset in spans if end <= k]
        patched.setdefault(k + (shifts[-1] if shifts else 0), value)
    view.lines = patched
    view.loose = {}


def apply_grep(views: dict[str, View], result: ToolResult) -> None:
    """A grep result: every line it shows whole (matches and context, not the cut ones) is now
    held under its number, per file (a files-only result shows no lines)."""
    if result.metadata.get("files_only"):
        return
    call = result.metadata["call_id"]
    current: View | None = None
    previous: int | None = None  # the line of the row before, for a row without a number
    for row in result.text.split("\n"):
        found = ROW_PREFIX.match(row)
        if found is None:
            if row and not row.startswith(("(", "[", "…")):  # a file's path
                current = views.setdefault(row, View())
            previous = None
            continue
        if current is None:
            continue
        if found.group(1) is None:
            check(previous is not None, f"a grep row without a number after no line: {row!r}")
        n = int(found.group(1)) if found.group(1) is not None else (previous or 0) + 1
        previous = n
        text = row[found.end() :]
        if CUT.search(text):
            continue
        current.lines[n] = current.show(n, text, call)


def compact(view: View, gone: set[str]) -> None:
    """The results of ``gone`` were summarised away: the lines only they held are gone."""
    kept = {k: (text, calls - gone) for k, (text, calls) in view.lines.items()}
    view.lines = {k: v for k, v in kept.items() if v[1]}
