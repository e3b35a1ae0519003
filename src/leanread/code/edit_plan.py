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

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from ..errors import InvalidArgument, MarkerInEdit, NoChange
from .edit_closest import no_match
from .edit_markers import find_marker, refuse_markers, visible_copy, visible_decorated, visible_markers
from .edit_match import Match, apply_matches, substring_matches
from .edit_numbers import strip_new_numbers, strip_numbers
from .edit_text import lines_of
from .edit_whitespace import whitespace_matches

__all__ = ["EMPTY_OLD_STRING", "EditPlan", "Rule", "find_marker", "plan_edit", "refuse_markers"]

Rule = Literal["exact", "line-endings", "line-numbers", "whitespace", "line-numbers+whitespace"]


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
        tab: the tab width ``shift`` is counted at.
        kept_indent: new_string's first line already had the file's indentation of the matched
            first line, so new_string was taken as given rather than shifted.
        given: new_string as the rule took it (line endings as ``"\\n"``, copied line numbers
            taken off), before any re-indentation: what the model expects written, but for
            ``shift``.
    """

    new_text: str
    rule: Rule
    count: int
    old_lines: tuple[tuple[int, int], ...]
    new_lines: tuple[tuple[int, int], ...]
    shift: int = 0
    tab: int = 4
    kept_indent: bool = False
    given: str = field(default="", compare=False)

    @property
    def old_span(self) -> tuple[int, int]:
        """The first and last line of the old text the edit replaced (1-based)."""
        return min(a for a, _ in self.old_lines), max(b for _, b in self.old_lines)

    @property
    def new_span(self) -> tuple[int, int]:
        """The first and last line of the new text it wrote (``(n, n - 1)`` when it wrote none)."""
        return min(a for a, _ in self.new_lines), max(b for _, b in self.new_lines)


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


def _plan(text: str, view: str, rule: Rule, matches: Sequence[Match]) -> EditPlan:
    if view is not text:
        matches = [(s, e, _restore_escapes(text[s:e], view[s:e], r)) for s, e, r in matches]
    new_text, old_ranges, new_ranges = apply_matches(text, matches)
    if new_text == text:
        raise NoChange("old_string and new_string are the same; nothing to change.")
    return EditPlan(new_text=new_text, rule=rule, count=len(matches), old_lines=old_ranges, new_lines=new_ranges)


#: The refusal of an empty old_string, whether or not the file exists.
EMPTY_OLD_STRING = "old_string is empty; to create or overwrite a file use write."


def plan_edit(text: str, old: str, new: str, *, replace_all: bool = False) -> EditPlan:
    """Replace old_string by new_string in the logical ``text`` (``"\\n"`` line endings).

    Args:
        text: the file's logical text (with ``surrogateescape`` code points for bytes that are
            not valid UTF-8, if any; see the module docstring).
        old: old_string, the text to replace; may carry copied line numbers or other line
            endings (see the module table).
        new: new_string, the replacement.
        replace_all: replace every match instead of requiring exactly one.

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
    if (visible_decorated(new) and not visible_decorated(old)) or visible_copy(new, old, text):
        raise MarkerInEdit(
            "new_string contains the visible format's markers (^I, $); they are display only: "
            "give new_string as plain text instead."
        )
    # A CR in new_string can only mean a line ending unless the file itself holds CRs.
    plain_new = new if "\r" in text else _normalise_endings(new)
    # Rules match on the text as read shows it; it has the same length, so offsets carry over.
    view = _ESCAPED.sub(_REPLACEMENT, text) if _ESCAPED.search(text) else text

    matches = substring_matches(view, old, plain_new, replace_all=replace_all)
    if matches:
        return replace(_plan(text, view, "exact", matches), given=plain_new)

    old_n, new_n = _normalise_endings(old), _normalise_endings(new)
    if old_n != old and (matches := substring_matches(view, old_n, new_n, replace_all=replace_all)):
        return replace(_plan(text, view, "line-endings", matches), given=new_n)

    numbered = strip_numbers(old_n)
    stripped = numbered is not None and bool(numbered.text.strip())
    if numbered is not None and stripped:
        height = len(lines_of(numbered.text))
        new_s = strip_new_numbers(new_n, numbered, height)
        refuse_markers(new_s, allowed=numbered.text)
        matches = substring_matches(
            view, numbered.text, new_s, replace_all=replace_all, line_start=True, prefer_line=numbered.first
        )
        if matches:
            return replace(_plan(text, view, "line-numbers", matches), given=new_s)
        old_n, new_n = numbered.text, new_s

    if visible_markers(old):
        raise MarkerInEdit(
            "old_string contains the visible format's markers (^I, $); they are display only: "
            "copy the text from a plain read instead (read with fresh=true if a plain read gives a stub)."
        )

    first = numbered.first if numbered is not None and stripped else None
    loose = whitespace_matches(view, old_n, new_n, replace_all=replace_all, prefer_line=first)
    if loose:
        rule: Rule = "line-numbers+whitespace" if stripped else "whitespace"
        return replace(
            _plan(text, view, rule, loose[0]), shift=loose[1], kept_indent=loose[2], tab=loose[3], given=new_n
        )

    refuse_markers(old, argument="old_string")
    raise no_match(view, lines_of(old_n))
