"""The head of a code file's outline: the lines it shows whole above the definitions' rows.

The head holds the file's opening comments and docstring (the prelude: shebang, a header
comment, a module docstring, ``'use strict'``, Rust's ``#![…]``) and every top-level import,
wherever it sits among the statements before the first definition (a ``__version__`` or
``__all__`` line hides none): Python ``import``/``from``, JavaScript and TypeScript ``import``,
``export … from`` and ``require(…)``, Go ``package`` and ``import ( … )``, Rust ``use`` and
``extern crate`` (with their ``#[cfg(…)]``), Java ``package`` and ``import``, C and C++
``#include`` (C++ ``using`` too). A guarded import comes whole when its guard is short and
defines nothing (``try: import pwd`` / ``except ImportError: pwd = None``, ``if TYPE_CHECKING:``,
``#ifdef _WIN32`` / ``#include <windows.h>`` / ``#else`` …); a longer guard by its opening
lines, the opening lines of each of its branches (``except ImportError:``, ``#elif``) and its
imports. The imports of a script's main block (``if __name__ == "__main__":``,
``if (require.main === module)``) are the script's, not the module's, and are not shown.

Left out, each said by one line that names the lines (``LeftOut``): a long licence in the
prelude (see ``licence``), the prelude past ``PRELUDE_LINES``, each run of imports (imports and
the blank lines between them, a guard with its own lines) longer than ``NOTE_LINES`` (the model
reads them when it needs them, with the offset and limit the line gives; a Go or Java ``package``
line is shown, not left out with them; a run that holds a row of the outline, or opens a guard
whose next line is a row, ``try: … except ImportError:`` / ``class Bar:``, is shown), the head
past ``HEAD_LINES``.
Imports after the first definition are not in the head but rows among the definitions
(``Head.later``), at most ``LATER_LINES`` of them, the rest said the same way. Parts of the
head separated only by blank lines are joined, blank lines included, so the head reads as the
file does. Pure: a tree-sitter tree and the lines in, line ranges out; line numbers are 1-based
and inclusive.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .licence import licence_runs

#: Most lines the head shows (prelude and imports); more imports are left out, said by a line.
HEAD_LINES = 40
#: Most lines of the prelude (opening comment, docstring) the head shows, past a licence left out.
PRELUDE_LINES = 20
#: A guard with imports (``try:``, ``if TYPE_CHECKING:``, ``#ifdef``) of at most this many lines
#: and no definitions comes whole; a longer one by its opening lines and its imports.
GUARD_LINES = 10
#: Lines over a cap that are shown rather than left out: a line that says what was left out costs
#: about as much as three lines of code.
NOTE_LINES = 3
#: Most lines of imports after the first definition shown among the rows; the rest is said by a line.
LATER_LINES = 20
#: Kinds of definition that are values: they do not end the part of the file the head covers.
VALUE_KINDS = frozenset({"variable", "constant", "static", "macro", "declaration", "type", "key"})

Lines = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class LeftOut:
    """Lines ``first..last`` the head leaves out, and what they hold (``a licence``, ``the rest of
    the docstring``, ``the rest of the opening comment``, ``more imports``)."""

    first: int
    last: int
    what: str


@dataclass(frozen=True)
class Head:
    """What an outline shows of a code file besides its definitions' rows.

    Attributes:
        shown: line ranges shown whole above the first definition, in order.
        left_out: parts of the head not shown, each said by one line at its place.
        later: line ranges of imports after the first definition, shown as rows in their place.
    """

    shown: Lines = ()
    left_out: tuple[LeftOut, ...] = ()
    later: Lines = ()


@dataclass(frozen=True)
class _Kinds:
    """The tree-sitter node types of one language the head looks for."""

    imports: frozenset[str]
    guards: frozenset[str] = frozenset()  # conditional blocks that may hold imports
    branches: frozenset[str] = frozenset()  # else / except / #elif parts of a guard
    bodies: frozenset[str] = frozenset()  # nodes that hold a guard's statements
    prelude: frozenset[str] = frozenset()  # besides comments and a docstring
    requires: bool = False  # JavaScript: ``require(…)``, ``import(…)`` and ``export … from`` are imports


_COMMENTS = frozenset({"comment", "line_comment", "block_comment", "hash_bang_line"})
#: A Go or Java file's package line: shown with the prelude, never left out with the imports.
_PACKAGES = frozenset({"package_clause", "package_declaration"})
_JS = _Kinds(
    frozenset({"import_statement"}),
    frozenset({"if_statement", "try_statement"}),
    frozenset({"else_clause", "catch_clause", "finally_clause"}),
    frozenset({"statement_block", "ERROR"}),
    requires=True,
)
_C = _Kinds(
    frozenset({"preproc_include"}),
    frozenset({"preproc_if", "preproc_ifdef", "linkage_specification"}),
    frozenset({"preproc_else", "preproc_elif", "preproc_elifdef"}),
    frozenset({"declaration_list", "ERROR"}),
)
_KINDS = {
    "python": _Kinds(
        frozenset({"import_statement", "import_from_statement", "future_import_statement"}),
        frozenset({"if_statement", "try_statement", "with_statement"}),
        frozenset({"elif_clause", "else_clause", "except_clause", "except_group_clause", "finally_clause"}),
        frozenset({"block", "ERROR"}),
    ),
    "javascript": _JS,
    "typescript": _JS,
    "go": _Kinds(frozenset({"package_clause", "import_declaration"})),
    "rust": _Kinds(
        frozenset({"use_declaration", "extern_crate_declaration"}),
        prelude=frozenset({"inner_attribute_item"}),
    ),
    "java": _Kinds(frozenset({"package_declaration", "import_declaration"})),
    "c": _C,
    "cpp": _Kinds(_C.imports | {"using_declaration", "namespace_alias_definition"}, _C.guards, _C.branches, _C.bodies),
}


def _first(node: Any) -> int:
    return int(node.start_point[0]) + 1


def _last(node: Any) -> int:
    """The last line of ``node`` (a preprocessor line's node ends past its newline)."""
    row, column = node.end_point
    return int(row) if column == 0 and row > node.start_point[0] else int(row) + 1


# --- what an import is ----------------------------------------------------------------------------


def _requires(value: Any) -> bool:
    """Whether a JavaScript value is ``require('x')`` or ``import('x')``, maybe awaited, with a
    member taken (``require('path').join``) or wrapped by a bundler's helper of one argument
    (``__toESM(require('react'))``, ``_interopRequireDefault(require('x'))``)."""
    while value is not None:
        if value.type == "call_expression":
            function = value.child_by_field_name("function")
            if function is not None and (function.type == "import" or function.text == b"require"):
                return True
            arguments = value.child_by_field_name("arguments")
            passed = arguments.named_children if arguments is not None else []
            if len(passed) == 1 and passed[0].type == "call_expression" and _requires(passed[0]):
                return True
            value = function
        elif value.type in ("member_expression", "await_expression", "parenthesized_expression"):
            value = value.child_by_field_name("object") or (value.named_children or [None])[0]
        else:
            return False
    return False


def _is_import(node: Any, kinds: _Kinds) -> bool:
    if node.type in kinds.imports:
        return True
    if not kinds.requires:
        return False
    if node.type == "export_statement":  # export { x } from './x'; export * from './y'
        return node.child_by_field_name("source") is not None
    if node.type in ("lexical_declaration", "variable_declaration"):
        declarators = [c for c in node.named_children if c.type == "variable_declarator"]
        return any(_requires(d.child_by_field_name("value")) for d in declarators)
    if node.type == "expression_statement" and node.named_children:  # require('x'); x = require('x');
        value = node.named_children[0]
        return _requires(value.child_by_field_name("right") if value.type == "assignment_expression" else value)
    return False


def _with_attributes(node: Any) -> tuple[int, int]:
    """An import's lines with the attributes right above it (Rust's ``#[cfg(unix)]``)."""
    first = _first(node)
    sibling = node.prev_named_sibling
    while sibling is not None and sibling.type == "attribute_item" and _last(sibling) >= first - 1:
        first = _first(sibling)
        sibling = sibling.prev_named_sibling
    return first, _last(node)


# --- imports, guarded or not ----------------------------------------------------------------------


def _opening(node: Any) -> tuple[int, int]:
    """The opening lines of a guard or branch: its first line to the end of its condition."""
    last = _first(node)
    for name in ("condition", "name", "value"):
        part = node.child_by_field_name(name)
        if part is not None:
            last = max(last, _last(part))
    for child in node.named_children:
        if child.type == "with_clause":
            last = max(last, _last(child))
    return _first(node), last


#: The condition of a script's main block: the imports in it are the script's, not the module's.
_MAIN = re.compile(
    r"""__name__\s*==\s*['"]__main__['"]|['"]__main__['"]\s*==\s*__name__|require\.main\s*===?\s*module"""
)


def _is_main_block(node: Any) -> bool:
    condition = node.child_by_field_name("condition")
    return node.type == "if_statement" and condition is not None and _MAIN.search(condition.text.decode()) is not None


def _defines(node: Any, blocking: frozenset[str]) -> bool:
    """Whether a definition (a function, a class) lies anywhere under ``node``."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in blocking:
            return True
        stack.extend(current.named_children)
    return False


@dataclass
class _Finder:
    """Finds the lines the head shows of a file's imports: each import whole; a short guard that
    holds imports and defines nothing whole; a longer one by its opening lines, the opening lines
    of each of its branches (``else:``, ``except ImportError:``, ``#elif``) and its imports."""

    kinds: _Kinds
    blocking: frozenset[str]  # node types of definitions: a guard holding one is never whole
    holds: dict[int, bool] = field(default_factory=dict)  # node id → holds an import

    def is_block(self, node: Any) -> bool:
        """Whether ``node`` is a guard or a branch of one (not a script's main block)."""
        kinds = self.kinds
        return (node.type in kinds.guards or node.type in kinds.branches) and not _is_main_block(node)

    def holds_imports(self, node: Any) -> bool:
        """Whether an import lies in ``node``'s blocks, guards and branches (not in a function)."""
        if node.id not in self.holds:
            self.holds[node.id] = any(
                _is_import(child, self.kinds)
                or ((child.type in self.kinds.bodies or self.is_block(child)) and self.holds_imports(child))
                for child in node.named_children
            )
        return self.holds[node.id]

    def lines(self, nodes: Sequence[Any], in_shown_guard: bool = False) -> list[tuple[int, int]]:
        """The line ranges the head shows for ``nodes`` (statements of one block, in order)."""
        found: list[tuple[int, int]] = []
        for node in nodes:
            if _is_import(node, self.kinds):
                found.append(_with_attributes(node))
            elif node.type in self.kinds.bodies:
                found.extend(self.lines(node.named_children))
            elif not self.is_block(node):
                continue
            elif not self.holds_imports(node):
                if in_shown_guard and node.type in self.kinds.branches:
                    found.append(_opening(node))
            elif (
                node.type in self.kinds.guards
                and _last(node) - _first(node) < GUARD_LINES
                and not _defines(node, self.blocking)
            ):
                found.append((_first(node), _last(node)))
            else:
                found.extend([_opening(node), *self.lines(node.named_children, in_shown_guard=True)])
        return found


# --- the prelude ----------------------------------------------------------------------------------


def _is_string_statement(node: Any) -> bool:
    """A docstring or a directive (``'use strict'``): a statement that is one string."""
    named = node.named_children
    return node.type == "expression_statement" and len(named) == 1 and named[0].type == "string"


def _prelude(root: Any, kinds: _Kinds, before: int, blocking: frozenset[str]) -> tuple[int, list[tuple[int, int]]]:
    """The last line of the prelude (0: none) that ends before line ``before``, and the
    docstrings' line ranges in it. Comments right above the statement that ends the prelude
    (no blank line between) are that statement's, unless the head shows it (an import)."""
    nodes: list[Any] = []
    after = None
    for node in root.named_children:
        if _last(node) >= before or not (
            _is_string_statement(node) or node.type in _COMMENTS or node.type in kinds.prelude
        ):
            after = node
            break
        nodes.append(node)
    if after is not None and not _Finder(kinds, blocking).lines([after]):
        while nodes and nodes[-1].type in _COMMENTS and _first(after) - _last(nodes[-1]) <= 1:
            after = nodes.pop()
    docstrings = [(_first(node), _last(node)) for node in nodes if _is_string_statement(node)]
    return (_last(nodes[-1]) if nodes else 0), docstrings


def _prelude_parts(lines: Sequence[str], end: int) -> tuple[list[tuple[int, int]], list[LeftOut]]:
    """Lines ``1..end`` without their long licences, blank lines at the edges of each part dropped;
    and the licences left out."""
    runs = licence_runs(lines[:end], 1)
    parts, start = [], 1
    for a, b in [*runs, (end + 1, end + 1)]:
        first, last = start, a - 1
        while first <= last and not lines[first - 1].strip():
            first += 1
        while last >= first and not lines[last - 1].strip():
            last -= 1
        if first <= last:
            parts.append((first, last))
        start = b + 1
    return parts, [LeftOut(a, b, "a licence") for a, b in runs]


def _capped_prelude(
    parts: list[tuple[int, int]], docstrings: list[tuple[int, int]]
) -> tuple[list[tuple[int, int]], LeftOut | None]:
    """``parts`` (prelude lines) cut after ``PRELUDE_LINES`` lines, and what the cut left out."""
    kept, cut = _cut_at(parts, PRELUDE_LINES)
    if not cut:
        return kept, None
    in_docstring = any(a <= cut <= b for a, b in docstrings)
    return kept, LeftOut(cut, parts[-1][1], f"the rest of the {'docstring' if in_docstring else 'opening comment'}")


# --- assembling -----------------------------------------------------------------------------------


def _joined(ranges: Sequence[tuple[int, int]], lines: Sequence[str]) -> list[tuple[int, int]]:
    """``ranges`` in order, overlapping ones and ones with only blank lines between them joined."""
    joined: list[tuple[int, int]] = []
    for a, b in sorted(ranges):
        if joined and all(not line.strip() for line in lines[joined[-1][1] : a - 1]):
            joined[-1] = (joined[-1][0], max(joined[-1][1], b))
        else:
            joined.append((a, b))
    return joined


def _cut_at(ranges: list[tuple[int, int]], cap: int) -> tuple[list[tuple[int, int]], int]:
    """The first ``cap`` lines of ``ranges``, and the first line past them (0: nothing cut). Up to
    ``NOTE_LINES`` lines over ``cap`` are kept: the line that would say so costs as much."""
    if sum(b - a + 1 for a, b in ranges) <= cap + NOTE_LINES:
        return ranges, 0
    kept, used = [], 0
    for a, b in ranges:
        if used + b - a + 1 > cap:
            if used < cap:
                kept.append((a, a + cap - used - 1))
            return kept, a + cap - used
        kept.append((a, b))
        used += b - a + 1
    return kept, 0


def code_head(
    language: str,
    root: Any,
    lines: Sequence[str],
    before: int,
    blocking: frozenset[str],
    rows: Collection[int] = frozenset(),
) -> Head:
    """The head of a file in ``language`` (``python``, ``javascript``, … as ``outline`` names
    them) parsed by tree-sitter (``root``): its prelude and imports before line ``before`` (the
    first definition), runs of imports over ``NOTE_LINES`` lines left out unless one of ``rows``
    (the lines of the outline's rows: a guard's ``except ImportError: class Bar``, a prototype
    under ``#ifdef``) lies in it, capped at ``PRELUDE_LINES`` and ``HEAD_LINES`` lines, and the
    imports from ``before`` on. ``blocking``: the node types of definitions (a guard holding one
    is never shown whole)."""
    kinds = _KINDS.get(language)
    if kinds is None:
        return Head()
    end, docstrings = _prelude(root, kinds, before, blocking)
    parts, licences = _prelude_parts(lines, end)
    parts, rest = _capped_prelude(parts, docstrings)
    left_out = [lic for lic in licences if rest is None or not rest.first <= lic.first <= rest.last]
    left_out += [rest] if rest else []
    finder = _Finder(kinds, blocking)
    imports = finder.lines(root.named_children)
    packages = [(_first(node), _last(node)) for node in root.named_children if node.type in _PACKAGES]
    guards = [(_first(n), _last(n)) for n in root.named_children if finder.is_block(n) and finder.holds_imports(n)]
    runs = _joined([r for r in imports if r[0] < before and r not in packages], lines)
    long_runs = [
        (a, b)
        for a, b in runs
        if b - a + 1 > NOTE_LINES
        and not any(a <= n <= b for n in rows)
        # the opening of a guard whose next line is a row (``except ImportError:`` / ``class Bar:``)
        and not (b + 1 in rows and any(g_first <= b < g_last for g_first, g_last in guards))
    ]
    left_out += [LeftOut(a, b, "imports") for a, b in long_runs]
    head = _joined([*parts, *packages, *(r for r in runs if r not in long_runs)], lines)
    head, cut = _cut_at(head, HEAD_LINES)
    if cut:
        last = max((b for a, b in imports if a < before), default=cut)
        left_out.append(LeftOut(cut, max(last, cut), "more imports"))
    later = _joined([r for r in imports if r[0] >= before], lines)
    later, cut = _cut_at(later, LATER_LINES)
    if cut:
        left_out.append(LeftOut(cut, max(b for a, b in imports), "more imports among the definitions"))
    return Head(tuple(head), tuple(sorted(left_out, key=lambda piece: piece.first)), tuple(later))


def head_lines(head: Lines) -> Iterator[int]:
    """Each line number of ``head`` (ranges) in order."""
    for a, b in head:
        yield from range(a, b + 1)
