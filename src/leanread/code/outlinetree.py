"""Definitions of code parsed by tree-sitter: their names (a Go method as ``Type.Method``, a Rust
``impl``), their spans with decorators and doc comments, Go's grouped declarations, C include
guards, and the walk that lists them in file order. Pure: lines in, an ``Outline`` out."""

from __future__ import annotations

import importlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from .outlinegrammars import DEFAULT_EXPORTS, GRAMMARS, JS_FUNCTIONS, Grammar
from .outlinehead import VALUE_KINDS, Head, code_head
from .outlinemodel import Outline, Symbol, relisted_when_mostly_trivial


def code_outline(language: str, lines: Sequence[str], tree: Any, symbols: Sequence[Symbol]) -> Outline:
    """The outline of code parsed by tree-sitter (``tree``; None: no head) with ``symbols``."""
    before = _first_definition(symbols)
    rows = {n for s in symbols if s.listed for n in (s.line, *s.marks)}
    head = Head() if tree is None else code_head(language, tree.root_node, lines, before, _blocking(language), rows)
    return Outline(language, len(lines), head.shown, tuple(symbols), left_out=head.left_out, later=head.later)


def _first_definition(symbols: Sequence[Symbol]) -> int:
    """The first line of the first top-level definition that is not a value (a function, a
    class; not a constant or a global), or a line past any file when there is none."""
    return min((s.first for s in symbols if s.depth == 0 and s.kind not in VALUE_KINDS), default=1 << 62)


@cache
def _blocking(language: str) -> frozenset[str]:
    """The tree-sitter node types of ``language``'s definitions that are not values."""
    kinds = GRAMMARS[language].kinds
    return frozenset({t for t, kind in kinds.items() if kind not in VALUE_KINDS} | {"decorated_definition"})


@cache
def _parser(language: str) -> Any:
    """A tree-sitter parser for ``language``, or None when its grammar wheel is missing."""
    grammar = GRAMMARS[language]
    try:
        from tree_sitter import Language, Parser

        module = importlib.import_module(grammar.module)
    except ImportError:
        return None
    return Parser(Language(getattr(module, grammar.function)()))


def tree_sitter_parser(language: str) -> Any:
    """The tree-sitter parser of ``language`` (as ``language_of`` names it), or None when there is
    no grammar for it or its wheel is missing."""
    return _parser(language) if language in GRAMMARS else None


def _qualified_name(node: Any) -> str | None:
    """The name a definition is listed and looked up by: a Go method as ``Type.Method`` (its
    receiver's type), a Rust ``impl`` as ``impl Type`` or ``impl Trait for Type``."""
    name = _node_name(node)
    if name is None:
        default = node.type in DEFAULT_EXPORTS and node.parent is not None and node.parent.type == "export_statement"
        return "default" if default and any(c.type == "default" for c in node.parent.children) else None
    if node.type == "method_declaration" and (receiver := node.child_by_field_name("receiver")) is not None:
        kinds = [c for c in receiver.named_children if c.type == "parameter_declaration"]
        typ = kinds[0].child_by_field_name("type") if kinds else None
        if typ is not None:
            receiver_type = str(typ.text.decode("utf-8", "replace")).lstrip("*").split("[", 1)[0]  # Stack[T]
            return f"{receiver_type}.{name}"
    if node.type == "impl_item":
        trait = node.child_by_field_name("trait")
        return f"impl {trait.text.decode('utf-8', 'replace')} for {name}" if trait is not None else f"impl {name}"
    return name


#: Node types that name what a C declarator declares.
_DECLARED = frozenset(
    {
        "identifier",
        "field_identifier",
        "type_identifier",
        "qualified_identifier",
        "destructor_name",
        "operator_name",
        "operator_cast",
    }
)
#: C/C++ nodes named by their declarator (their "type" field is the return or aliased type).
_BY_DECLARATOR = frozenset({"function_definition", "type_definition", "declaration"})


def _name_node(node: Any) -> Any:
    """The node that holds a definition's name, or None (an anonymous struct, a cast)."""
    if node.type not in _BY_DECLARATOR:
        named = node.child_by_field_name("name") or node.child_by_field_name("type")
        if named is not None:
            return named
    elif node.child_by_field_name("declarator") is None and node.child_by_field_name("name") is not None:
        return node.child_by_field_name("name")  # Python's function_definition
    field = node.child_by_field_name("declarator")
    while field is not None and field.type not in _DECLARED:
        inner = field.child_by_field_name("declarator") or field.child_by_field_name("name")
        if inner is None and field.type == "parenthesized_declarator" and field.named_children:
            inner = field.named_children[0]  # typedef int (*callback)(int);
        field = inner
    return field


def _node_name(node: Any) -> str | None:
    field = _name_node(node)
    if field is None:
        return None
    text: str = field.text.decode("utf-8", "replace")
    if field.type == "operator_cast":  # operator T*() const
        text = text.split("(", 1)[0]
    return re.sub(r"\s*(::|\.)\s*", r"\1", " ".join(text.split()))  # app::Widget::⏎compute


_JS_BINDINGS = frozenset({"variable_declarator", "pair", "assignment_expression"})


def _js_binding(node: Any) -> tuple[str | None, str | None]:
    """(kind, name) of ``x = function…``, ``x: function…`` or ``x = {…}`` in JavaScript."""
    value = node.child_by_field_name("value") or node.child_by_field_name("right")
    target = node.child_by_field_name("name") or node.child_by_field_name("key") or node.child_by_field_name("left")
    if value is None or target is None:
        return None, None
    name = target.text.decode("utf-8", "replace")
    if value.type in JS_FUNCTIONS:
        return ("method" if node.type == "pair" else "function"), name
    if value.type == "object" and node.type != "pair":
        return "object", name
    return None, None


#: Decorators, attributes and annotations: shown as their own rows above a definition's row.
_MARKS = frozenset({"decorator", "attribute_item", "attribute_declaration", "annotation", "marker_annotation"})
_COMMENTS = frozenset({"comment", "line_comment", "block_comment"})
_LEADING = _MARKS | _COMMENTS | {"attribute"}


def _spans(node: Any) -> tuple[int, int, int, tuple[int, ...]]:
    """(first, line, last, marks) of a definition, 1-based: ``first`` takes in the decorators,
    attributes, doc comments and ``template`` line right before it (each on the line after the
    one before); ``line`` is its own first line past those (for a C function: the line of its
    name, the return type may stand alone above it); ``marks`` are the first lines of its
    decorators, attributes, annotations and ``template`` header, above ``line``."""
    outer = node.parent if node.parent is not None and node.parent.type == "template_declaration" else node
    first: int = outer.start_point[0]
    marks = [first] if outer is not node else []
    sibling = outer.prev_named_sibling
    while sibling is not None and sibling.type in _LEADING and _end_row(sibling) >= first - 1:
        first = sibling.start_point[0]
        if sibling.type in _MARKS:
            marks.append(first)
        sibling = sibling.prev_named_sibling
    line = _own_line(node, marks)
    name = _name_node(node) if node.type in _NAMED_BELOW else None
    if name is not None and name.start_point[0] > line:  # modifiers or a return type alone above the name
        marks.append(line)
        line = name.start_point[0]
    elif _anonymous_typedef(node):  # typedef struct { … } Name;: the row is the Name line
        marks.append(line)
        line = _name_node(node).start_point[0]
    end_row, end_column = node.end_point
    last = max(end_row if end_column == 0 else end_row + 1, line + 1)  # a macro's node ends past its newline
    return first + 1, line + 1, last, tuple(sorted({m + 1 for m in marks if m < line}))


def _end_row(node: Any) -> int:
    """The 0-based row of ``node``'s last character (a Rust ``//`` comment's node ends past its
    newline, on the next row)."""
    row, column = node.end_point
    return int(row) - 1 if column == 0 and row > node.start_point[0] else int(row)


#: Definitions whose name may stand on a line below their start (``static int`` / ``name(…)`` in C,
#: ``public <T> List<T>`` / ``list(T t)`` in Java, ``pub`` / ``fn spread()`` in Rust): the row is
#: the name's line, the lines above it a row of their own.
_NAMED_BELOW = frozenset({"function_definition", "method_declaration", "function_item"})


def _anonymous_typedef(node: Any) -> bool:
    """Whether ``node`` is ``typedef struct { … } Name;`` over several lines (no tag: the
    first line does not name it)."""
    typ = node.child_by_field_name("type") if node.type == "type_definition" else None
    name = _name_node(node)
    return (
        typ is not None
        and typ.child_by_field_name("body") is not None
        and typ.child_by_field_name("name") is None
        and name is not None
        and name.start_point[0] > node.start_point[0]
    )


def _own_line(node: Any, marks: list[int]) -> int:
    """The 0-based line where ``node`` starts past its own decorators and annotations (a Java
    method's ``modifiers`` hold them); their lines are added to ``marks``."""
    for child in node.children:
        if child.type in _MARKS:
            marks.append(child.start_point[0])
        elif child.type == "modifiers":
            rest = [c for c in child.children if c.type not in _MARKS]
            marks.extend(c.start_point[0] for c in child.children if c.type in _MARKS)
            if rest:
                return int(rest[0].start_point[0])
        elif child.type not in _COMMENTS:
            return int(child.start_point[0])
    return int(node.start_point[0])


#: Go's const, var and type declarations: one ``const X = 1`` or a group ``const ( … )``.
_GO_DECLARATIONS = frozenset({"const_declaration", "var_declaration", "type_declaration"})
_GO_SPECS = frozenset({"const_spec", "var_spec", "type_spec", "type_alias"})
#: C/C++ types that are only declared (``struct node;``) when they have no body.
_C_TYPES = frozenset({"struct_specifier", "union_specifier", "enum_specifier", "class_specifier"})


def _go_specs(node: Any) -> list[Any]:
    """The specs of a Go declaration, a group's (``var ( … )`` wraps them in a list) included."""
    found = []
    for child in node.named_children:
        if child.type in _GO_SPECS:
            found.append(child)
        elif child.type == "var_spec_list":
            found.extend(c for c in child.named_children if c.type in _GO_SPECS)
    return found


def _is_guard(node: Any) -> bool:
    """Whether ``node`` is the ``#define X`` of an ``#ifndef X`` include guard."""
    parent, name = node.parent, node.child_by_field_name("name")
    guarded = parent.child_by_field_name("name") if parent is not None and parent.type == "preproc_ifdef" else None
    return (
        node.type == "preproc_def"
        and node.child_by_field_name("value") is None
        and guarded is not None
        and name is not None
        and guarded.text == name.text
    )


#: Kinds of definition whose row is left out when the value is trivial (``const MAX = 10``).
_VALUES = frozenset({"constant", "variable", "static", "macro", "declaration"})
#: A value that says nothing to pick a definition by: a number, a string, a (qualified) name, or
#: a call of a name with such arguments (``errors.New("closed")``), as ``outlinepython`` judges.
_ATOM = r"""-?(?:\d[\w.]*|"[^"\n]*"|'[^'\n]*'|`[^`\n]*`|[A-Za-z_][\w.:]*)"""
_TRIVIAL = re.compile(rf"{_ATOM}|[A-Za-z_][\w.:]*\((?:\s*{_ATOM}(?:\s*,\s*{_ATOM})*\s*)?\)")


def _trivial(node: Any, kind: str) -> bool:
    """Whether ``node`` is a one-line value definition whose value is trivial: Go ``const X = 1``
    (or a spec with no value, ``B`` after ``A = iota``), Rust ``const MAX: usize = 10;``, C
    ``#define SIZE 512`` or ``static int count = 0;``. A prototype or a function-like macro is not."""
    if kind not in _VALUES or node.start_point[0] != _end_row(node):
        return False
    if node.type in _GO_DECLARATIONS:
        specs = _go_specs(node)
        node = specs[0] if len(specs) == 1 else node
    if node.type == "declaration":
        declarator = node.child_by_field_name("declarator")
        if declarator is None or declarator.type not in ("init_declarator", "identifier"):
            return False  # a prototype, an array or a pointer
        node = declarator
    if node.type in ("preproc_function_def", "type_declaration", "type_spec", "type_alias"):
        return False
    value = node.child_by_field_name("value")
    if value is None:
        return node.type in ("const_spec", "var_spec", "preproc_def", "identifier")
    return _TRIVIAL.fullmatch(value.text.decode("utf-8", "replace").strip()) is not None


@dataclass
class _Walk:
    """One pass over a tree-sitter tree that collects its definitions in file order."""

    language: str
    grammar: Grammar
    symbols: list[Symbol]

    def add(self, name: str, kind: str, node: Any, depth: int) -> None:
        first, line, last, marks = _spans(node)
        self.symbols.append(Symbol(name, kind, first, last, line, depth, marks, listed=not _trivial(node, kind)))

    def visit(self, node: Any, prefix: str, depth: int, in_type: bool = False) -> None:
        """List the definitions among ``node``'s children; look into containers. Declarations
        (``const``, ``typedef``, globals) count only outside a type's body (``in_type``)."""
        for child in node.named_children:
            if self.language in ("javascript", "typescript") and child.type in _JS_BINDINGS:
                self.binding(child, prefix, depth)
                continue
            kind = self.grammar.kinds.get(child.type)
            if kind and in_type and child.type in self.grammar.declarations:
                kind = None
            if kind == "function" and in_type:
                kind = "method"
            if kind and child.type in _GO_DECLARATIONS:
                self.go_declaration(child, kind, prefix, depth)
                continue
            name = _qualified_name(child) if kind else None
            if (child.type in _C_TYPES and child.child_by_field_name("body") is None) or _is_guard(child):
                name = None  # a use or forward declaration of a type, not its definition
            if kind and name:
                qualified = prefix + name
                self.add(qualified, kind, child, depth)
                if child.type in self.grammar.containers:  # an impl's methods are the type's: Config.new
                    owner = prefix + (_node_name(child) or name) if child.type == "impl_item" else qualified
                    self.visit(child, owner + ".", depth + 1, child.type in self.grammar.members)
            elif child.type in self.grammar.containers:
                self.visit(child, prefix, depth, in_type or child.type in self.grammar.members)

    def binding(self, child: Any, prefix: str, depth: int) -> None:
        """A JavaScript ``x = function…`` (a function) or ``x = {…}`` (a namespace object whose
        methods are definitions); anything else is looked into when it is a container."""
        kind, name = _js_binding(child)
        if kind and name:
            self.add(prefix + name, kind, child, depth)
            if kind == "object":
                value = child.child_by_field_name("value") or child.child_by_field_name("right")
                self.visit(value, prefix + name + ".", depth + 1)
        elif child.type in self.grammar.containers:
            self.visit(child, prefix, depth)

    def go_declaration(self, node: Any, kind: str, prefix: str, depth: int) -> None:
        """``const X = 1`` as ``X``; a group ``const ( … )`` as ``const (A, …)`` with each
        spec (``A``, ``B``) nested under it."""
        specs = [(spec, _node_name(spec)) for spec in _go_specs(node)]
        named = [(spec, name) for spec, name in specs if name]
        grouped = any(c.type in ("(", "var_spec_list") for c in node.children)
        if not named:
            return
        if not grouped and len(specs) == 1:
            self.add(prefix + named[0][1], kind, node, depth)
            return
        keyword = node.children[0].text.decode("utf-8", "replace")
        more = ", …" if len(named) > 1 else ""
        self.add(f"{keyword} ({named[0][1]}{more})", kind, node, depth)
        for spec, name in named:
            self.add(prefix + name, kind, spec, depth + 1)


def parse_tree(language: str, lines: Sequence[str]) -> Any:
    """The tree-sitter tree of ``lines``, or None when the grammar's wheel is missing."""
    parser = _parser(language)
    return None if parser is None else parser.parse("\n".join(lines).encode("utf-8", "surrogateescape"))


def tree_sitter_outline(language: str, lines: Sequence[str]) -> Outline | None:
    tree = parse_tree(language, lines)
    if tree is None:
        return None
    walk = _Walk(language, GRAMMARS[language], [])
    walk.visit(tree.root_node, "", 0)
    return code_outline(language, lines, tree, relisted_when_mostly_trivial(walk.symbols))
