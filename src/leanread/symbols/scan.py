"""Finding uses of names in a source quickly, shared by the extractors: the receiver of an
attribute read backwards from it, and the bare uses of a set of names found with a regex per name
and checked against the tree (so a name in a string or a comment is not a use)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .facts import Use

#: Receivers kept as written up to this many characters (a longer chain is ``?``).
RECEIVER_CHARS = 80
#: ``=`` but not ``==`` after a name: a keyword argument, a default or an assignment target.
EQUALS = re.compile(rb"[ \t]*=(?!=)")


def receiver_before(source: bytes, start: int) -> str:
    """What the attribute starting at byte ``start`` is looked up on, read backwards from it: a
    name or dotted chain (``self``, ``a.b``), ``?`` for anything else (a call, a subscript), or
    empty when no dot precedes it."""
    window = source[max(0, start - RECEIVER_CHARS - 8) : start][::-1]
    found = _REVERSED_RECEIVER.match(window)
    if found is None:
        return "" if _REVERSED_DOT.match(window) is None else "?"
    text = found.group(1)[::-1]
    if len(text) > RECEIVER_CHARS or not _DOTTED_BYTES.fullmatch(text):
        return "?"
    before = window[found.end(1) : found.end(1) + 1]
    return "?" if before in (b".", b")", b"]") else text.decode("utf-8", "replace")


#: A dot and a dotted name before it, read on the reversed text (``self.`` as ``.fles``).
_REVERSED_RECEIVER = re.compile(rb"[ \t\r\n\\]*\.[ \t]*([\w.]+)")
_REVERSED_DOT = re.compile(rb"[ \t\r\n\\]*\.")
_DOTTED_BYTES = re.compile(rb"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


_ANY_NAME = re.compile(rb"[A-Za-z_$][\w$]*")
#: Bytes that may not come right before a bare name: a word character, or a dot (an attribute).
_AFTER_DOT = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.$")


@functools.lru_cache(maxsize=8192)
def word(name: str) -> re.Pattern[bytes]:
    """A regex that finds ``name`` not followed by a word character (it starts with the literal
    text, so ``re`` searches fast; the character before is checked by the caller)."""
    return re.compile(re.escape(name.encode()) + rb"(?![\w$])")


def _matches(source: bytes, names: Iterable[str] | None) -> Iterator[re.Match[bytes]]:
    """Every name in ``source`` that is one of ``names`` (None: any): one scan for ASCII names (a
    regex per name costs its compile, thousands of them over a tree), a regex per other name."""
    if names is None:
        yield from _ANY_NAME.finditer(source)
        return
    wanted = {n.encode() for n in names}
    ascii_names = {n for n in wanted if n.isascii()}
    if ascii_names:
        yield from (m for m in _ANY_NAME.finditer(source) if m.group() in ascii_names)
    for name in wanted - ascii_names:
        yield from word(name.decode()).finditer(source)


def bare_uses(
    root: Any,
    source: bytes,
    names: Iterable[str] | None,
    skip: set[int],
    keep: Callable[[Any, int], bool],
) -> Iterator[Use]:
    """Uses of ``names`` (None: of any name) as bare names (not after a dot) in ``source``, whose
    tree is under ``root``: each found as text, then kept when the tree has a node starting there
    (not in a string or comment), its first byte is not in ``skip`` (definitions' own names), and
    ``keep(node, end_byte)`` says so."""
    for match in _matches(source, names):
        start, end = match.span()
        if start in skip or (start and source[start - 1] in _AFTER_DOT):
            continue
        node = root.descendant_for_byte_range(start, end)
        if node is None or node.start_byte != start or node.end_byte != end or not keep(node, end):
            continue
        row, column = node.start_point
        yield Use(match.group().decode("utf-8", "replace"), row + 1, column)
