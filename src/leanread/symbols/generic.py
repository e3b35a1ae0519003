"""Names in Go, Rust, Java, C and C++ files: the definitions ``outline`` lists (with its qualified
names: ``Type.Method``, ``app::Widget::draw``), and every identifier as a use that leanread does
not resolve (``name-only``): these languages' imports name packages, not the names used.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from ..code.outline import outline_of_language, tree_sitter_parser
from .facts import Definition, FileFacts, SourceLines, Use
from .scan import receiver_before

#: Node types that are names, tried per grammar (a grammar without one of them skips it).
_NAME_NODES = ("identifier", "field_identifier", "type_identifier", "namespace_identifier")


@cache
def _names(language: str) -> Any:
    from tree_sitter import Query, QueryError

    grammar = tree_sitter_parser(language).language
    kinds = []
    for kind in _NAME_NODES:
        try:
            Query(grammar, f"({kind}) @name")
        except QueryError:
            continue
        kinds.append(kind)
    return Query(grammar, "[" + " ".join(f"({k})" for k in kinds) + "] @name")


def extract(source: bytes, language: str) -> FileFacts:
    """The facts of a source in ``language`` (``go``, ``rust``, ``java``, ``c``, ``cpp``)."""
    parser = tree_sitter_parser(language)
    if parser is None:
        return FileFacts(language, problem=f"the tree-sitter {language} grammar is not installed")
    lines = SourceLines(source)
    text_lines = source.decode("utf-8", "replace").split("\n")
    facts = FileFacts(language)
    for symbol in outline_of_language(language, text_lines).symbols:
        if " " in symbol.name or "(" in symbol.name:  # ``impl X for Y`` and ``const (A, …)`` rows
            continue
        scope = "module" if symbol.depth == 0 and "." not in symbol.name and "::" not in symbol.name else "member"
        signature = lines.signature(symbol.line)
        facts.definitions.append(
            Definition(symbol.name, symbol.kind, symbol.first, symbol.last, symbol.line, signature, scope)
        )
    defined = {(d.line, d.tail) for d in facts.definitions}
    from tree_sitter import QueryCursor

    tree = parser.parse(source)
    uses: list[Use] = []
    for node in QueryCursor(_names(language)).captures(tree.root_node).get("name", []):
        start, end = node.start_byte, node.end_byte
        row, column = node.start_point
        name = source[start:end].decode("utf-8", "replace")
        if (row + 1, name) not in defined:
            uses.append(Use(name, row + 1, column, receiver_before(source, start)))
    facts.uses = sorted(uses, key=lambda u: (u.line, u.column))
    if tree.root_node.has_error:
        facts.problem = "syntax errors (parsed around them)"
    return facts
