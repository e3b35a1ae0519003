"""Display-only markers in an edit's texts: leanread's line-cut, omission and stub markers,
``<response clipped>``, and the ``visible`` format's ``^I``/``$`` decorations, which must never be
written into a file. Pure: texts in, a marker, a bool or ``MarkerInEdit`` out."""

from __future__ import annotations

import re
from typing import Literal

from ..errors import MarkerInEdit
from .edit_text import lines_of

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


def visible_copy(new: str, old: str, text: str) -> bool:
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


def visible_decorated(text: str) -> bool:
    """Every line carries the visible format's decoration (``  41\\tcode$``)."""
    return all(_VISIBLE_LINE.fullmatch(line) for line in lines_of(text))


def visible_markers(text: str) -> bool:
    """``text`` looks like a copy of ``visible`` output: decorated lines, ``^I``/``^M``, or
    ``$`` ending each of several lines."""
    lines = lines_of(text)
    if visible_decorated(text) or _CARET_CONTROL.search(text):
        return True
    return len(lines) >= 2 and all(line.endswith("$") for line in lines)
