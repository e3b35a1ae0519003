"""Line decorations: how one line is shown in each ``read`` format, and how to take it off again.

==========  =================  ==========================================================
format      line 41 shows as   source of the convention
==========  =================  ==========================================================
``plain``   ``code``           leanread's default: no decoration at all
``tab``     ``41\\tcode``       Claude Code's Read tool since 2.1.86
``colon``   ``41: code``       opencode's read tool
``catn``    ``    41\\tcode``   ``cat -n`` (number right-aligned in 6 columns, then a tab)
``visible`` ``  41\\tcode$``    kdeps ``read_file``: ``cat -A``-style markers, display only
==========  =================  ==========================================================

``visible`` shows a tab as ``^I``, CR as ``^M``, other C0 controls and DEL as ``^X`` caret
notation, and ends each line with ``$``. So that the markers can always be taken off again, a
literal ``^`` that would read as the start of a marker is shown doubled (``^^``), and the rare
control U+001E, whose caret form would be ``^^``, is shown as ``^~``.
"""

from __future__ import annotations

from typing import Literal, get_args

Format = Literal["plain", "tab", "colon", "catn", "visible"]
FORMATS: tuple[str, ...] = get_args(Format)

# Characters that may follow ``^`` in a ``visible`` marker.
_CARET_NEXT = frozenset("@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_?~")
_RS = "\x1e"


def _visible_char(char: str) -> str:
    code = ord(char)
    if char == _RS:
        return "^~"
    if code < 0x20 or code == 0x7F:
        return "^" + chr(code ^ 0x40)
    return char


def show_controls(line: str) -> str:
    """``line`` with control characters in caret notation and ambiguous carets doubled."""
    pieces = [_visible_char(char) for char in line]
    for i, char in enumerate(line):
        if char == "^" and i + 1 < len(pieces) and pieces[i + 1][0] in _CARET_NEXT:
            pieces[i] = "^^"
    return "".join(pieces)


def hide_controls(shown: str) -> str:
    """The inverse of ``show_controls``."""
    out: list[str] = []
    i = 0
    while i < len(shown):
        char = shown[i]
        if char == "^" and i + 1 < len(shown) and shown[i + 1] in _CARET_NEXT:
            follower = shown[i + 1]
            out.append("^" if follower == "^" else _RS if follower == "~" else chr(ord(follower) ^ 0x40))
            i += 2
        else:
            out.append(char)
            i += 1
    return "".join(out)


def decorate(number: int, line: str, fmt: Format) -> str:
    """Line ``number`` (1-based) as shown in ``fmt`` (see the module table)."""
    if fmt == "plain":
        return line
    if fmt == "tab":
        return f"{number}\t{line}"
    if fmt == "colon":
        return f"{number}: {line}"
    if fmt == "catn":
        return f"{number:>6}\t{line}"
    return f"{number:>4}\t{show_controls(line)}$"


def undecorate(shown: str, fmt: Format) -> str:
    """The file's line from its decorated form: ``undecorate(decorate(n, line, f), f) == line``.

    Raises:
        ValueError: ``shown`` does not carry ``fmt``'s decoration.
    """
    if fmt == "plain":
        return shown
    if fmt == "colon":
        number, sep, rest = shown.partition(": ")
    else:
        number, sep, rest = shown.partition("\t")
    if not sep or not number.strip().isdigit():
        raise ValueError(f"{shown[:40]!r} does not start with a {fmt} line number.")
    if fmt == "visible":
        if not rest.endswith("$"):
            raise ValueError(f"{shown[:40]!r} does not end with the visible format's '$'.")
        return hide_controls(rest[:-1])
    return rest
