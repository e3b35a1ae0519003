"""What one source file says about names: its definitions, the names it binds from other files
(imports, re-exports), and the places it uses a name. Plain records, made by the extractors
(``python``, ``script``, ``generic``) and kept by the store. Lines are 1-based and inclusive;
columns are 0-based byte offsets into the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import accumulate
from typing import NamedTuple

#: How a binding brings a name into a file.
IMPORT = "import"  # ``from m import a as b``, ``import { a as b } from 'm'``: b is m's a
MODULE = "module"  # ``import m as b``, ``import * as b from 'm'``: b is the module m itself
STAR = "star"  # ``from m import *``, ``export * from 'm'``: every public name of m
EXPORT = "export"  # ``export { a as b }`` (no source): b is this file's own a
REEXPORT = "reexport"  # ``export { a as b } from 'm'``: b is m's a, exported but not bound here
TYPED = "typed"  # ``b: T``, ``b = new T()`` in a function: b holds a T (``const {b} = v``: v.b)
BINDINGS = (IMPORT, MODULE, STAR, EXPORT, REEXPORT, TYPED)


@dataclass(frozen=True)
class Definition:
    """One definition.

    Attributes:
        name: qualified within the file (``Store.get``; a Go method ``Type.Method``).
        kind: ``class``, ``function``, ``method``, ``variable``, ``interface``, ``type``, … .
        first: first line, decorators and leading doc comments included.
        last: last line.
        line: the line of its name (its signature).
        signature: that line's text, stripped, cut at ``SIGNATURE_CHARS``.
        scope: ``module`` (top level), ``member`` (in a class, interface or namespace), ``static``
            (a member of the class itself, not of its instances) or ``local`` (inside a function).
        bases: a class's base classes as written (``Base``, ``models.Model``), for members it
            inherits; a variable's or property's declared type (``x: Observable<T>``:
            ``Observable``), for the members its value has.
    """

    name: str
    kind: str
    first: int
    last: int
    line: int
    signature: str
    scope: str = "module"
    bases: tuple[str, ...] = ()

    @property
    def tail(self) -> str:
        """The last part of the name (``get`` of ``Store.get``)."""
        return last_part(self.name)

    @property
    def container(self) -> str | None:
        """The qualified name of what holds it (``Store`` of ``Store.get``), or None at the top."""
        head = split_name(self.name)[:-1]
        return ".".join(head) if head else None


@dataclass(frozen=True)
class Binding:
    """A name a file binds from elsewhere, or exports under another name.

    Attributes:
        local: the name in this file (for ``STAR``: ``*``).
        kind: one of ``BINDINGS``.
        module: the module as written (``..x``, ``./store``, ``django.db``); empty for ``EXPORT``
            and ``TYPED``.
        imported: the name in that module (``IMPORT``, ``EXPORT``), the type or value path the
            name holds (``TYPED``), or empty.
        line: where the binding is written.
    """

    local: str
    kind: str
    module: str
    imported: str
    line: int


class Use(NamedTuple):
    """One use of a name.

    Attributes:
        name: the name used (``get`` of ``store.get()``).
        line: its line.
        column: its first byte in that line.
        receiver: what it is looked up on, as written (``store``, ``self``, ``a.b``), or empty for
            a bare name; ``?`` when it is an expression leanread does not follow.
    """

    name: str
    line: int
    column: int
    receiver: str = ""


@dataclass
class FileFacts:
    """Everything one file says about names (see the module docstring).

    Attributes:
        language: as ``outline.language_of`` names it.
        definitions, bindings, uses: in file order.
        exports: names the file declares public (Python ``__all__``), or None when it does not say.
        module: the file's module name (Python: dotted from its path; others: empty).
        problem: why the facts may be incomplete (a syntax error), or empty.
    """

    language: str
    definitions: list[Definition] = field(default_factory=list)
    bindings: list[Binding] = field(default_factory=list)
    uses: list[Use] = field(default_factory=list)
    exports: list[str] | None = None
    problem: str = ""


#: Characters of a signature line kept.
SIGNATURE_CHARS = 160

_PARTS = re.compile(r"::|\.")


def split_name(name: str) -> list[str]:
    """``Store.get`` → ``["Store", "get"]``; ``app::Widget::draw`` → ``["app", "Widget", "draw"]``."""
    return [p for p in _PARTS.split(name) if p]


def last_part(name: str) -> str:
    """The last part of a qualified name."""
    parts = split_name(name)
    return parts[-1] if parts else name


class SourceLines:
    """Line texts of a source taken by number, without splitting it whole."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        # each line's length plus its break, summed (C iterators: a regex over a big file is slower)
        self.starts = list(accumulate(map((1).__add__, map(len, source.split(b"\n")[:-1])), initial=0))

    def text(self, line: int) -> str:
        """The text of 1-based ``line`` (empty past the end), decoded, without its line break."""
        if not 1 <= line <= len(self.starts):
            return ""
        start = self.starts[line - 1]
        end = self.starts[line] - 1 if line < len(self.starts) else len(self.source)
        return self.source[start:end].decode("utf-8", "replace").rstrip("\r")

    def signature(self, line: int) -> str:
        """The text of ``line``, stripped, cut at ``SIGNATURE_CHARS``."""
        text = self.text(line).strip()
        return text if len(text) <= SIGNATURE_CHARS else text[: SIGNATURE_CHARS - 1] + "…"
