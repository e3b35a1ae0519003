"""Names in a Python file, read with tree-sitter (it parses a broken file too, and is several times
faster than ``ast`` over a whole tree): definitions at module and class level (functions, classes,
assignments; functions and classes inside functions as ``local``), imports with their aliases,
``__all__``, and the uses of names.

Kept uses: every attribute (``x.get``: ``get`` on ``x``), and the bare names that can refer to
another definition of the workspace: names this file imports or defines at its top level (a bare
name bound nowhere in the file is a local or a builtin; Python has no other way to see a name of
another file), or any name in a file with a star import.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

from ..code.outline import tree_sitter_parser
from .facts import EXPORT, IMPORT, MODULE, STAR, Binding, Definition, FileFacts, SourceLines, Use
from .scan import EQUALS, bare_uses, receiver_before

_BLOCKS = frozenset({"if_statement", "try_statement", "with_statement", "for_statement", "while_statement"})
_CLAUSES = frozenset({"elif_clause", "else_clause", "except_clause", "finally_clause", "block", "except_group_clause"})


@cache
def _attributes() -> Any:
    from tree_sitter import Query

    language = tree_sitter_parser("python").language
    return Query(language, "(attribute attribute: (identifier) @attribute)")


def _text(node: Any) -> str:
    return str(node.text.decode("utf-8", "replace"))


class _Walk:
    """One pass over the statements (not the expressions) of a module."""

    def __init__(self, lines: SourceLines) -> None:
        self.lines = lines
        self.facts = FileFacts("python")
        self.def_names: set[int] = set()  # start bytes of names at their definition
        self.top: set[str] = set()  # names bound at the top level

    def definition(
        self,
        name: str,
        kind: str,
        node: Any,
        name_node: Any,
        scope: str,
        outer: Any = None,
        bases: tuple[str, ...] = (),
    ) -> None:
        first = (outer or node).start_point[0] + 1
        line = name_node.start_point[0] + 1
        last = max(node.end_point[0] + (0 if node.end_point[1] == 0 else 1), line)
        signature = self.lines.signature(line)
        self.facts.definitions.append(Definition(name, kind, first, last, line, signature, scope, bases))
        self.def_names.add(name_node.start_byte)

    def body(self, block: Any, prefix: str, scope: str) -> None:
        """The statements of ``block`` (a module or a block) with names under ``prefix``."""
        for node in block.named_children:
            self.statement(node, node, prefix, scope)

    def statement(self, node: Any, outer: Any, prefix: str, scope: str) -> None:
        kind = node.type
        if kind == "decorated_definition":
            inner = node.child_by_field_name("definition")
            if inner is not None:
                self.statement(inner, node, prefix, scope)
        elif kind in ("class_definition", "function_definition"):
            self.named_block(node, outer, prefix, scope)
        elif kind == "block":
            self.body(node, prefix, scope)
        elif kind in _BLOCKS or kind in _CLAUSES:
            for child in node.named_children:
                if child.type in _CLAUSES or child.type == "block" or child.type in _BLOCKS:
                    self.statement(child, child, prefix, scope)
        elif kind == "expression_statement" and scope != "local":
            for child in node.named_children:
                if child.type in ("assignment", "augmented_assignment"):
                    self.assignment(child, node, prefix, scope)
        elif kind == "type_alias_statement" and scope != "local":
            name = node.named_children[0] if node.named_children else None
            if name is not None:
                self.definition(prefix + _text(name), "type", node, name, scope)
                self.top.add(_text(name)) if scope == "module" else None
        elif kind in ("import_statement", "import_from_statement"):
            self.imports(node)

    def named_block(self, node: Any, outer: Any, prefix: str, scope: str) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        name = _text(name_node)
        is_class = node.type == "class_definition"
        kind = "class" if is_class else ("method" if scope == "member" else "function")
        self.definition(prefix + name, kind, node, name_node, scope, outer, _bases(node) if is_class else ())
        if scope == "module":
            self.top.add(name)
        body = node.child_by_field_name("body")
        if body is not None:
            self.body(body, prefix + name + ".", "member" if is_class else "local")

    def assignment(self, node: Any, statement: Any, prefix: str, scope: str) -> None:
        left = node.child_by_field_name("left")
        if left is None:
            return
        targets = [left] if left.type == "identifier" else [c for c in left.named_children if c.type == "identifier"]
        right = node.child_by_field_name("right")
        for target in targets:
            name = _text(target)
            if name == "__all__" and scope == "module":
                self.all_names(right, node.type == "augmented_assignment")
                continue
            if node.type == "augmented_assignment":
                continue
            self.definition(prefix + name, "variable", statement, target, scope)
            if scope == "module":
                self.top.add(name)

    def all_names(self, value: Any, more: bool) -> None:
        """``__all__ = [...]`` (or ``+= [...]``): the strings of a list or tuple literal."""
        if value is None or value.type not in ("list", "tuple"):
            return
        names = [_text(s).strip("'\"") for s in value.named_children if s.type == "string"]
        self.facts.exports = [*(self.facts.exports or []), *names] if more else names

    def imports(self, node: Any) -> None:
        bindings = self.facts.bindings
        if node.type == "import_statement":
            for child in node.named_children:
                line = child.start_point[0] + 1  # a name's own line (a long import spans several)
                if child.type == "aliased_import":
                    module, alias = child.child_by_field_name("name"), child.child_by_field_name("alias")
                    if module is not None and alias is not None:
                        bindings.append(Binding(_text(alias), MODULE, _text(module), "", line))
                elif child.type == "dotted_name":  # import a.b.c binds a; a.b.c is reached through it
                    dotted = _text(child)
                    bindings.append(Binding(dotted, MODULE, dotted, "", line))
            return
        module_node = node.child_by_field_name("module_name")
        module = "".join(_text(module_node).split()) if module_node is not None else ""
        for child in node.named_children:
            if child == module_node:
                continue
            line = child.start_point[0] + 1
            if child.type == "wildcard_import":
                bindings.append(Binding("*", STAR, module, "", line))
            elif child.type == "aliased_import":
                name, alias = child.child_by_field_name("name"), child.child_by_field_name("alias")
                if name is not None and alias is not None:
                    bindings.append(Binding(_text(alias), IMPORT, module, _text(name), line))
            elif child.type == "dotted_name":
                bindings.append(Binding(_text(child), IMPORT, module, _text(child), line))


def _uses(root: Any, source: bytes, walk: _Walk) -> Iterator[Use]:
    from tree_sitter import QueryCursor

    for node in QueryCursor(_attributes()).captures(root).get("attribute", []):
        start, end = node.start_byte, node.end_byte
        row, column = node.start_point
        yield Use(source[start:end].decode("utf-8", "replace"), row + 1, column, receiver_before(source, start))
    starred = any(b.kind == STAR for b in walk.facts.bindings)
    bound = walk.top | {b.local.split(".", 1)[0] for b in walk.facts.bindings if b.kind != STAR}
    imports = {b.line for b in walk.facts.bindings}

    def wanted(node: Any, end: int) -> bool:
        if node.type != "identifier":
            return False
        if node.start_point[0] + 1 in imports and _in_import(node):
            return False
        return not (EQUALS.match(source, end) and _is_keyword(node))

    yield from bare_uses(root, source, None if starred else bound, walk.def_names, wanted)


def _is_keyword(node: Any) -> bool:
    """Whether ``node`` names a keyword argument (``f(name=…)``) or a parameter's default."""
    parent = node.parent
    return parent is not None and parent.type in ("keyword_argument", "default_parameter", "typed_default_parameter")


def _bases(node: Any) -> tuple[str, ...]:
    """The base classes of a ``class_definition`` written as names or dotted names."""
    arguments = node.child_by_field_name("superclasses")
    if arguments is None:
        return ()
    return tuple(_text(a) for a in arguments.named_children if a.type in ("identifier", "attribute"))


def _in_import(node: Any) -> bool:
    parent = node.parent
    while parent is not None and parent.type in ("dotted_name", "aliased_import", "relative_import"):
        parent = parent.parent
    return parent is not None and parent.type in ("import_statement", "import_from_statement")


def extract(source: bytes) -> FileFacts:
    """The facts of a Python source (bytes as on disk; decoded as UTF-8, errors replaced).

    Returns an empty ``FileFacts`` (with ``problem`` said) when the grammar wheel is missing.
    """
    parser = tree_sitter_parser("python")
    if parser is None:
        return FileFacts("python", problem="the tree-sitter Python grammar is not installed")
    tree = parser.parse(source)
    walk = _Walk(SourceLines(source))
    walk.body(tree.root_node, "", "module")
    walk.facts.uses = sorted(_uses(tree.root_node, source, walk), key=lambda u: (u.line, u.column))
    if tree.root_node.has_error:
        walk.facts.problem = "syntax errors (parsed around them)"
    # ``export`` bindings are a JavaScript idea; a Python module re-exports what it imports
    assert all(b.kind != EXPORT for b in walk.facts.bindings)
    return walk.facts
