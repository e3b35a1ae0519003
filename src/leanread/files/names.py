"""How a file name the model cannot read as text is shown, and taken back.

A name on disk may hold bytes that are not UTF-8 (``caf\\xe9.txt``, as old tools write on Linux;
Python keeps them as ``surrogateescape`` code points) or characters that would split a row or
drive a terminal (newline, tab, ESC, the Unicode line separators, bidirectional overrides). Every
place a path is shown (tool text, metadata, suggestions, errors) shows it through ``show_path``,
and every path a tool is given goes through ``parse_path``, so a name shown is a name accepted::

    caf\\xe9.txt      the byte 0xE9, not valid UTF-8
    a\\x0ab.txt       a name holding a newline (any C0 control or DEL: its byte)
    x\\u202ey.txt     a Unicode control (C1, U+2028/U+2029, bidirectional marks)
    a\\x5cx41         a literal backslash that would otherwise read as an escape
    \\x20\\x20a.py      spaces that start or end a name (in a tree they would read as indent)
    a -\\x3e b.txt     the ``>`` of `` -> `` (``ls`` shows a link as ``name -> target``)
    p \\x28a socket; read does not open it)
                     the ``(`` of the mark ``ls`` and ``read`` put after a FIFO, socket or device

Only a backslash followed by ``xHH`` or ``uHHHH`` is escaped, so ordinary names (backslashes
included) are shown as they are; a space inside a name stays a space.
"""

from __future__ import annotations

import os
import re

#: Characters shown escaped: C0 controls, DEL, C1 controls, bidirectional marks and overrides,
#: the Unicode line and paragraph separators, every surrogate (undecodable bytes among them), and
#: a backslash that starts what would read as an escape.
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
    r"|\\(?=x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4})"
)
#: Spaces at the start or end of a name, the ``>`` of `` -> `` and the ``(`` of a name ending as
#: a FIFO's row does: shown escaped so that no name reads as a tree's indent, a link's arrow or a
#: file that read does not open (``workspace.unopened``).
_LOOKALIKE = re.compile(r"(?:^|(?<=/)) +| +(?=/|$)|(?<= -)>(?= )|(?<= )\((?=[^/]*; read does not open it\)(?:/|$))")
_ESCAPE = re.compile(r"\\x([0-9a-fA-F]{2})|\\u([0-9a-fA-F]{4})")
#: ``surrogateescape`` keeps the undecodable byte B as the code point U+DC00 + B (B >= 0x80).
_ESCAPED_BYTES = range(0xDC80, 0xDD00)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code in _ESCAPED_BYTES:
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x80:  # a C0 control, DEL, or the backslash
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def show_path(path: str) -> str:
    """``path`` (a name or path as the OS gives it, ``surrogateescape`` code points included) as
    the model is shown it: valid UTF-8 on one line, every unsafe character escaped (see the
    module docstring). ``parse_path(show_path(p)) == p`` for every ``p``."""
    shown = _UNSAFE.sub(_escape, path)
    return _LOOKALIKE.sub(_escape_each, shown) if " " in shown else shown


def _escape_each(match: re.Match[str]) -> str:
    return "".join(f"\\x{ord(c):02x}" for c in match.group())


#: The characters ``show_path`` writes as ``\\xHH`` or ``\\uHHHH`` (the backslash, a space, ``>`` and ``(`` among them).
_SHOWN_ESCAPED = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff >(]|\\\\")


def _unescape(match: re.Match[str]) -> str:
    """The character an escape stands for, when ``show_path`` writes that character so; any
    other escape (``\\x41``, which ``show_path`` never writes) is kept as the literal text it is."""
    byte, code = match.groups()
    if byte is not None:
        value = int(byte, 16)
        char = chr(value) if value < 0x80 else chr(0xDC00 + value)
    else:
        char = chr(int(code, 16))
    return char if _SHOWN_ESCAPED.fullmatch(char) else match.group()


def parse_path(path: str) -> str:
    """The OS name of a path given in the shown form (``caf\\xe9.txt`` is ``caf`` + the byte
    0xE9 + ``.txt``); a path without ``\\x`` or ``\\u`` escapes comes back as given. Escaped
    bytes that form UTF-8 together (``caf\\xc3\\xa9``) give that character (``café``)."""
    if "\\" not in path:
        return path
    raw = _ESCAPE.sub(_unescape, path)
    try:
        return os.fsdecode(os.fsencode(raw))
    except UnicodeError:  # a lone surrogate that is no byte (\ud800): no OS name has one
        return raw


def parse_optional(path: str | None) -> str | None:
    """``parse_path`` of a path that may be left out (None: the tool's default place)."""
    return None if path is None else parse_path(path)


def clean_text(text: str) -> str:
    """``text`` made safe to send as UTF-8: each lone surrogate escaped as ``show_path`` escapes
    it (``\\xe9``, ``\\ud800``), everything else unchanged. The last guard on a result's way out."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return re.sub("[\ud800-\udfff]", _escape, text)
    return text


def clean(value: object) -> object:
    """``value`` (a result's metadata: dicts, lists, tuples, strings, numbers) with every string
    in it, keys included, passed through ``clean_text``."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean(key): clean(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [clean(item) for item in value]
    return value
