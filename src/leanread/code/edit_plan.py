"""Find and apply one ``edit`` (old_string → new_string) on a file's logical text.

The logical text is the decoded file with ``"\\n"`` line endings, whatever the file uses:
``"\\n".join(lines) + ("\\n" if final_newline else "")`` of a ``TextFile``. ``writeback``
turns the result back into the file's own bytes. Everything here is pure: strings in, an
``EditPlan`` or an ``EditError`` out. Line numbers are 1-based.

The matching rules, tried in this order; the first that finds old_string wins:

=============================  ===============================================================
rule                           what it forgives
=============================  ===============================================================
``exact``                      nothing: old_string is a substring of the text
``line-endings``               CRLF or lone CR line endings in old_string and new_string
``line-numbers``               line-number prefixes copied from a ``read`` on every line
                               (``41\\t``, ``41: ``, ``    41\\t``, ``    41→``), numbered
                               consecutively; the match must start at a line start
(refused)                      the ``visible`` format's ``^I`` and ``$`` markers: MarkerInEdit
``whitespace``                 whole lines equal after stripping trailing whitespace, then
                               after also shifting the indentation uniformly (tabs or spaces,
                               deeper or shallower); new_string is re-indented the same way,
                               a line deeper than the match in the file's own characters
``line-numbers+whitespace``    both of the two above
=============================  ===============================================================

A later rule never runs when an earlier one matched, so copied line numbers are only stripped
when old_string as given is not in the file. Whatever the rule, new_string is refused when it
carries a display-only marker (``find_marker``) that old_string does not.

Bytes of a UTF-8 file that are not valid UTF-8 may be in the text as ``surrogateescape`` code
points (``TextFile.raw_lines``). Matching sees each as U+FFFD, as ``read`` shows it; when the
replacement keeps as many U+FFFD as the replaced text shows, they take back, in order, what they
stood for, so the bytes survive the edit.
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import accumulate
from typing import Literal

from ..errors import InvalidArgument, MarkerInEdit, MultipleMatches, NoChange, NoMatch

Rule = Literal["exact", "line-endings", "line-numbers", "whitespace", "line-numbers+whitespace"]

#: Lines of the file quoted at most in a NoMatch message.
MAX_QUOTED_LINES = 8
#: Characters of one quoted line at most in a NoMatch message.
MAX_QUOTED_CHARS = 200
#: Match lines listed at most in a MultipleMatches message.
MAX_LISTED_MATCHES = 10

# Finding the closest text for NoMatch: a word or line found in more lines than MAX_POSTINGS
# does not vote; at most MAX_WORDS words of old_string (the longest) are looked for; the
# MAX_CANDIDATES best-voted windows are compared line by line on MAX_SCORED_CHARS characters.
MAX_POSTINGS = 1000
MAX_WORDS = 200
MAX_CANDIDATES = 30
MAX_SCORED_CHARS = 200
# Without votes, a file of at most MAX_BRUTE_LINES (lines x old_string's lines) is compared
# window by window; a window less alike than MIN_BRUTE_SIMILARITY (0-1) is not quoted.
MAX_BRUTE_LINES = 20_000
MIN_BRUTE_SIMILARITY = 0.4
_WORD = re.compile(r"\w{2,}")


@dataclass(frozen=True)
class EditPlan:
    """One edit, planned on the logical text.

    Attributes:
        new_text: the whole logical text after the edit.
        rule: the matching rule that found old_string (see the module table).
        count: replacements made (1 unless replace_all).
        old_lines: 1-based inclusive line ranges of the old text that the edit replaced, in order.
        new_lines: the corresponding ranges of ``new_text``, pairwise with ``old_lines``; a range
            ``(n, n - 1)`` is empty: whole lines were removed and line ``n`` of the new text is
            the one that followed them.
        shift: columns the file's indentation differs from old_string's where the whitespace
            rule matched (negative: shallower; tabs at the tab width that made the match
            consistent); new_string was moved by as much unless ``kept_indent``; 0 for every
            other rule.
        kept_indent: new_string's first line already had the file's indentation of the matched
            first line, so new_string was taken as given rather than shifted.
    """

    new_text: str
    rule: Rule
    count: int
    old_lines: tuple[tuple[int, int], ...]
    new_lines: tuple[tuple[int, int], ...]
    shift: int = 0
    kept_indent: bool = False


# --- display-only markers ------------------------------------------------------------------------

_MarkerKind = Literal["cut", "omission", "clipped"]

# read's "… [line cut: 5,000 chars in all]" and grep's "… [line cut: match at column 2,401 of 5,008 chars; …]"
_CUT_RE = re.compile(r"(?:…|\.\.\.)? ?\[line cut: [^\]\n]*\][ \t]*$", re.MULTILINE)
_CLIPPED_RE = re.compile(r"<response clipped>", re.IGNORECASE)
# Whole lines leanread puts in place of lines it did not show: dedup and prune omission markers
# ("… lines 40-80 unchanged since you read them …", "… lines 12-30 omitted …"), the stub of an
# unchanged re-read, and the notices of a window or line that stops early.
_OMISSION_RES = (
    re.compile(
        r"^[ \t]*(?:…|\.\.\.)[ \t]*[(\[]?[ \t]*lines? \d[\d,]*(?:[ \t]*[-\u2013][ \t]*\d[\d,]*)?"
        r"[ \t,]+(?:unchanged|omitted|not shown)\b.*$",
        re.MULTILINE | re.IGNORECASE,
    ),
    re.compile(r"^[ \t]*\(Lines? \d+(?:-\d+)? unchanged since .*\)[ \t]*$", re.MULTILINE),
    re.compile(
        r"^[ \t]*\((?:Output capped at [^()]*?\. )?Showing (?:lines|entries) \d+-\d+ of \d+\. "
        r"Use offset=\d+ to continue\.\)[ \t]*$",
        re.MULTILINE,
    ),
    re.compile(
        r"^[ \t]*\(Lines? [\d, and more]+ (?:is|are) longer than .* cut where marked; .*\)[ \t]*$", re.MULTILINE
    ),
    # the other notices and the envelope of a tool result, pasted whole into a file
    re.compile(
        r"^[ \t]*\((?:End of (?:file|directory|line) |Empty (?:file|directory) - 0 |File (?:is|uses) .*"
        r"(?:encoded|line endings|not valid UTF-8)|Outline of a [\d,]+-line |Head and tail of a [\d,]+-line |"
        r"[^()\n]* changed since you read it[.;] ).*\)[ \t]*$",
        re.MULTILINE,
    ),
    re.compile(r"^[ \t]*(?:<path>.*</path>|<type>[a-z]+</type>|</?content>|</?system-reminder>)[ \t]*$", re.MULTILINE),
)


def _markers(text: str) -> list[tuple[_MarkerKind, str]]:
    """Every display-only marker in ``text`` with its kind, in order."""
    found: list[tuple[int, _MarkerKind, str]] = []
    found.extend((m.start(), "cut", m.group().strip()) for m in _CUT_RE.finditer(text))
    found.extend((m.start(), "clipped", m.group()) for m in _CLIPPED_RE.finditer(text))
    for pattern in _OMISSION_RES:
        found.extend((m.start(), "omission", m.group().strip()) for m in pattern.finditer(text))
    return [(kind, marker) for _, kind, marker in sorted(found)]


def find_marker(text: str) -> str | None:
    """The first display-only marker of leanread in ``text``, or None.

    Markers: the read tool's line-cut marker at the end of a line (``… [line cut: 5,000 chars in
    all]``); a whole line that stands for lines left out (``… lines 40-80 unchanged since you read
    them …``, ``… lines 12-30 omitted …``, the ``(Lines 1-120 unchanged since …)`` stub, the
    ``(Showing lines 1-2000 of 5000. Use offset=2001 to continue.)`` and line-cut notices); and
    ``<response clipped>`` anywhere. The same words inside a string literal or a comment of code
    do not count: only the shapes leanread emits.
    """
    found = _markers(text)
    return found[0][1] if found else None


def _shorten(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def refuse_markers(text: str, *, argument: str = "new_string", allowed: str = "") -> None:
    """Raise MarkerInEdit when ``text`` carries a display-only marker (``find_marker``) that
    ``allowed`` does not also contain (the text being replaced may hold it for real).

    ``argument`` names the text in the message (``new_string``, ``content``, ``old_string``).

    Raises:
        MarkerInEdit: one sentence naming the marker and what to write instead.
    """
    refused = [(kind, marker) for kind, marker in _markers(text) if marker not in allowed]
    if not refused:
        return
    kind, marker = refused[0]
    if kind == "cut":
        raise MarkerInEdit(
            f'{argument} contains the read tool\'s line-cut marker "{_shorten(marker)}", which stands for text you '
            "were not shown; read the rest of that line with char_offset and give the line in full."
        )
    if kind == "clipped":
        raise MarkerInEdit(
            f'{argument} contains a "{marker}" marker, which stands for text cut from a tool result; '
            "give the full text instead."
        )
    raise MarkerInEdit(
        f'{argument} contains leanread\'s marker "{_shorten(marker)}", which stands for lines left out of a '
        "read; give the real lines instead (read them with fresh=true if you no longer have them)."
    )


# --- the visible format ---------------------------------------------------------------------------

_VISIBLE_LINE = re.compile(r" *\d+\t.*\$")
_CARET_CONTROL = re.compile(r"\^[IM]")


def _visible_copy(new: str, old: str, text: str) -> bool:
    """``new`` carries a caret marker (``^I``, ``^M``) neither old_string nor the file holds, or
    every one of its lines ends with a ``$`` that the lines it replaces do not have."""
    if _CARET_CONTROL.search(new) and not _CARET_CONTROL.search(old) and not _CARET_CONTROL.search(text):
        return True
    new_lines = [line for line in new.split("\n") if line]
    old_lines = [line for line in old.split("\n") if line]
    return (
        bool(new_lines)
        and all(line.endswith("$") for line in new_lines)
        and not any(line.endswith("$") for line in old_lines)
    )


def _split_ending(text: str) -> tuple[list[str], bool]:
    """Lines of ``text`` without endings, and whether it ends with ``"\\n"`` (which adds no
    empty line; "" is one empty line)."""
    lines = text.split("\n")
    ending = len(lines) > 1 and lines[-1] == ""
    if ending:
        lines.pop()
    return lines, ending


def _lines_of(text: str) -> list[str]:
    """Lines of ``text`` without endings (see ``_split_ending``)."""
    return _split_ending(text)[0]


def _visible_decorated(text: str) -> bool:
    """Every line carries the visible format's decoration (``  41\\tcode$``)."""
    return all(_VISIBLE_LINE.fullmatch(line) for line in _lines_of(text))


def _visible_markers(text: str) -> bool:
    """``text`` looks like a copy of ``visible`` output: decorated lines, ``^I``/``^M``, or
    ``$`` ending each of several lines."""
    lines = _lines_of(text)
    if _visible_decorated(text) or _CARET_CONTROL.search(text):
        return True
    return len(lines) >= 2 and all(line.endswith("$") for line in lines)


# --- copied line numbers ---------------------------------------------------------------------------

# One family per prefix shape; leanread's tab and catn (and visible) formats share "number + tab".
_FAMILIES: tuple[tuple[re.Pattern[str], re.Pattern[str] | None], ...] = (
    (re.compile(r" *(\d+)→"), None),  # Claude Code: "    41→code"
    (re.compile(r" *(\d+)\t"), re.compile(r" *(\d+)")),  # tab "41\tcode", catn "    41\tcode"
    (re.compile(r" *(\d+):(?: |$)"), None),  # colon "41: code"
)


@dataclass(frozen=True)
class _Numbered:
    """old_string with its copied line numbers taken off."""

    family: int
    first: int
    text: str


def _take_prefix(line: str, family: int) -> tuple[int, str] | None:
    """``(number, rest)`` when ``line`` carries the family's prefix; a bare number (a numbered
    empty line whose tab was trimmed) counts as an empty line."""
    prefix, bare = _FAMILIES[family]
    if match := prefix.match(line):
        return int(match.group(1)), line[match.end() :]
    if bare is not None and (match := bare.fullmatch(line)):
        return int(match.group(1)), ""
    return None


def _strip_numbers(old: str) -> _Numbered | None:
    """old_string without copied line-number prefixes, when every non-blank line carries the
    same family's prefix and the numbers are consecutive (blank lines may have lost theirs)."""
    lines, ending = _split_ending(old)
    for family in range(len(_FAMILIES)):
        first: int | None = None
        out: list[str] = []
        for index, line in enumerate(lines):
            taken = _take_prefix(line, family)
            if taken is None:
                if line.strip():
                    break
                out.append(line)
                continue
            number, rest = taken
            if first is None:
                first = number - index
            if number != first + index:
                break
            out.append(rest)
        else:
            if first is not None and first >= 1 and any(_FAMILIES[family][0].match(line) for line in lines):
                return _Numbered(family, first, "\n".join(out) + ("\n" if ending else ""))
    return None


def _strip_new_numbers(new: str, numbered: _Numbered, old_height: int) -> str:
    """new_string without the prefixes of old_string's family: taken off when every non-blank line
    carries one numbered near old_string's lines, kept when none does.

    Raises:
        MarkerInEdit: only some lines carry a prefix, so neither reading is safe.
    """
    lines, ending = _split_ending(new)
    prefix, _ = _FAMILIES[numbered.family]
    low, high = numbered.first - len(lines), numbered.first + old_height + len(lines)
    out: list[str] = []
    decorated = plain = 0
    for line in lines:
        taken = _take_prefix(line, numbered.family)
        if taken is not None and low <= taken[0] <= high:
            out.append(taken[1])
            decorated += bool(prefix.match(line))  # a bare number may be either: it does not decide
        else:
            out.append(line)
            plain += bool(line.strip())
    if decorated == 0:
        return new
    if plain:
        raise MarkerInEdit(
            "new_string has copied line-number prefixes on some lines but not on others; "
            "give new_string as plain text, without line numbers."
        )
    return "\n".join(out) + ("\n" if ending else "")


# --- finding and applying matches ------------------------------------------------------------------

# A match: (start, end, replacement) in the logical text.
_Match = tuple[int, int, str]
# 1-based inclusive line ranges.
_Ranges = tuple[tuple[int, int], ...]


def _positions(text: str, old: str, *, overlapping: bool, line_start: bool = False) -> list[int]:
    """Start offsets of ``old`` in ``text``; with ``line_start`` only those at the start of a line."""
    found: list[int] = []
    start = text.find(old)
    while start != -1:
        if not line_start or start == 0 or text[start - 1] == "\n":
            found.append(start)
            step = 1 if overlapping else len(old)
        else:
            step = 1
        start = text.find(old, start + step)
    return found


def _line_numbers(text: str, offsets: Sequence[int]) -> list[int]:
    """1-based line numbers of ascending ``offsets`` in ``text``."""
    numbers: list[int] = []
    line, prev = 1, 0
    for offset in offsets:
        line += text.count("\n", prev, offset)
        prev = offset
        numbers.append(line)
    return numbers


def _too_many(count: int, lines: Sequence[int]) -> MultipleMatches:
    unique = list(dict.fromkeys(lines))
    shown = ", ".join(str(n) for n in unique[:MAX_LISTED_MATCHES])
    if len(unique) > MAX_LISTED_MATCHES:
        shown += f" and {len(unique) - MAX_LISTED_MATCHES} more"
    noun = "line" if len(unique) == 1 else "lines"
    return MultipleMatches(
        f"old_string matches {count} places ({noun} {shown}); "
        "add surrounding lines to make it unique, or pass replace_all=true."
    )


def _apply(text: str, matches: Sequence[_Match]) -> tuple[str, _Ranges, _Ranges]:
    """The text with ``matches`` (ascending, not overlapping, non-empty) replaced, and the line
    ranges touched in the old and the new text (merged where they share a line).

    A line is touched when any of its characters, or its line ending, was replaced, or when it was
    joined onto such a line; in the new text, the line the rest of the last matched old line ends
    up on counts too, unless that rest is whole untouched lines starting a fresh line. So the
    lines before and after the ranges are the same in both texts."""
    pieces: list[str] = []
    old_ranges: list[tuple[int, int]] = []
    new_ranges: list[tuple[int, int]] = []
    prev, old_line, new_line = 0, 1, 1
    last_char = ""  # the last character of the new text so far
    for start, end, replacement in matches:
        gap = text.count("\n", prev, start)
        old_line += gap
        new_line += gap
        before = text[prev:start]
        pieces.append(before)
        pieces.append(replacement)
        last_char = (before + replacement)[-1:] or last_char
        old_last = old_line + text.count("\n", start, end - 1)
        after = new_line + replacement.count("\n")  # the line the rest of the old line lands on
        if text[end - 1] == "\n" or end == len(text):
            if last_char in ("", "\n"):
                after -= 1  # the rest is whole untouched lines, starting a fresh line
            elif end < len(text):
                old_last += 1  # the next line is joined onto the changed one
        old_range, new_range = (old_line, old_last), (new_line, after)
        if old_ranges and old_range[0] <= old_ranges[-1][1]:
            old_ranges[-1] = (old_ranges[-1][0], max(old_ranges[-1][1], old_range[1]))
            new_ranges[-1] = (min(new_ranges[-1][0], new_range[0]), max(new_ranges[-1][1], new_range[1]))
        else:
            old_ranges.append(old_range)
            new_ranges.append(new_range)
        old_line += text.count("\n", start, end)
        new_line += replacement.count("\n")
        prev = end
    pieces.append(text[prev:])
    return "".join(pieces), tuple(old_ranges), tuple(new_ranges)


def _substring_matches(
    text: str, old: str, new: str, *, replace_all: bool, line_start: bool = False, prefer_line: int | None = None
) -> list[_Match] | None:
    """Matches of ``old`` as a substring, or None when there is none.

    Raises:
        MultipleMatches: several and not ``replace_all``, unless exactly one starts on line
            ``prefer_line`` (the line number old_string was copied with).
    """
    if replace_all:
        starts = _positions(text, old, overlapping=False, line_start=line_start)
        return [(s, s + len(old), new) for s in starts] or None
    starts = _positions(text, old, overlapping=True, line_start=line_start)
    if not starts:
        return None
    if len(starts) > 1:
        lines = _line_numbers(text, starts)
        preferred = [s for s, n in zip(starts, lines, strict=True) if n == prefer_line]
        if len(preferred) != 1:
            raise _too_many(len(starts), lines)
        starts = preferred
    return [(starts[0], starts[0] + len(old), new)]


# --- the whitespace-tolerant rule ------------------------------------------------------------------

_TAB_SIZES = (4, 8, 2)


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _width(indent: str, tab: int) -> int:
    column = 0
    for char in indent:
        column = (column // tab + 1) * tab if char == "\t" else column + 1
    return column


@dataclass(frozen=True)
class _Shift:
    """How old_string's indentation maps onto the file's in one window."""

    tab: int
    delta: int
    style: str  # "tab", "space", or "" when the window shows none
    mapping: dict[str, str]


_SAME = _Shift(tab=4, delta=0, style="", mapping={})


def _window_shift(file_lines: Sequence[str], start: int, old_lines: Sequence[str], indent: bool) -> _Shift | None:
    """How old_lines match file_lines from ``start``: equal after stripping trailing whitespace
    (``indent=False``), or also with indentation shifted uniformly (``indent=True``)."""
    window = file_lines[start : start + len(old_lines)]
    if not indent:
        ok = all(f.rstrip() == o.rstrip() for f, o in zip(window, old_lines, strict=True))
        return _SAME if ok else None
    pairs: list[tuple[str, str]] = []
    for f, o in zip(window, old_lines, strict=True):
        f_text, o_text = f.strip(), o.strip()
        if f_text != o_text:
            return None
        if f_text:
            pairs.append((_indent(f), _indent(o)))
    # Of the tab widths that make the shift uniform, one that needs no shift explains it best.
    uniform = [
        (tab, d.pop()) for tab in _TAB_SIZES if len(d := {_width(f, tab) - _width(o, tab) for f, o in pairs}) == 1
    ]
    if not uniform:
        return None
    tab, delta = next((found for found in uniform if found[1] == 0), uniform[0])
    used = "".join(f for f, _ in pairs)
    style = "tab" if "\t" in used else "space" if used else ""
    mapping: dict[str, str] = {}
    for f, o in pairs:
        mapping.setdefault(o, f)
    return _Shift(tab=tab, delta=delta, style=style, mapping=mapping)


def _file_style(file_lines: Sequence[str]) -> str:
    """``tab`` or ``space``: what the file's first indented line starts with; "" when none is."""
    first = next((line[0] for line in file_lines if line[:1] in ("\t", " ") and line.strip()), "")
    return {"\t": "tab", " ": "space"}.get(first, "")


def _reindent(line: str, shift: _Shift) -> str:
    """``line`` with old_string's indentation turned into the file's: an indentation old_string
    has takes the file's text for it; another is moved by the shift and written on from the
    deepest file indentation of the window it covers, in that indentation's own characters."""
    if not line.strip():
        return line
    indent = _indent(line)
    if indent in shift.mapping:
        return shift.mapping[indent] + line[len(indent) :]
    width = max(0, _width(indent, shift.tab) + shift.delta)
    bases = [f for f in shift.mapping.values() if _width(f, shift.tab) <= width]
    base = max(bases, key=lambda f: _width(f, shift.tab), default="")
    tabs = base.endswith("\t") if base else (shift.style or ("tab" if "\t" in indent else "space")) == "tab"
    extra = width - _width(base, shift.tab)
    rendered = "\t" * (extra // shift.tab) + " " * (extra % shift.tab) if tabs else " " * extra
    return base + rendered + line[len(indent) :]


def _replacement(file_window: Sequence[str], old_lines: Sequence[str], new: str, shift: _Shift, indent: bool) -> str:
    """new_string for one window: lines equal to old_string's take the file's own text back;
    the others are re-indented by the window's shift."""
    new_lines, ending = _split_ending(new)
    out = [_reindent(line, shift) if indent else line for line in new_lines]
    matcher = difflib.SequenceMatcher(None, list(old_lines), new_lines, autojunk=False)
    for i, j, size in matcher.get_matching_blocks():
        out[j : j + size] = file_window[i : i + size]
    return "\n".join(out) + ("\n" if ending else "")


def _keeps_file_indent(window: Sequence[str], old_lines: Sequence[str], new: str) -> bool:
    """new_string's first non-blank line starts with the file's indentation of the window's first
    non-blank line while old_string's did not: the model wrote new_string in the file's
    indentation and only old_string's was off, so shifting new_string would misplace it."""
    new_first = next((line for line in _split_ending(new)[0] if line.strip()), None)
    pairs = [(f, o) for f, o in zip(window, old_lines, strict=True) if f.strip()]
    if new_first is None or not pairs:
        return False
    file_first, old_first = pairs[0]
    return _indent(new_first) == _indent(file_first) != _indent(old_first)


def _whitespace_matches(
    text: str, old: str, new: str, *, replace_all: bool, prefer_line: int | None = None
) -> tuple[list[_Match], int, bool] | None:
    """Whole-line matches of old_string, forgiving whitespace (see ``_window_shift``), with the
    columns the file's indentation differs from old_string's at the first match, and whether
    new_string was kept as given there (``_keeps_file_indent``); or None.

    Raises:
        MultipleMatches: several windows match and not ``replace_all``, unless exactly one starts
            on line ``prefer_line``.
    """
    old_lines, old_ending = _split_ending(old)
    if not any(line.strip() for line in old_lines):
        return None
    file_lines = _lines_of(text)
    starts = list(accumulate((len(line) + 1 for line in file_lines), initial=0))
    height = len(old_lines)
    key_index = next(i for i, line in enumerate(old_lines) if line.strip())
    last_start = len(file_lines) - height
    for indent in (False, True):
        # Only windows whose line facing old_string's first non-blank line agrees can match.
        key = old_lines[key_index].strip() if indent else old_lines[key_index].rstrip()
        facing = (
            [j for j, line in enumerate(file_lines) if line.strip() == key]
            if indent
            else [j for j, line in enumerate(file_lines) if line.rstrip() == key]
        )
        found: list[tuple[int, _Shift]] = []
        free = 0  # with replace_all, matches do not overlap
        for start in (j - key_index for j in facing):
            if start < free or start > last_start:
                continue
            shift = _window_shift(file_lines, start, old_lines, indent)
            if shift is not None and not shift.style:  # the window shows no indentation: the file's
                shift = replace(shift, style=_file_style(file_lines))
            if shift is not None:
                found.append((start, shift))
                free = start + height if replace_all else 0
        if not found:
            continue
        if len(found) > 1 and not replace_all:
            preferred = [(start, shift) for start, shift in found if start + 1 == prefer_line]
            if len(preferred) != 1:
                raise _too_many(len(found), [start + 1 for start, _ in found])
            found = preferred
        matches: list[_Match] = []
        kept: list[bool] = []
        for start, shift in found:
            last = start + height - 1
            begin, end = starts[start], starts[last] + len(file_lines[last])
            window = file_lines[start : last + 1]
            kept.append(indent and shift.delta != 0 and _keeps_file_indent(window, old_lines, new))
            as_given = replace(shift, delta=0, mapping={}) if kept[-1] else shift
            replacement = _replacement(window, old_lines, new, as_given, indent)
            if old_ending:
                if end < len(text):
                    end += 1  # the line ending after the window
                elif replacement.endswith("\n"):
                    replacement = replacement[:-1]  # the file has no final newline: add none
            matches.append((begin, end, replacement))
        return matches, found[0][1].delta, kept[0]
    return None


# --- the closest text, for NoMatch -----------------------------------------------------------------


def _closest(text: str, file_lines: Sequence[str], old_lines: Sequence[str]) -> tuple[int, int] | None:
    """0-based inclusive ``(first, last)`` of the window of ``file_lines`` (the lines of
    ``text``) most like ``old_lines``, of the same height; None when nothing is alike.

    Candidate windows come from votes, each weighted by its rarity: old lines found whole in the
    file, and words (``\\w{2,}``) of old lines found anywhere, vote for the window that would
    align them. The best-voted windows are ranked by the mean line-by-line similarity. Without
    votes, a small file is searched window by window.
    """
    total = len(file_lines)
    height = min(len(old_lines), total)
    if height == 0:
        return None
    votes: dict[int, float] = {}

    def vote(index: int, spots: Sequence[int], weight: float) -> None:
        if len(spots) > MAX_POSTINGS:
            return  # too common to tell windows apart
        for spot in spots:
            start = min(max(spot - index, 0), total - height)
            votes[start] = votes.get(start, 0.0) + weight / len(spots)

    wanted = {line.strip() for line in old_lines} - {""}
    if not wanted:
        return None  # only whitespace: nothing to compare
    where: dict[str, list[int]] = {}
    for number, line in enumerate(file_lines):
        if (key := line.strip()) in wanted:
            where.setdefault(key, []).append(number)
    words_at: dict[str, list[int]] = {}
    for index, line in enumerate(old_lines):
        for word in set(_WORD.findall(line)):
            words_at.setdefault(word, []).append(index)
    words = sorted(words_at, key=lambda word: (-len(word), word))[:MAX_WORDS]
    postings: dict[str, list[int]] = {}
    if words:
        starts = list(accumulate((len(line) + 1 for line in file_lines), initial=0))
        pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, words)) + r")\b")
        for match in pattern.finditer(text):
            spots = postings.setdefault(match.group(), [])
            if len(spots) <= MAX_POSTINGS:
                number = bisect.bisect_right(starts, match.start()) - 1
                if not spots or spots[-1] != number:
                    spots.append(number)
    for index, line in enumerate(old_lines):
        if (key := line.strip()) in where:
            vote(index, where[key], 2.0)
    for word in words:
        if word in postings:
            for index in words_at[word]:
                vote(index, postings[word], 1.0)
    wanted_lines = [line.strip()[:MAX_SCORED_CHARS] for line in old_lines[:height]]

    def score(start: int) -> tuple[float, int]:
        similar = sum(
            difflib.SequenceMatcher(None, file_lines[start + i].strip()[:MAX_SCORED_CHARS], want).ratio()
            for i, want in enumerate(wanted_lines)
        )
        return similar / height, -start

    if votes:
        best = max(sorted(votes, key=lambda start: (-votes[start], start))[:MAX_CANDIDATES], key=score)
    elif total * height <= MAX_BRUTE_LINES:
        # Nothing shared word for word (a typo in every word, one-letter words): a small file is
        # searched whole, and its best window quoted only when it is fairly alike.
        best = max(range(total - height + 1), key=score)
        if score(best)[0] < MIN_BRUTE_SIMILARITY:
            return None
    else:
        return None
    return best, best + height - 1


def _no_match(text: str, old_lines: Sequence[str], display: str) -> NoMatch:
    file_lines = _lines_of(text) if text else []
    if not file_lines:
        return NoMatch(f"old_string was not found in {display}, which is empty; use write to give it content.")
    window = _closest(text, file_lines, old_lines)
    if window is None:
        return NoMatch(
            f"old_string was not found in {display}, and no text in it comes close; "
            "read the lines you mean to change and copy old_string from them exactly."
        )
    first, last = window
    span = f"line {first + 1}" if first == last else f"lines {first + 1}-{last + 1}"
    height = last - first + 1
    shown = f"first {MAX_QUOTED_LINES} of {height} shown; " if height > MAX_QUOTED_LINES else ""
    quote = []
    for number in range(first, min(last, first + MAX_QUOTED_LINES - 1) + 1):
        line = file_lines[number]
        if len(line) > MAX_QUOTED_CHARS:
            line = line[:MAX_QUOTED_CHARS] + f"… ({len(line)} chars in all)"
        quote.append(f"{number + 1}: {line}")
    return NoMatch(
        f"old_string was not found in {display}; the closest text is at {span} "
        f"({shown}copy old_string exactly from the file's lines):\n" + "\n".join(quote)
    )


# --- the cascade -----------------------------------------------------------------------------------


# A byte kept by ``surrogateescape``, and how read shows it.
_ESCAPED = re.compile("[\udc80-\udcff]")
_REPLACEMENT = "\ufffd"


def _restore_escapes(raw: str, view: str, replacement: str) -> str:
    """``replacement`` with its U+FFFD turned back into what ``view``'s stood for in ``raw``, in
    order, when it has as many as ``view`` (``view`` is ``raw`` with escapes shown as U+FFFD)."""
    kept = [raw[i] for i, char in enumerate(view) if char == _REPLACEMENT]
    if kept == [_REPLACEMENT] * len(kept) or replacement.count(_REPLACEMENT) != len(kept):
        return replacement
    stood_for = iter(kept)
    return "".join(next(stood_for) if char == _REPLACEMENT else char for char in replacement)


def _normalise_endings(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _plan(text: str, view: str, rule: Rule, matches: Sequence[_Match]) -> EditPlan:
    if view is not text:
        matches = [(s, e, _restore_escapes(text[s:e], view[s:e], r)) for s, e, r in matches]
    new_text, old_ranges, new_ranges = _apply(text, matches)
    if new_text == text:
        raise NoChange("old_string and new_string are the same; nothing to change.")
    return EditPlan(new_text=new_text, rule=rule, count=len(matches), old_lines=old_ranges, new_lines=new_ranges)


#: The refusal of an empty old_string, whether or not the file exists.
EMPTY_OLD_STRING = "old_string is empty; to create or overwrite a file use write."


def plan_edit(text: str, old: str, new: str, *, replace_all: bool = False, display: str = "the file") -> EditPlan:
    """Replace old_string by new_string in the logical ``text`` (``"\\n"`` line endings).

    Args:
        text: the file's logical text (with ``surrogateescape`` code points for bytes that are
            not valid UTF-8, if any; see the module docstring).
        old: old_string, the text to replace; may carry copied line numbers or other line
            endings (see the module table).
        new: new_string, the replacement.
        replace_all: replace every match instead of requiring exactly one.
        display: the path as the model knows it, for messages.

    Returns:
        The plan: new text, the rule that matched, the count and the line ranges touched.

    Raises:
        InvalidArgument: old_string is empty.
        NoChange: old_string and new_string are the same, or the edit leaves the text as it was.
        MarkerInEdit: new_string carries a display-only marker (``find_marker``, the visible
            format's decorations, line numbers on some lines only), or old_string the visible
            format's markers or a marker it could only have copied from a tool result.
        MultipleMatches: several matches and not ``replace_all`` (their lines are listed).
        NoMatch: no rule finds old_string (the closest lines are quoted).
    """
    if not old:
        raise InvalidArgument(EMPTY_OLD_STRING)
    if old == new:
        raise NoChange("old_string and new_string are the same; nothing to change.")
    refuse_markers(new, allowed=old)
    if (_visible_decorated(new) and not _visible_decorated(old)) or _visible_copy(new, old, text):
        raise MarkerInEdit(
            "new_string contains the visible format's markers (^I, $); they are display only: "
            "give new_string as plain text instead."
        )
    # A CR in new_string can only mean a line ending unless the file itself holds CRs.
    plain_new = new if "\r" in text else _normalise_endings(new)
    # Rules match on the text as read shows it; it has the same length, so offsets carry over.
    view = _ESCAPED.sub(_REPLACEMENT, text) if _ESCAPED.search(text) else text

    matches = _substring_matches(view, old, plain_new, replace_all=replace_all)
    if matches:
        return _plan(text, view, "exact", matches)

    old_n, new_n = _normalise_endings(old), _normalise_endings(new)
    if old_n != old and (matches := _substring_matches(view, old_n, new_n, replace_all=replace_all)):
        return _plan(text, view, "line-endings", matches)

    numbered = _strip_numbers(old_n)
    stripped = numbered is not None and bool(numbered.text.strip())
    if numbered is not None and stripped:
        height = len(_lines_of(numbered.text))
        new_s = _strip_new_numbers(new_n, numbered, height)
        refuse_markers(new_s, allowed=numbered.text)
        matches = _substring_matches(
            view, numbered.text, new_s, replace_all=replace_all, line_start=True, prefer_line=numbered.first
        )
        if matches:
            return _plan(text, view, "line-numbers", matches)
        old_n, new_n = numbered.text, new_s

    if _visible_markers(old):
        raise MarkerInEdit(
            "old_string contains the visible format's markers (^I, $); they are display only: "
            "copy the text from a plain read instead (read with fresh=true if a plain read gives a stub)."
        )

    first = numbered.first if numbered is not None and stripped else None
    loose = _whitespace_matches(view, old_n, new_n, replace_all=replace_all, prefer_line=first)
    if loose:
        rule: Rule = "line-numbers+whitespace" if stripped else "whitespace"
        return replace(_plan(text, view, rule, loose[0]), shift=loose[1], kept_indent=loose[2])

    refuse_markers(old, argument="old_string")
    raise _no_match(view, _lines_of(old_n), display)
