"""The map of a file: its head and every definition with its line range, and ``symbol=`` lookups.

Python is read with ``ast`` (``outlinepython``); JavaScript, TypeScript, Go, Rust, Java, C and C++
with tree-sitter grammars installed as wheels (``outlinegrammars``, ``outlinetree``; nothing is
downloaded at run time); Markdown headings, JSON, YAML and TOML top-level keys with small line
scanners (``outlinetext``); anything else (logs) as head and tail. Line numbers are 1-based and
inclusive. Pure: lines in, an ``Outline`` (``outlinemodel``) out.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

from ..errors import InvalidArgument
from ..memo import LRU, lines_digest
from .outlinegrammars import EXTENSIONS, GRAMMARS
from .outlinehead import head_lines
from .outlinemodel import HEAD_TAIL_LINES, Outline, Symbol, head_and_tail
from .outlinepython import python_outline
from .outlinetext import TEXT_SCANNERS, log_outline
from .outlinetree import tree_sitter_outline, tree_sitter_parser

__all__ = [
    "HEAD_TAIL_LINES",
    "OUTLINES",
    "Outline",
    "Symbol",
    "find_symbol",
    "head_and_tail",
    "language_of",
    "outline",
    "outline_of_language",
    "shown_lines",
    "tree_sitter_parser",
]

_SCANNERS: dict[str, Callable[[Sequence[str]], Outline | None]] = {"python": python_outline, **TEXT_SCANNERS}


def language_of(path: str) -> str | None:
    """The language ``outline`` reads ``path`` as, from its extension, or None (head and tail)."""
    suffix = path[path.rfind(".") :].lower() if "." in path.rsplit("/", 1)[-1] else ""
    return EXTENSIONS.get(suffix)


def outline(path: str, lines: Sequence[str]) -> Outline:
    """The map of a file whose lines are ``lines``; a file leanread cannot parse gets head and tail."""
    return outline_of_language(language_of(path), lines)


def outline_of_language(language: str | None, lines: Sequence[str]) -> Outline:
    """Like ``outline`` for lines of a known ``language`` (as ``language_of`` names it; None: head
    and tail). Outlines are kept per process by language and content (``OUTLINES``), so a file
    read again is not parsed again."""
    return OUTLINES.get_or_make((language, lines_digest(lines)), lambda: _outline_of(language, lines))


#: Outlines made in this process, by (language, digest of the lines).
OUTLINES: LRU[Outline] = LRU(256)


def _outline_of(language: str | None, lines: Sequence[str]) -> Outline:
    made: Outline | None = None
    if language in _SCANNERS:
        made = _SCANNERS[language](lines)
    elif language in GRAMMARS:
        made = tree_sitter_outline(language, lines)
    return made if made is not None and made.symbols else log_outline(lines)


def _last_part(name: str) -> str:
    return re.split(r"\.|::| > ", name)[-1]


def _candidates(symbols: Sequence[Symbol], wanted: str) -> list[Symbol]:
    exact = [s for s in symbols if s.name == wanted]
    if exact:
        return exact
    tail = [s for s in symbols if any(s.name.endswith(sep + wanted) for sep in (".", "::", " > "))]
    return tail or [s for s in symbols if _last_part(s.name) == wanted]


def find_symbol(made: Outline, wanted: str, display: str) -> Symbol:
    """The definition named ``wanted`` (qualified like ``QuerySet.filter``, or a unique last part).

    Raises:
        InvalidArgument: no definition, or several, has that name; the message lists them.
    """
    found = _candidates(made.symbols, wanted.strip())
    if len(found) == 1:
        return found[0]
    first, last = min((s.first for s in found), default=0), max((s.last for s in found), default=0)
    if len({s.name for s in found}) == 1 and _side_by_side(made.symbols, found, first, last):
        return replace(found[0], first=first, last=last)  # a getter and its setter, overloads: read them all
    if found:
        listed = ", ".join(f"{s.name} (lines {s.first}-{s.last})" for s in found[:8])
        step = "use the full name" if len({s.name for s in found}) > 1 else "read one with offset and limit"
        raise InvalidArgument(f"symbol={wanted!r} names {len(found)} definitions in {display}: {listed}; {step}.")
    last_parts = {_last_part(s.name): s.name for s in made.symbols}
    close = [
        s.name for s in made.symbols if s.name in difflib.get_close_matches(wanted, [s.name for s in made.symbols])
    ]
    close += [last_parts[p] for p in difflib.get_close_matches(wanted, list(last_parts)) if last_parts[p] not in close]
    close = list(dict.fromkeys(close))[:3]
    hint = (
        f" Did you mean {', '.join(close)}?"
        if close
        else ' Read the file\'s outline (mode="outline") to see its names.'
    )
    raise InvalidArgument(f"{display} has no definition named {wanted!r}.{hint}")


def _side_by_side(symbols: tuple[Symbol, ...], found: list[Symbol], first: int, last: int) -> bool:
    """Whether no other definition at their depth lies between the definitions ``found`` (which
    span lines ``first..last``): a property's getter and setter, overloads, a name defined in both
    branches of an ``if`` side by side. A C prototype and its body with other definitions between
    them are not."""
    depth = found[0].depth
    return all(s in found for s in symbols if s.depth == depth and first <= s.first <= last)


def shown_lines(made: Outline) -> Iterator[int]:
    """The line numbers an outline shows whole: its head, each signature line and the marks
    (decorators, attributes) above it, the imports among them, its tail."""
    yield from head_lines(made.head)
    for s in made.symbols:
        if s.listed:
            yield from s.marks
            yield s.line
    yield from head_lines(made.later)
    if made.tail:
        yield from range(made.tail, made.total + 1)
