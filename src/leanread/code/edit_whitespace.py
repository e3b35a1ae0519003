"""The whitespace-tolerant rule of an edit: whole lines equal after stripping trailing
whitespace, then after shifting the indentation uniformly; new_string re-indented alike. Pure."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import accumulate

from .edit_match import Match, too_many
from .edit_text import lines_of, split_ending

# --- the whitespace-tolerant rule ------------------------------------------------------------------

_TAB_SIZES = (4, 8, 2)


def leading_space(line: str) -> str:
    """The spaces and tabs ``line`` starts with."""
    return line[: len(line) - len(line.lstrip())]


def indent_width(indent: str, tab: int) -> int:
    """Columns ``indent`` (spaces and tabs) spans, tabs stopping every ``tab`` columns."""
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
            pairs.append((leading_space(f), leading_space(o)))
    # Of the tab widths that make the shift uniform, one that needs no shift explains it best.
    uniform = [
        (tab, d.pop())
        for tab in _TAB_SIZES
        if len(d := {indent_width(f, tab) - indent_width(o, tab) for f, o in pairs}) == 1
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
    indent = leading_space(line)
    if indent in shift.mapping:
        return shift.mapping[indent] + line[len(indent) :]
    width = max(0, indent_width(indent, shift.tab) + shift.delta)
    bases = [f for f in shift.mapping.values() if indent_width(f, shift.tab) <= width]
    base = max(bases, key=lambda f: indent_width(f, shift.tab), default="")
    tabs = base.endswith("\t") if base else (shift.style or ("tab" if "\t" in indent else "space")) == "tab"
    extra = width - indent_width(base, shift.tab)
    rendered = "\t" * (extra // shift.tab) + " " * (extra % shift.tab) if tabs else " " * extra
    return base + rendered + line[len(indent) :]


def _replacement(file_window: Sequence[str], old_lines: Sequence[str], new: str, shift: _Shift, indent: bool) -> str:
    """new_string for one window: lines equal to old_string's take the file's own text back;
    the others are re-indented by the window's shift."""
    new_lines, ending = split_ending(new)
    out = [_reindent(line, shift) if indent else line for line in new_lines]
    matcher = difflib.SequenceMatcher(None, list(old_lines), new_lines, autojunk=False)
    for i, j, size in matcher.get_matching_blocks():
        out[j : j + size] = file_window[i : i + size]
    return "\n".join(out) + ("\n" if ending else "")


def _keeps_file_indent(window: Sequence[str], old_lines: Sequence[str], new: str) -> bool:
    """new_string's first non-blank line starts with the file's indentation of the window's first
    non-blank line while old_string's did not: the model wrote new_string in the file's
    indentation and only old_string's was off, so shifting new_string would misplace it."""
    new_first = next((line for line in split_ending(new)[0] if line.strip()), None)
    pairs = [(f, o) for f, o in zip(window, old_lines, strict=True) if f.strip()]
    if new_first is None or not pairs:
        return False
    file_first, old_first = pairs[0]
    return leading_space(new_first) == leading_space(file_first) != leading_space(old_first)


def whitespace_matches(
    text: str, old: str, new: str, *, replace_all: bool, prefer_line: int | None = None
) -> tuple[list[Match], int, bool, int] | None:
    """Whole-line matches of old_string, forgiving whitespace (see ``_window_shift``), with the
    columns the file's indentation differs from old_string's at the first match, whether
    new_string was kept as given there (``_keeps_file_indent``), and the tab width those columns
    are counted at; or None.

    Raises:
        MultipleMatches: several windows match and not ``replace_all``, unless exactly one starts
            on line ``prefer_line``.
    """
    old_lines, old_ending = split_ending(old)
    if not any(line.strip() for line in old_lines):
        return None
    file_lines = lines_of(text)
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
                raise too_many(len(found), [start + 1 for start, _ in found])
            found = preferred
        matches: list[Match] = []
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
        return matches, found[0][1].delta, kept[0], found[0][1].tab
    return None
