"""Reading a JavaScript or TypeScript file past a statement its grammar cannot parse.

tree-sitter recovers from most syntax errors inside a statement, but some (TypeScript's generic
call signatures written one per line without ``;``, as in ``interface F { <T>(a: T): T }``) break
the parse at the top level, and every statement after the error comes out garbled: its
definitions were lost. Here the broken statement (from the line at column 0 that starts it to the
next such line) is blanked (its bytes turned to spaces, line breaks kept, so every position stays
where it was) and the rest parsed again; the broken statement still defines the name its first
line declares (``export interface IActionFactory``), without its members.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

#: Statements blanked per file at most (each costs a parse of the file).
MAX_REPAIRS = 8
#: Lines searched back from an error for the line that starts its statement.
_LOOK_BACK = 400
#: A line that starts a top-level statement (at column 0).
_STARTS = re.compile(
    rb"(?:export|import|function|class|interface|type|enum|namespace|module|declare|abstract|async|const|let|var)\b|@"
)
_HEADER = re.compile(
    rb"(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?"
    rb"(class|interface|function\*?|enum|type|namespace|module|const|let|var)\s+([A-Za-z_$][\w$]*)"
)
_MEMBER = re.compile(
    rb"([ \t]+)(?:(?:readonly|public|private|protected|static|abstract|async|get|set)[ \t]+)*"
    rb"([A-Za-z_$][\w$]*)[ \t]*\??[ \t]*([:(<])"
)
_KINDS = {
    b"const": "variable",
    b"let": "variable",
    b"var": "variable",
    b"module": "namespace",
    b"function*": "function",
}


@dataclass(frozen=True)
class Broken:
    """A statement the grammar could not parse. Lines are 1-based and inclusive.

    Attributes:
        first, last: its lines.
        name: the name its first line declares, or empty.
        kind: ``interface``, ``class``, ``function``, ``variable``, … (empty without a name).
        members: ``(name, kind, line)`` of a class's or interface's members (kind ``property``,
            ``method`` or, in an interface, ``signature``).
    """

    first: int
    last: int
    name: str
    kind: str
    members: tuple[tuple[str, str, int], ...] = ()


def parse_around(parser: Any, source: bytes) -> tuple[Any, bytes, list[Broken]]:
    """``(tree, parsed source, broken statements)`` of ``source``: the source with each broken
    statement blanked (same length, same lines) and its tree (see the module docstring)."""
    tree = parser.parse(source)
    broken: list[Broken] = []
    for _ in range(MAX_REPAIRS):
        if not tree.root_node.has_error:
            break
        lines = source.split(b"\n")
        error = _first_broken(tree.root_node, lines)
        if error is None:
            break
        first, last = _region(lines, error.start_point[0])
        blanked = _blank(source, lines, first, last)
        if blanked == source:
            break
        broken.append(_named(lines, first, last))
        source = blanked
        tree = parser.parse(source)
    return tree, source, broken


def _first_broken(root: Any, lines: list[bytes]) -> Any | None:
    """The first node at the top level that is an error, a bare token a statement lost, or a
    statement with an error that runs over the start of another (a line at column 0)."""
    for child in root.children:
        if child.type == "ERROR" or child.is_missing or not child.is_named:
            return child
        if child.has_error and any(
            _starts_statement(lines[row]) for row in range(child.start_point[0] + 1, child.end_point[0] + 1)
        ):
            return child
    return None


def _starts_statement(line: bytes) -> bool:
    return _STARTS.match(line) is not None


def _region(lines: list[bytes], error: int) -> tuple[int, int]:
    """0-based ``(first, last)`` lines of the statement around the 0-based line ``error``."""
    first = error
    for row in range(error, max(-1, error - _LOOK_BACK), -1):
        if _starts_statement(lines[row]):
            first = row
            break
    last = len(lines) - 1
    for row in range(max(first, error) + 1, len(lines)):
        if _starts_statement(lines[row]):
            last = row - 1
            break
    while last > first and not lines[last].strip():
        last -= 1
    return first, last


def _blank(source: bytes, lines: list[bytes], first: int, last: int) -> bytes:
    start = sum(len(line) + 1 for line in lines[:first])
    end = start + sum(len(line) + 1 for line in lines[first : last + 1])
    region = source[start:end]
    return source[:start] + re.sub(rb"[^\r\n]", b" ", region) + source[end:]


def _named(lines: list[bytes], first: int, last: int) -> Broken:
    found = _HEADER.match(lines[first])
    if found is None:
        return Broken(first + 1, last + 1, "", "")
    keyword = found.group(1)
    kind = _KINDS.get(keyword, keyword.decode())
    members = _members(lines, first, last, kind) if kind in ("class", "interface") else ()
    return Broken(first + 1, last + 1, found.group(2).decode("utf-8", "replace"), kind, members)


def _members(lines: list[bytes], first: int, last: int, kind: str) -> tuple[tuple[str, str, int], ...]:
    """The members of a broken class or interface body: lines at the body's first indentation
    that start with a name and ``:``, ``?:``, ``(`` or ``<``."""
    found: list[tuple[str, str, int]] = []
    indent: bytes | None = None
    for row in range(first + 1, last + 1):
        line = lines[row]
        stripped = line.lstrip()
        if not stripped or stripped.startswith((b"//", b"/*", b"*")):
            continue
        here = line[: len(line) - len(stripped)]
        indent = here if indent is None else indent
        member = _MEMBER.match(line)
        if here != indent or member is None:
            continue
        method = member.group(3) != b":"
        member_kind = ("signature" if kind == "interface" else "method") if method else "property"
        found.append((member.group(2).decode("utf-8", "replace"), member_kind, row + 1))
    return tuple(found)
