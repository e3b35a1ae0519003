"""The members of a big class in an outline, listed on one line by name and first line rather
than a row each.

A class with many methods is most of an outline's rows, and what a model looks for there is a
name to read (``symbol="Header.fromstring"``, or ``offset=323``), not every signature: the rows of
``Header``'s 64 methods cost about 12 tokens each, the same names with their lines about 3. So a
definition with at least ``MEMBERS_LISTED`` definitions nested in it, none of which has its own,
shows them as one line under its row::

    39-1904	class Header:
        … __init__ 75, __len__ 110, __iter__ 113, fromstring 323, … _add_commentary 1891 …

Each number is the member's first line (its decorators and doc comments included), so a read
from it gets the whole member. A smaller class keeps its rows, signatures and decorators with
them; so does a class holding a class with members of its own (the inner one may be listed).
Only code is listed so (not a document's headings or keys), and only names that are one word
of the file's own identifiers, as its lines spell them and with nothing a reader would not see; a
member whose line shows another definition's row too (``class A { a() {} b() {} }``) keeps its
class's rows.

Pure: symbols in, the lists out. Line numbers are 1-based.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..code.outline import Symbol
from ..code.outlinetext import TEXT_SCANNERS
from .frame import any_hidden

__all__ = ["MEMBERS_A_LINE", "MEMBERS_LISTED", "MemberList", "member_lists"]

#: Nested definitions a definition needs for them to be listed by name (see the module docstring).
MEMBERS_LISTED = 5
#: Members on one line at most; more go on the next line (an outline pages between lines).
MEMBERS_A_LINE = 50
#: What a listed member's name may be: an identifier of the languages outlined, operators and
#: destructors and private names included (``operator==``, ``~Foo``, ``$get``, ``#count``);
#: nothing that could read as a frame.
_NAME = re.compile(r"[\w$~#][\w$~=!+\-*/%&|^\[\]]{0,79}")
#: A member named by its type rather than its owner, the last part a plain identifier.
_QUALIFIED = re.compile(r"[^\[\]]+\.[A-Za-z_]\w*")
#: Outlines whose parts are not definitions (headings, keys, a log's head and tail): rows stay rows.
_DOCUMENTS = frozenset({*TEXT_SCANNERS, "log"})


@dataclass(frozen=True)
class MemberList:
    """Members of one definition, listed on one line (``MEMBERS_A_LINE`` at most).

    Attributes:
        owner: the definition whose members these are.
        members: the members, in line order.
        text: the line as the outline shows it (indented four spaces a level below its owner).
    """

    owner: Symbol
    members: tuple[Symbol, ...]
    text: str

    @property
    def hidden_lines(self) -> set[int]:
        """The lines whose rows the list stands for: each member's signature and marks."""
        return {n for s in self.members for n in (s.line, *s.marks)}


def member_lists(language: str, listed: Sequence[Symbol], line_of: Callable[[int], str]) -> list[MemberList]:
    """The lists of ``listed`` (an outline's listed symbols, in file order) for a file read as
    ``language``; ``line_of`` gives a line's text by its number. Empty for a document."""
    if language in _DOCUMENTS:
        return []
    children: dict[int, list[Symbol]] = {}
    open_ones: list[tuple[int, Symbol]] = []  # (index, symbol) of the definitions around
    for index, symbol in enumerate(listed):
        while open_ones and (open_ones[-1][1].depth >= symbol.depth or open_ones[-1][1].last < symbol.line):
            open_ones.pop()
        if open_ones and open_ones[-1][1].depth == symbol.depth - 1:
            children.setdefault(open_ones[-1][0], []).append(symbol)
        open_ones.append((index, symbol))
    owners = {id(listed[index]) for index in children}
    # a line that shows two definitions' rows (``class A { a() {} b() {} }``) stays a row
    shared = {n for n, count in Counter(n for s in listed for n in (s.line, *s.marks)).items() if count > 1}
    lists: list[MemberList] = []
    for index, kids in children.items():
        owner = listed[index]
        names = [_member_name(owner, kid, line_of) for kid in kids]
        if (
            len(kids) < MEMBERS_LISTED
            or None in names
            or any(id(kid) in owners or not shared.isdisjoint((kid.line, *kid.marks)) for kid in kids)
        ):
            continue
        indent = "    " * (owner.depth + 1)
        for at in range(0, len(kids), MEMBERS_A_LINE):  # lines an outline can page between
            part = list(zip(names[at : at + MEMBERS_A_LINE], kids[at : at + MEMBERS_A_LINE], strict=True))
            pairs = ", ".join(f"{name} {kid.first}" for name, kid in part)
            lists.append(MemberList(owner, tuple(kid for _, kid in part), f"{indent}… {pairs} …"))
    return lists


def _member_name(owner: Symbol, member: Symbol, line_of: Callable[[int], str]) -> str | None:
    """The member's name under its owner (``fromstring`` of ``Header.fromstring``) as its
    signature line spells it, or None when it is not one word ``_NAME`` allows, holds a character
    a reader would not see, or is not in that line as it is (Python's parser normalises a name:
    ``ﬁle`` is ``file`` to it)."""
    name = member.name.removeprefix(owner.name + ".")
    if name == member.name and _QUALIFIED.fullmatch(name):  # a Rust impl's: ``Foo<T>.a0`` under ``impl<T> Foo<T>``
        name = name.rpartition(".")[2]
    if not _NAME.fullmatch(name) or any_hidden((name,)) or name not in line_of(member.line):
        return None
    return name
