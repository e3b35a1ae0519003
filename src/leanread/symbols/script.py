"""Names in a JavaScript or TypeScript file, read with tree-sitter: top-level definitions and what
namespaces, classes, interfaces and object literals hold; imports (ES and ``require``), exports
with their aliases and re-exports; the uses of names.

Kept uses: every property (``x.get``: ``get`` on ``x``; TypeScript's ``ns.Type``), and bare names
this file imports or defines at its top level (a module sees no other file's names but through an
import; globals are left out).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

from ..code.outline import tree_sitter_parser
from .facts import EXPORT, IMPORT, MODULE, REEXPORT, STAR, Binding, Definition, FileFacts, SourceLines, Use
from .scan import bare_uses, receiver_before
from .scriptrecover import parse_around
from .scripttypes import declared, type_names, typed_bindings

_CLASSES = frozenset({"class_declaration", "abstract_class_declaration", "class"})
_FUNCTIONS = frozenset({"function_declaration", "generator_function_declaration"})
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function", "generator_function"})
_MEMBERS = {
    "method_definition": "method",
    "method_signature": "signature",
    "abstract_method_signature": "method",
    "public_field_definition": "property",
    "field_definition": "property",
    "property_signature": "property",
}
_SIMPLE = {"type_alias_declaration": "type", "enum_declaration": "enum"}
_BARE = frozenset({"identifier", "type_identifier", "shorthand_property_identifier"})
_IMPORT_PARENTS = frozenset({"import_specifier", "import_clause", "namespace_import", "import_require_clause"})


@cache
def _properties(language: str) -> Any:
    from tree_sitter import Query

    patterns = "(member_expression property: (property_identifier) @name)"
    if language == "typescript":
        patterns += " (nested_type_identifier name: (type_identifier) @name)"
    return Query(tree_sitter_parser(language).language, patterns)


def _text(node: Any) -> str:
    return str(node.text.decode("utf-8", "replace"))


def _string(node: Any) -> str:
    """The text of a string literal node, without its quotes."""
    return _text(node)[1:-1] if node is not None else ""


class _Walk:
    """One pass over the statements at the top level (and in namespaces) of a module."""

    def __init__(self, language: str, lines: SourceLines) -> None:
        self.lines = lines
        self.facts = FileFacts(language)
        self.def_names: set[int] = set()
        self.top: set[str] = set()

    def definition(
        self, name: str, kind: str, node: Any, name_node: Any, scope: str, bases: tuple[str, ...] = ()
    ) -> None:
        line = name_node.start_point[0] + 1
        first = min(node.start_point[0] + 1, line)
        last = max(node.end_point[0] + (0 if node.end_point[1] == 0 else 1), line)
        signature = self.lines.signature(line)
        self.facts.definitions.append(Definition(name, kind, first, last, line, signature, scope, bases))
        self.def_names.add(name_node.start_byte)
        if scope == "module":
            self.top.add(name)

    def body(self, block: Any, prefix: str, scope: str) -> None:
        for node in block.named_children:
            self.statement(node, node, prefix, scope)

    def statement(self, node: Any, outer: Any, prefix: str, scope: str) -> None:
        kind = node.type
        name_node = node.child_by_field_name("name")
        if kind == "export_statement":
            self.export(node, prefix, scope)
        elif kind == "import_statement":
            self.imports(node)
        elif kind in _CLASSES and name_node is not None:
            self.container(node, outer, prefix + _text(name_node), "class", name_node, scope)
        elif kind == "interface_declaration" and name_node is not None:
            self.container(node, outer, prefix + _text(name_node), "interface", name_node, scope)
        elif kind in _FUNCTIONS and name_node is not None:
            self.definition(prefix + _text(name_node), "function", outer, name_node, scope)
        elif kind == "function_signature" and name_node is not None:  # an overload, or declared only
            self.definition(prefix + _text(name_node), "signature", outer, name_node, scope)
        elif kind in _SIMPLE and name_node is not None:
            value = node.child_by_field_name("value")  # a type alias's: its bases when it names types
            self.definition(prefix + _text(name_node), _SIMPLE[kind], outer, name_node, scope, type_names(value))
            if kind == "enum_declaration":
                self.enum_members(node, prefix + _text(name_node))
            else:
                self.type_members(value, prefix + _text(name_node))
        elif kind == "internal_module" and name_node is not None:
            name = prefix + _text(name_node)
            self.definition(name, "namespace", outer, name_node, scope)
            body = node.child_by_field_name("body")
            if body is not None:
                self.body(body, name + ".", "member")
        elif kind in ("ambient_declaration", "expression_statement"):
            for child in node.named_children:
                if child.type == "assignment_expression":
                    self.assignment(child, node)
                elif child.type in ("module", "statement_block"):
                    body = child.child_by_field_name("body") or child
                    self.body(body, prefix, scope)
                else:
                    self.statement(child, node, prefix, scope)
        elif kind in ("lexical_declaration", "variable_declaration"):
            for child in node.named_children:
                if child.type == "variable_declarator":
                    self.declarator(child, outer, prefix, scope)

    def container(self, node: Any, outer: Any, name: str, kind: str, name_node: Any, scope: str) -> None:
        """A class or interface and its members."""
        self.definition(name, kind, outer, name_node, scope, _heritage(node))
        self.members(node, name)

    def members(self, node: Any, name: str) -> None:
        """The methods and fields of a class or interface ``node`` named ``name`` (a field's
        declared type as its ``bases``; a constructor's ``private x: T`` is a field too)."""
        body = node.child_by_field_name("body")
        for member in body.named_children if body is not None else ():
            member_kind = _MEMBERS.get(member.type)
            member_name = member.child_by_field_name("name") or member.child_by_field_name("property")
            if member_kind and member_name is not None and member_name.type != "computed_property_name":
                scope = "static" if any(c.type == "static" for c in member.children) else "member"
                qualified = f"{name}.{_text(member_name)}"
                self.definition(qualified, member_kind, member, member_name, scope, declared(member))
                self.type_members(member.child_by_field_name("type"), qualified)
                if member.type == "method_definition" and _text(member_name) == "constructor":
                    self.parameter_properties(member, name)

    def type_members(self, node: Any, name: str) -> None:
        """The members an object type gives ``name``: a field's or variable's annotation
        (``x: { a: A; b(): void } | null``), or a type alias's value (``type T = {…} & {…}``)."""
        if node is None:
            return
        if node.type == "object_type":
            self.members(_Body(node), name)
        elif node.type in ("type_annotation", "union_type", "intersection_type", "parenthesized_type"):
            for part in node.named_children:
                self.type_members(part, name)

    def enum_members(self, node: Any, name: str) -> None:
        """``enum E { A, B = 2 }``: ``E.A`` and ``E.B``."""
        body = node.child_by_field_name("body")
        for member in body.named_children if body is not None else ():
            key = member.child_by_field_name("name") if member.type == "enum_assignment" else member
            if key is not None and key.type == "property_identifier":
                self.definition(f"{name}.{_text(key)}", "constant", member, key, "member")

    def parameter_properties(self, constructor: Any, name: str) -> None:
        """``constructor(private x: T)``: the field ``name.x``."""
        parameters = constructor.child_by_field_name("parameters")
        for parameter in parameters.named_children if parameters is not None else ():
            target = parameter.child_by_field_name("pattern")
            modified = any(c.type in ("accessibility_modifier", "readonly") for c in parameter.children)
            if modified and target is not None and target.type == "identifier":
                self.definition(f"{name}.{_text(target)}", "property", parameter, target, "member", declared(parameter))

    def declarator(self, node: Any, outer: Any, prefix: str, scope: str) -> None:
        """``const x = …``: a definition; ``const x = require('m')`` and ``const {a} = require('m')``
        are bindings; ``const api = {get() {…}}`` defines ``api`` and ``api.get``."""
        target, value = node.child_by_field_name("name"), node.child_by_field_name("value")
        required = _required(value)
        if target is None:
            return
        if required is not None:
            self.required(target, required, node.start_point[0] + 1)
            return
        if target.type != "identifier":
            return
        name = prefix + _text(target)
        kind = "function" if value is not None and value.type in _FUNCTION_VALUES else "variable"
        annotation = node.child_by_field_name("type")
        self.definition(name, kind, outer, target, scope, declared(node))
        self.type_members(annotation, name)
        if value is not None and value.type in _CLASSES:
            self.members(value, name)
        if value is not None and value.type == "object" and not type_names(annotation):  # typed: the type's
            for pair in value.named_children:
                key = pair.child_by_field_name("key") or pair.child_by_field_name("name")
                if pair.type in ("pair", "method_definition") and key is not None and key.type == "property_identifier":
                    self.definition(f"{name}.{_text(key)}", "method", pair, key, "member")

    def required(self, target: Any, module: str, line: int) -> None:
        bindings = self.facts.bindings
        if target.type == "identifier":
            bindings.append(Binding(_text(target), MODULE, module, "", line))
        elif target.type == "object_pattern":
            for part in target.named_children:
                if part.type == "shorthand_property_identifier_pattern":
                    bindings.append(Binding(_text(part), IMPORT, module, _text(part), line))
                elif part.type == "pair_pattern":
                    key, value = part.child_by_field_name("key"), part.child_by_field_name("value")
                    if key is not None and value is not None and value.type == "identifier":
                        bindings.append(Binding(_text(value), IMPORT, module, _text(key), line))

    def assignment(self, node: Any, statement: Any) -> None:
        """``exports.x = …``, ``module.exports.x = …``: ``x``; ``Foo.prototype.bar = …``: ``Foo.bar``."""
        left = node.child_by_field_name("left")
        if left is None or left.type != "member_expression":
            return
        prop, owner = left.child_by_field_name("property"), left.child_by_field_name("object")
        if prop is None or owner is None:
            return
        owner_text = _text(owner)
        value = node.child_by_field_name("right")
        kind = "function" if value is not None and value.type in _FUNCTION_VALUES else "variable"
        if owner_text in ("exports", "module.exports"):
            self.definition(_text(prop), kind, statement, prop, "module")
        elif owner_text.endswith(".prototype") and owner.child_by_field_name("object") is not None:
            cls = _text(owner.child_by_field_name("object"))
            self.definition(f"{cls}.{_text(prop)}", "method", statement, prop, "member")

    def export(self, node: Any, prefix: str, scope: str) -> None:
        line = node.start_point[0] + 1
        source = _string(node.child_by_field_name("source"))
        declaration = node.child_by_field_name("declaration")
        value = node.child_by_field_name("value")
        if declaration is not None:
            self.statement(declaration, node, prefix, scope)
            return
        if value is not None:
            if value.type in _CLASSES | _FUNCTION_VALUES and value.child_by_field_name("name") is None:
                self.definition("default", "class" if value.type in _CLASSES else "function", node, node, scope)
            elif value.type == "identifier":
                self.facts.bindings.append(Binding("default", EXPORT, "", _text(value), line))
            elif value.type in _CLASSES:
                self.statement(value, node, prefix, scope)
            return
        for child in node.named_children:
            if child.type == "export_clause":
                for spec in child.named_children:
                    name, alias = spec.child_by_field_name("name"), spec.child_by_field_name("alias")
                    if name is None:
                        continue
                    local = _text(alias or name)
                    kind = REEXPORT if source else EXPORT
                    self.facts.bindings.append(Binding(local, kind, source, _text(name), spec.start_point[0] + 1))
            elif child.type == "namespace_export" and child.named_children:  # export * as ns from 'm'
                self.facts.bindings.append(Binding(_text(child.named_children[-1]), REEXPORT, source, "*", line))
            elif child.type == "identifier" and not source:  # export = x
                self.facts.bindings.append(Binding("default", EXPORT, "", _text(child), line))
        if (
            source
            and any(c.type == "*" for c in node.children)
            and not any(c.type == "namespace_export" for c in node.named_children)
        ):
            self.facts.bindings.append(Binding("*", STAR, source, "", line))

    def imports(self, node: Any) -> None:
        line = node.start_point[0] + 1
        source = _string(node.child_by_field_name("source"))
        bindings = self.facts.bindings
        for clause in node.named_children:
            if clause.type == "import_require_clause":
                names = [c for c in clause.named_children if c.type == "identifier"]
                module = _string(clause.child_by_field_name("source"))
                if names:
                    bindings.append(Binding(_text(names[0]), MODULE, module, "", line))
            if clause.type != "import_clause":
                continue
            for part in clause.named_children:
                line = part.start_point[0] + 1  # a name's own line (a long import spans several)
                if part.type == "identifier":
                    bindings.append(Binding(_text(part), IMPORT, source, "default", line))
                elif part.type == "namespace_import" and part.named_children:
                    bindings.append(Binding(_text(part.named_children[-1]), MODULE, source, "", line))
                elif part.type == "named_imports":
                    for spec in part.named_children:
                        name, alias = spec.child_by_field_name("name"), spec.child_by_field_name("alias")
                        if name is not None:
                            local = _text(alias or name)
                            bindings.append(Binding(local, IMPORT, source, _text(name), spec.start_point[0] + 1))


class _Body:
    """An object type seen as a class body (its members are ``property_signature`` and
    ``method_signature`` nodes)."""

    def __init__(self, body: Any) -> None:
        self.body = body

    def child_by_field_name(self, name: str) -> Any:
        return self.body if name == "body" else None


def _heritage(node: Any) -> tuple[str, ...]:
    """What a class extends or implements, or an interface extends, as names or dotted names."""
    found: list[str] = []
    for child in node.named_children:
        if child.type in ("class_heritage", "extends_type_clause"):
            clauses = [child] if child.type == "extends_type_clause" else child.named_children
            for clause in clauses:
                for part in clause.named_children:
                    target = part.child_by_field_name("name") if part.type == "generic_type" else part
                    text = _text(target) if target is not None else ""
                    if text and all(p.isidentifier() for p in text.split(".")):
                        found.append(text)
    return tuple(found)


def _required(value: Any) -> str | None:
    """``m`` of a ``require('m')`` call, or None."""
    if value is None or value.type != "call_expression":
        return None
    function, arguments = value.child_by_field_name("function"), value.child_by_field_name("arguments")
    if function is None or _text(function) != "require" or arguments is None:
        return None
    strings = [a for a in arguments.named_children if a.type == "string"]
    return _string(strings[0]) if len(strings) == 1 else None


def _uses(language: str, root: Any, source: bytes, walk: _Walk) -> Iterator[Use]:
    from tree_sitter import QueryCursor

    for node in QueryCursor(_properties(language)).captures(root).get("name", []):
        start, end = node.start_byte, node.end_byte
        row, column = node.start_point
        yield Use(source[start:end].decode("utf-8", "replace"), row + 1, column, receiver_before(source, start))
    bound = walk.top | {b.local for b in walk.facts.bindings if b.kind in (IMPORT, MODULE)}
    imports = {b.line for b in walk.facts.bindings if b.kind in (IMPORT, MODULE)}

    def keep(node: Any, end: int) -> bool:
        if node.type not in _BARE:
            return False
        parent = node.parent
        if parent is not None and parent.type in ("pair", "pair_pattern") and parent.child_by_field_name("key") == node:
            return False
        return not (node.start_point[0] + 1 in imports and parent is not None and parent.type in _IMPORT_PARENTS)

    yield from bare_uses(root, source, bound, walk.def_names, keep)


def extract(source: bytes, language: str) -> FileFacts:
    """The facts of a JavaScript (``language="javascript"``) or TypeScript (``"typescript"``; TSX
    parses with it too) source, as bytes on disk."""
    parser = tree_sitter_parser(language)
    if parser is None:
        return FileFacts(language, problem=f"the tree-sitter {language} grammar is not installed")
    tree, parsed, broken = parse_around(parser, source)
    walk = _Walk(language, SourceLines(source))
    walk.body(tree.root_node, "", "module")
    for statement in broken:
        if statement.name:
            signature = walk.lines.signature(statement.first)
            first, last = statement.first, statement.last
            walk.facts.definitions.append(Definition(statement.name, statement.kind, first, last, first, signature))
            walk.top.add(statement.name)
        for member, kind, line in statement.members:
            member_signature = walk.lines.signature(line)
            walk.facts.definitions.append(
                Definition(f"{statement.name}.{member}", kind, line, line, line, member_signature, "member")
            )
    walk.facts.definitions.sort(key=lambda d: d.first)
    walk.facts.uses = sorted(_uses(language, tree.root_node, parsed, walk), key=lambda u: (u.line, u.column))
    walk.facts.bindings += typed_bindings(language, tree.root_node, walk.def_names)
    if broken or tree.root_node.has_error:
        walk.facts.problem = "syntax errors (parsed around them)"
    return walk.facts
