"""The names ``bench navigate`` asks about, drawn at random from a source tree by syntax alone (so
the draw does not favour what leanread's index holds): a use of a name in code (not its
definition, a parameter, a keyword argument or an import), and the question an agent reading it
would ask: ``name`` for a bare name, ``recv.name`` for an attribute of a name or dotted chain
(``models.Model``), ``Class.name`` for ``self.name``/``this.name`` inside ``class Class``, and
the bare ``name`` for an attribute of anything else (a call's result).
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..code.outline import language_of, tree_sitter_parser

#: Parents whose child name is a definition, parameter, keyword or import, not a use.
_NOT_USES = frozenset(
    {
        "function_definition",
        "class_definition",
        "parameters",
        "default_parameter",
        "typed_parameter",
        "typed_default_parameter",
        "lambda_parameters",
        "keyword_argument",
        "import_statement",
        "import_from_statement",
        "dotted_name",
        "aliased_import",
        "global_statement",
        "nonlocal_statement",
        "class_declaration",
        "abstract_class_declaration",
        "function_declaration",
        "method_definition",
        "method_signature",
        "variable_declarator",
        "required_parameter",
        "optional_parameter",
        "import_specifier",
        "import_clause",
        "namespace_import",
        "export_specifier",
        "interface_declaration",
        "type_alias_declaration",
        "property_signature",
        "public_field_definition",
        "pair",
        "type_parameter",
        "enum_declaration",
        "internal_module",
        "shorthand_property_identifier_pattern",
        "pair_pattern",
    }
)
_NAMES = frozenset({"identifier", "type_identifier", "property_identifier"})
_SELF = frozenset({"self", "cls", "this"})
_CLASSES = frozenset({"class_definition", "class_declaration", "abstract_class_declaration"})
#: Nodes that open a function's scope: a definition found inside one is local.
FUNCTIONS = frozenset(
    {
        "function_definition",
        "lambda",
        "function_declaration",
        "function_expression",
        "arrow_function",
        "method_definition",
        "generator_function_declaration",
        "function_signature",
        "method_signature",
    }
)


@dataclass(frozen=True)
class Sample:
    """One use of a name and the question asked about it.

    Attributes:
        path: absolute path of the file.
        line: 0-based line; character: UTF-16 column (as LSP counts).
        query: the name asked for.
        form: ``bare``, ``receiver`` (``recv.name``) or ``class`` (``Class.name`` from ``self``).
    """

    path: str
    line: int
    character: int
    query: str
    form: str


def _text(node: Any) -> str:
    return str(node.text.decode("utf-8", "replace"))


def _is_use(node: Any) -> bool:
    parent = node.parent
    if parent is None or parent.type in _NOT_USES:
        return False
    if parent.type == "assignment" and parent.child_by_field_name("left") == node:
        return False
    return not (parent.type == "attribute" and parent.parent is not None and parent.parent.type == "dotted_name")


def _enclosing_class(node: Any) -> str | None:
    parent = node.parent
    while parent is not None:
        if parent.type in _CLASSES:
            name = parent.child_by_field_name("name")
            return _text(name) if name is not None else None
        parent = parent.parent
    return None


def _query(node: Any) -> tuple[str, str]:
    """(query, form) for a use ``node``."""
    name = _text(node)
    parent = node.parent
    holder = None
    if (parent.type == "attribute" and parent.child_by_field_name("attribute") == node) or (
        parent.type == "member_expression" and parent.child_by_field_name("property") == node
    ):
        holder = parent.child_by_field_name("object")
    elif parent.type == "nested_type_identifier" and parent.child_by_field_name("name") == node:
        holder = parent.child_by_field_name("module")
    if holder is None:
        return name, "bare"
    receiver = _text(holder)
    if receiver in _SELF:
        owner = _enclosing_class(node)
        return (f"{owner}.{name}", "class") if owner else (name, "bare")
    dotted = all(part.isidentifier() for part in receiver.split("."))
    chain = holder.type in ("identifier", "attribute", "member_expression", "nested_identifier")
    if chain and dotted and receiver.split(".", 1)[0] not in _SELF:
        return f"{receiver}.{name}", "receiver"
    return name, "bare"


def _uses(root: Any) -> Iterator[Any]:
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in _NAMES and _is_use(node):
            yield node
        stack.extend(node.children)


def _utf16(line_bytes: bytes, column: int) -> int:
    return len(line_bytes[:column].decode("utf-8", "replace").encode("utf-16-le")) // 2


def draw(files: Sequence[str], count: int, seed: int) -> Iterator[Sample]:
    """Uses drawn at random (a file at random, then a use in it at random), as many as asked
    for and the files hold; ``files`` are absolute paths of one language family."""
    chooser = random.Random(seed)
    pool = list(files)
    seen: set[tuple[str, int, int]] = set()
    tries = 0
    while pool and tries < count * 20:
        tries += 1
        path = chooser.choice(pool)
        language = language_of(path)
        parser = tree_sitter_parser(language) if language else None
        if parser is None or os.path.getsize(path) > 1_000_000:
            pool.remove(path)
            continue
        data = open(path, "rb").read()  # noqa: SIM115 - read whole, closed at once by CPython
        uses = list(_uses(parser.parse(data).root_node))
        if not uses:
            pool.remove(path)
            continue
        node = chooser.choice(uses)
        row, column = node.start_point
        key = (path, row, column)
        if key in seen:
            continue
        seen.add(key)
        line_bytes = data.split(b"\n")[row] if row < data.count(b"\n") + 1 else b""
        query, form = _query(node)
        yield Sample(path, row, _utf16(line_bytes, column), query, form)


def is_local(path: str, line: int, character: int) -> bool:
    """Whether the definition at 1-based ``line`` of ``path`` sits inside a function (a local
    variable or parameter, which an agent does not look up across the workspace)."""
    language = language_of(path)
    parser = tree_sitter_parser(language) if language else None
    if parser is None:
        return False
    data = open(path, "rb").read()  # noqa: SIM115
    lines = data.split(b"\n")
    if line - 1 >= len(lines):
        return False
    prefix = lines[line - 1].decode("utf-8", "replace")
    text16 = prefix.encode("utf-16-le")[: character * 2].decode("utf-16-le", "replace")
    column = len(text16.encode("utf-8"))
    node = parser.parse(data).root_node.descendant_for_point_range((line - 1, column), (line - 1, column))
    parent = node.parent if node is not None else None
    if parent is not None and parent.type in ("type_parameter", "required_parameter", "optional_parameter"):
        return True
    depth = 0
    while parent is not None:
        if parent.type in FUNCTIONS:
            name = parent.child_by_field_name("name")
            if depth > 0 or name is None or name.start_point != node.start_point:
                return True
        depth += 1
        parent = parent.parent
    return False
