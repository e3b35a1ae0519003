"""leanread with read mode ``auto``: a whole read of a big file (``Limits.outline_lines``,
``outline_bytes``) gives its outline, and the agent pays for what the outline left out.

Every line the agent uses later in a file it had as an outline (the lines of a later window, the
lines an ``edit`` replaces) that no earlier output of this session showed (the outline's head and
signatures, a window, a grep, a follow-up) is fetched first by a follow-up ``read`` through the
same Session. What it reads for a line: the innermost definition listed in the outline that encloses it; where no
definition encloses the line, or it lies outside every definition nested in the one that does (a
class attribute, the lines between methods), a window from the line up to the next definition,
at most 40 lines. The lines an op uses are one run, so what it lacks is read in one call, as a
model that has the map would: ``symbol=`` when that is one definition with a unique name, else
the range from the first such definition or window to the last. Blank lines are not fetched.
Each line is fetched at most once; the follow-ups' texts are charged to the op that needed them,
and each goes through the truthfulness check like any read. Not charged: a whole re-read of an
outlined file (it gets the outline again, or a stub when the model still has it), shell
commands, ``insert`` and ``undo_edit`` (made outside leanread, their lines are not known before
they run).

Notes (per trace, summed by the report): ``follow-up reads: symbol|range|window``, their tokens
by the op kind they were charged to, and each later-used non-blank line once by where the model
had it from: ``used lines: outline`` (its head or a signature), ``used lines: other output`` (a
grep, an earlier window), ``used lines: follow-up`` (only a follow-up showed it).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from ....code.outline import Outline, Symbol, find_symbol, outline
from ....errors import InvalidArgument
from ....tokens import count_tokens
from ....view.outlineview import outline_line_chars, render_outline
from ....view.reconstruct import OUTLINE_ROW, apply_outline, outline_rows
from ....view.render import cut_line
from ..calls import FileSnapshot, ReadCall, snapshot
from ..lineids import LineIds
from ..strategy import MAX_BYTES, window
from .leanread import Leanread

#: Lines of a follow-up window where no definition encloses a line.
WINDOW_LINES = 40


def enclosing(symbols: tuple[Symbol, ...], line: int) -> Symbol | None:
    """The innermost definition whose lines hold ``line`` (the shortest; the later on a tie)."""
    around = [s for s in symbols if s.first <= line <= s.last]
    return min(around, key=lambda s: (s.last - s.first, -s.first)) if around else None


def gap(symbols: tuple[Symbol, ...], outer: Symbol | None, line: int) -> int | None:
    """Where ``line`` lies outside every definition nested in ``outer`` (or outside every
    definition, with ``outer`` None) although ``outer`` has nested ones: the last line before the
    next definition (or the end of ``outer``); None when ``outer`` has no nested definitions."""
    depth = 0 if outer is None else outer.depth + 1
    inner = [
        s for s in symbols if s.depth == depth and (outer is None or (outer.first <= s.first and s.last <= outer.last))
    ]
    if outer is not None and not inner:
        return None
    after = [s.first for s in inner if s.first > line]
    return min(after) - 1 if after else (outer.last if outer is not None else 0)


@dataclass(frozen=True)
class Span:
    """Lines ``first..last`` a follow-up reads: one definition (``symbol``) or a window."""

    first: int
    last: int
    symbol: Symbol | None


def replaced_lines(file: FileSnapshot, old: str) -> range:
    """The lines of ``file`` an edit of ``old`` replaces: those of its first occurrence (empty
    when ``old`` is not in the file)."""
    text = "\n".join(file.lines)
    old = old.replace("\r\n", "\n")
    at = text.find(old) if old else -1
    if at < 0:
        return range(0)
    first = text.count("\n", 0, at) + 1
    last = first + old.rstrip("\n").count("\n")
    return range(first, last + 1)


class LeanreadOutline(Leanread):
    name = "leanread-outline"
    title = (
        "leanread, read mode auto: outlines for whole reads of big files, a follow-up read of the enclosing "
        "definition (or 40 lines) for each later-used line nothing had shown"
    )
    order = 95
    read_mode: ClassVar[str] = "auto"
    #: Charge follow-ups before later windows too (not only before edits).
    follow_windows: ClassVar[bool] = True

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.outlined: set[str] = set()
        self._outline_texts: dict[str, str] = {}  # call id → the outline it gave
        self._follow_calls: set[str] = set()
        self._ids = LineIds()
        self._used: dict[str, set[int]] = {}

    # --- reads ------------------------------------------------------------------------------

    def read(self, call: ReadCall) -> str:
        before: list[str] = []
        if call.path in self.outlined and not call.whole and self.follow_windows:
            first, lines, _ = window(call, MAX_BYTES, "")
            before = self._follow_ups(call.path, range(first, first + len(lines)), call.step, "read")
        text = self._read(call)
        return "\n".join([*before, text])

    def _read(self, call: ReadCall) -> str:
        result = self.session.read(call.path, offset=call.offset, limit=call.limit, mode=self.read_mode)
        meta = result.metadata
        if result.is_error or meta.get("type") != "outline":
            return self.checked(call, result)
        if meta.get("unchanged_since"):
            self.label = "stub"
            self.notes["reads: outline stub"] += 1
            self._check_stub(call, meta["unchanged_since"])
            return result.text
        self.label = "outline"
        self.notes["reads: outline"] += 1
        self.outlined.add(call.path)
        self._outline_texts[str(meta["call_id"])] = result.text
        self.check_held(call, result, apply_outline, "the outline", outline_line_chars(self.session.limits))
        self.notes["outline lines shown"] += int(meta["shown_lines"])  # its rows' lines, whole
        return result.text

    def _check_stub(self, call: ReadCall, earlier: list[str]) -> None:
        """An outline stub is true when the call it stands for gave the rows of the outline the
        file has now."""
        made = outline(call.path, call.file.lines)
        now, _ = render_outline(call.path, made, lambda n: call.file.lines[n - 1], self.session.limits)
        if any(outline_rows(self._outline_texts.get(c, "")) != outline_rows(now) for c in earlier):
            self._diverged(call, f"the outline stub points to {earlier}, which did not give this outline")

    # --- edits ------------------------------------------------------------------------------

    def apply(self, op: dict[str, Any]) -> tuple[bool, str]:
        path = str(op["path"])
        before: list[str] = []
        if op["op"] == "edit" and path in self.outlined:
            file = snapshot(self.root, path)
            if file is not None:
                before = self._follow_ups(path, replaced_lines(file, str(op["old"])), int(op.get("step", 0)), "edit")
        done, text = super().apply(op)
        return done, "\n".join([*before, text])

    # --- follow-ups -------------------------------------------------------------------------

    def _holds(self, path: str, file: FileSnapshot, n: int) -> tuple[bool, str]:
        """(the model holds line ``n`` as it is now, where from: ``outline``, ``other output``
        or ``follow-up``)."""
        view = self.views.get(path)
        if view is None:
            return False, "follow-up"
        if n in view.lines:
            text, calls = view.lines[n]
        else:  # the signature of the innermost outline row around n, if it is that line
            ranges = [r for r in view.loose if r[0] <= n <= r[1]]
            if not ranges:
                return False, "follow-up"
            text, calls = view.loose[min(ranges, key=lambda r: r[1] - r[0])]
        if text != cut_line(file.lines[n - 1], self.session.limits.max_line_chars):
            return False, "follow-up"
        if calls & self._outline_texts.keys():
            return True, "outline"
        return True, "other output" if calls - self._follow_calls else "follow-up"

    def _follow_ups(self, path: str, used: range, step: int, kind: str) -> list[str]:
        """Read what the model lacks of ``used`` (line numbers of the current version); return
        the follow-ups' texts."""
        file = snapshot(self.root, path)
        if file is None or not used:
            return []
        made = outline(path, file.lines)
        spans: list[Span] = []
        for n in used:
            if n > file.total:
                break
            blank = not file.lines[n - 1].strip()  # needs no read to be known
            if not blank and not any(s.first <= n <= s.last for s in spans) and not self._holds(path, file, n)[0]:
                spans.append(self._span(made, file, n))
        texts: list[str] = []
        if spans:
            text = self._follow_up(path, file, made, spans, step)
            self.notes[f"follow-up tokens: before {kind}s"] += count_tokens(text)
            texts.append(text)
        ids = self._ids.ids(path, file.lines)
        seen = self._used.setdefault(path, set())
        for n in range(used.start, min(used.stop, file.total + 1)):
            if ids[n - 1] not in seen and file.lines[n - 1].strip():
                seen.add(ids[n - 1])
                self.notes[f"used lines: {self._holds(path, file, n)[1]}"] += 1
        return texts

    @staticmethod
    def _span(made: Outline, file: FileSnapshot, n: int) -> Span:
        """What a follow-up for line ``n`` reads: the innermost definition around it, or the
        window from it to the next definition (at most WINDOW_LINES)."""
        listed = tuple(s for s in made.symbols if s.listed)  # the rows the model was shown
        symbol = enclosing(listed, n)
        end = gap(listed, symbol, n)
        if symbol is None or end is not None:
            return Span(n, n + max(1, min(WINDOW_LINES, (end or file.total) - n + 1)) - 1, None)
        return Span(symbol.first, symbol.last, symbol)

    def _open_ends(self, path: str, file: FileSnapshot, made: Outline) -> dict[int, int]:
        """The outline's rows that show one number (line → the line before the next row, or the
        file's last line): a model reads a definition of such a row up to there."""
        text, _ = render_outline(path, made, lambda n: file.lines[n - 1], self.session.limits)
        found = [m for row in outline_rows(text) if (m := OUTLINE_ROW.match(row))]
        starts = [int(m.group(1)) for m in found]
        following = [*starts[1:], file.total + 1]
        return {n: after - 1 for n, after, m in zip(starts, following, found, strict=True) if not m.group(2)}

    def _follow_up(self, path: str, file: FileSnapshot, made: Outline, spans: list[Span], step: int) -> str:
        """One read of ``spans``: every line between two of them is blank, held or in a span, as
        ``used`` is one run of lines, so a model reads them as one range (a lone definition by name)."""
        open_ends = self._open_ends(path, file, made) if any(s.symbol for s in spans) else {}
        first = min(s.first for s in spans)
        last = max(open_ends.get(s.symbol.line, s.last) if s.symbol else s.last for s in spans)
        call = ReadCall(path, first, last - first + 1, file, step)
        symbol = spans[0].symbol if len(spans) == 1 else None
        if symbol is None:
            how = "window" if len(spans) == 1 else "range"
        else:
            try:
                how = "symbol" if find_symbol(made, symbol.name, path) == symbol else "range"
            except InvalidArgument:
                how = "range"
        self.notes[f"follow-up reads: {how}"] += 1
        if how == "symbol" and symbol is not None:
            result = self.session.read(path, symbol=symbol.name)
        else:
            result = self.session.read(path, offset=call.offset, limit=call.limit)
        self._follow_calls.add(str(result.metadata.get("call_id")))
        return self.checked(call, result)
