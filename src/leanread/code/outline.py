"""The map of a file: its head and every definition with its line range, and ``symbol=`` lookups.

Python is read with ``ast``; JavaScript, TypeScript, Go, Rust, Java, C and C++ with tree-sitter
grammars installed as wheels (nothing is downloaded at run time); Markdown headings, JSON, YAML
and TOML top-level keys with small line scanners; anything else (logs) as head and tail. Line
numbers are 1-based and inclusive. Pure: lines in, an ``Outline`` out.
"""

from __future__ import annotations

import ast
import difflib
import importlib
import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from ..errors import InvalidArgument
from ..memo import LRU, lines_digest
from .outlinehead import VALUE_KINDS, Head, LeftOut, code_head, head_lines
from .pyparse import parse_python

#: Lines of head and tail shown for a file with no structure leanread knows (a log).
HEAD_TAIL_LINES = 20


@dataclass(frozen=True)
class Symbol:
    """One definition or heading.

    Attributes:
        name: qualified name (``QuerySet.filter``, ``Install > Linux`` for headings).
        kind: ``class``, ``function``, ``method``, ``variable``, ``heading``, ``key``, ``type``, …
        first: first line, decorators and leading doc comments included.
        last: last line.
        line: the line that carries its signature (shown in the outline).
        depth: nesting depth (0 at the top).
        marks: first lines of its decorators, attributes, annotations or ``template`` header,
            between ``first`` and ``line`` (shown above its row).
    """

    name: str
    kind: str
    first: int
    last: int
    line: int
    depth: int
    marks: tuple[int, ...] = ()


@dataclass(frozen=True)
class Outline:
    """The map of one file.

    Attributes:
        language: what the file was read as (``python``, ``markdown``, ``log``, …).
        total: lines in the file.
        head: line ranges ``(first, last)`` shown whole above the definitions (a log: its first
            lines; code: the prelude and imports, see ``outlinehead``), at most ``HEAD_LINES``.
        symbols: definitions in file order.
        tail: lines ``tail..total`` are shown whole (0: none; logs only).
        left_out: parts of the head not shown (a long licence, more imports), each said by one
            line that names its lines.
        later: line ranges of imports after the first definition, shown whole among the rows.
        problem: why the map may be off (Python that ``ast`` cannot parse, mapped by an
            error-tolerant parser), or None.
    """

    language: str
    total: int
    head: tuple[tuple[int, int], ...]
    symbols: tuple[Symbol, ...]
    tail: int = 0
    left_out: tuple[LeftOut, ...] = ()
    later: tuple[tuple[int, int], ...] = ()
    problem: str | None = None


# --- Python (ast) ---------------------------------------------------------------------------------


def _code_outline(language: str, lines: Sequence[str], tree: Any, symbols: Sequence[Symbol]) -> Outline:
    """The outline of code parsed by tree-sitter (``tree``; None: no head) with ``symbols``."""
    before = _first_definition(symbols)
    head = Head() if tree is None else code_head(language, tree.root_node, lines, before, _blocking(language))
    return Outline(language, len(lines), head.shown, tuple(symbols), left_out=head.left_out, later=head.later)


def _first_definition(symbols: Sequence[Symbol]) -> int:
    """The first line of the first top-level definition that is not a value (a function, a
    class; not a constant or a global), or a line past any file when there is none."""
    return min((s.first for s in symbols if s.depth == 0 and s.kind not in VALUE_KINDS), default=1 << 62)


@cache
def _blocking(language: str) -> frozenset[str]:
    """The tree-sitter node types of ``language``'s definitions that are not values."""
    kinds = _GRAMMARS[language].kinds
    return frozenset({t for t, kind in kinds.items() if kind not in VALUE_KINDS} | {"decorated_definition"})


def _python(lines: Sequence[str]) -> Outline | None:
    """The outline through ``ast``; Python it cannot parse through tree-sitter, with the reason."""
    try:
        tree = parse_python("\n".join(lines))
    except (SyntaxError, ValueError) as exc:
        made = _tree_sitter("python", lines)
        where = f"line {exc.lineno}: " if isinstance(exc, SyntaxError) and exc.lineno else ""
        reason = exc.msg if isinstance(exc, SyntaxError) else str(exc)
        return replace(made, problem=f"Python cannot parse this file ({where}{reason})") if made is not None else None
    symbols: list[Symbol] = []

    def visit(body: Sequence[ast.stmt], prefix: str, depth: int, in_class: bool) -> None:
        for node in body:
            # definitions under `if TYPE_CHECKING:`, `try: … except ImportError:`, `with …:` count too
            if isinstance(node, ast.If | ast.Try | ast.With | ast.AsyncWith | ast.For | ast.While):
                for block in ("body", "orelse", "finalbody"):
                    visit(getattr(node, block, []), prefix, depth, in_class)
                for handler in getattr(node, "handlers", []):
                    visit(handler.body, prefix, depth, in_class)
                continue
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                marks = tuple(sorted({d.lineno for d in node.decorator_list}))
                first = min([node.lineno, *marks])
                kind = "class" if isinstance(node, ast.ClassDef) else "method" if in_class else "function"
                name = prefix + node.name
                end = node.end_lineno or node.lineno
                symbols.append(Symbol(name, kind, first, end, node.lineno, depth, marks))
                if isinstance(node, ast.ClassDef):
                    visit(node.body, name + ".", depth + 1, True)
            elif depth == 0 and isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [t.id for t in targets if isinstance(t, ast.Name)]
                if names:
                    end = node.end_lineno or node.lineno
                    symbols.append(Symbol(names[0], "variable", node.lineno, end, node.lineno, 0))

    visit(tree.body, "", 0, False)
    return _code_outline("python", lines, _parse("python", lines), symbols)


# --- tree-sitter languages ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Grammar:
    module: str
    function: str
    kinds: dict[str, str]  # node type → kind
    containers: frozenset[str]  # node types whose bodies hold nested definitions
    declarations: frozenset[str] = frozenset()  # kinds listed only outside a type's body
    members: frozenset[str] = frozenset()  # containers that are a type's body (impl, class)


#: ``export default class { … }`` and ``export default function () { … }``: listed as ``default``.
_DEFAULT_EXPORTS = {"class": "class", "function_expression": "function", "function": "function"}
_JS_FUNCTIONS = frozenset({"arrow_function", "function_expression", "function", "class", "generator_function"})
# include guards, #if blocks and extern "C" { … } hold a header's definitions
_C_BLOCKS = frozenset(
    {"preproc_ifdef", "preproc_if", "preproc_else", "preproc_elif", "linkage_specification", "declaration_list"}
)
_C_KINDS = {
    "function_definition": "function",
    "struct_specifier": "struct",
    "enum_specifier": "enum",
    "union_specifier": "union",
    "type_definition": "type",
    "preproc_def": "macro",
    "preproc_function_def": "macro",
    "declaration": "declaration",
}
_C_DECLARATIONS = frozenset({"type_definition", "preproc_def", "preproc_function_def", "declaration"})
_GRAMMARS: dict[str, _Grammar] = {
    "javascript": _Grammar(
        "tree_sitter_javascript",
        "language",
        {
            "class_declaration": "class",
            "function_declaration": "function",
            "generator_function_declaration": "function",
            "method_definition": "method",
            **_DEFAULT_EXPORTS,
        },
        frozenset(
            {
                "class_declaration",
                "class",
                "class_body",
                "export_statement",
                "lexical_declaration",
                "variable_declaration",
                "statement_block",
                "expression_statement",
                "object",
                # an IIFE or UMD wrapper: (function (root, factory) { … })(this, function () { … })
                "call_expression",
                "arguments",
                "parenthesized_expression",
                "function_expression",
            }
        ),
    ),
    "typescript": _Grammar(
        "tree_sitter_typescript",
        "language_typescript",
        {
            "class_declaration": "class",
            "abstract_class_declaration": "class",
            "function_declaration": "function",
            "generator_function_declaration": "function",
            "method_definition": "method",
            "abstract_method_signature": "method",
            **_DEFAULT_EXPORTS,
            "interface_declaration": "interface",
            "type_alias_declaration": "type",
            "enum_declaration": "enum",
            "internal_module": "namespace",
        },
        frozenset(
            {
                "class_declaration",
                "abstract_class_declaration",
                "class",
                "class_body",
                "export_statement",
                "internal_module",
                "statement_block",
                "interface_declaration",
                "lexical_declaration",
                "variable_declaration",
                "expression_statement",
                "object",
            }
        ),
    ),
    "go": _Grammar(
        "tree_sitter_go",
        "language",
        {
            "function_declaration": "function",
            "method_declaration": "method",
            "type_declaration": "type",
            "const_declaration": "constant",
            "var_declaration": "variable",
        },
        frozenset(),
    ),
    "rust": _Grammar(
        "tree_sitter_rust",
        "language",
        {
            "function_item": "function",
            "struct_item": "struct",
            "enum_item": "enum",
            "trait_item": "trait",
            "impl_item": "impl",
            "mod_item": "module",
            "macro_definition": "macro",
            "union_item": "union",
            "const_item": "constant",
            "static_item": "static",
            "type_item": "type",
        },
        frozenset({"impl_item", "trait_item", "mod_item", "declaration_list"}),
        frozenset({"const_item", "static_item", "type_item"}),
        frozenset({"impl_item", "trait_item"}),
    ),
    "java": _Grammar(
        "tree_sitter_java",
        "language",
        {
            "class_declaration": "class",
            "interface_declaration": "interface",
            "enum_declaration": "enum",
            "record_declaration": "record",
            "method_declaration": "method",
            "constructor_declaration": "constructor",
            "compact_constructor_declaration": "constructor",
            "annotation_type_declaration": "annotation",
            "annotation_type_element_declaration": "element",
        },
        frozenset(
            {
                "class_declaration",
                "interface_declaration",
                "enum_declaration",
                "record_declaration",
                "class_body",
                "interface_body",
                "enum_body",
                "enum_body_declarations",
                "annotation_type_declaration",
                "annotation_type_body",
            }
        ),
    ),
    # Python goes through ``ast``; this grammar maps what ``ast`` cannot parse (Python 2, a broken edit)
    "python": _Grammar(
        "tree_sitter_python",
        "language",
        {"class_definition": "class", "function_definition": "function"},
        frozenset(
            {
                "class_definition",
                "block",
                "decorated_definition",
                "if_statement",
                "elif_clause",
                "else_clause",
                "try_statement",
                "except_clause",
                "finally_clause",
                "with_statement",
                "ERROR",
            }
        ),
        members=frozenset({"class_definition"}),
    ),
    "c": _Grammar("tree_sitter_c", "language", _C_KINDS, _C_BLOCKS, _C_DECLARATIONS),
    "cpp": _Grammar(
        "tree_sitter_cpp",
        "language",
        {**_C_KINDS, "class_specifier": "class", "namespace_definition": "namespace", "alias_declaration": "type"},
        frozenset(
            {
                "class_specifier",
                "struct_specifier",
                "field_declaration_list",
                "namespace_definition",
                "declaration_list",
                "template_declaration",
                *_C_BLOCKS,
            }
        ),
        _C_DECLARATIONS | {"alias_declaration"},
        frozenset({"class_specifier", "struct_specifier"}),
    ),
}
_EXTENSIONS = {
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "typescript",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".py": "python",
    ".pyi": "python",
    ".md": "markdown",
    ".markdown": "markdown",
    ".rst": "rst",
    ".json": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".log": "log",  # head and tail
}


@cache
def _parser(language: str) -> Any:
    """A tree-sitter parser for ``language``, or None when its grammar wheel is missing."""
    grammar = _GRAMMARS[language]
    try:
        from tree_sitter import Language, Parser

        module = importlib.import_module(grammar.module)
    except ImportError:
        return None
    return Parser(Language(getattr(module, grammar.function)()))


def tree_sitter_parser(language: str) -> Any:
    """The tree-sitter parser of ``language`` (as ``language_of`` names it), or None when there is
    no grammar for it or its wheel is missing."""
    return _parser(language) if language in _GRAMMARS else None


def _qualified_name(node: Any) -> str | None:
    """The name a definition is listed and looked up by: a Go method as ``Type.Method`` (its
    receiver's type), a Rust ``impl`` as ``impl Type`` or ``impl Trait for Type``."""
    name = _node_name(node)
    if name is None:
        default = node.type in _DEFAULT_EXPORTS and node.parent is not None and node.parent.type == "export_statement"
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
    if value.type in _JS_FUNCTIONS:
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


@dataclass
class _Walk:
    """One pass over a tree-sitter tree that collects its definitions in file order."""

    language: str
    grammar: _Grammar
    symbols: list[Symbol]

    def add(self, name: str, kind: str, node: Any, depth: int) -> None:
        first, line, last, marks = _spans(node)
        self.symbols.append(Symbol(name, kind, first, last, line, depth, marks))

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


def _parse(language: str, lines: Sequence[str]) -> Any:
    """The tree-sitter tree of ``lines``, or None when the grammar's wheel is missing."""
    parser = _parser(language)
    return None if parser is None else parser.parse("\n".join(lines).encode("utf-8", "surrogateescape"))


def _tree_sitter(language: str, lines: Sequence[str]) -> Outline | None:
    tree = _parse(language, lines)
    if tree is None:
        return None
    walk = _Walk(language, _GRAMMARS[language], [])
    walk.visit(tree.root_node, "", 0)
    return _code_outline(language, lines, tree, walk.symbols)


# --- text formats ---------------------------------------------------------------------------------


def _sections(marks: list[tuple[int, int, str]], total: int, kind: str) -> tuple[Symbol, ...]:
    """Symbols from ``(line, level, title)`` marks: each runs to the line before the next mark
    of the same or a higher level."""
    symbols: list[Symbol] = []
    path: list[tuple[int, str]] = []
    for index, (line, level, title) in enumerate(marks):
        end = total
        for later_line, later_level, _ in marks[index + 1 :]:
            if later_level <= level:
                end = later_line - 1
                break
        while path and path[-1][0] >= level:
            path.pop()
        path.append((level, title))
        name = " > ".join(t for _, t in path)
        symbols.append(Symbol(name, kind, line, end, line, len(path) - 1))
    return tuple(symbols)


def _markdown(lines: Sequence[str]) -> Outline:
    marks: list[tuple[int, int, str]] = []
    fence = False
    for number, line in enumerate(lines, start=1):
        if re.match(r"\s{0,3}(```|~~~)", line):
            fence = not fence
        elif not fence and (match := re.match(r"\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$", line)):
            marks.append((number, len(match.group(1)), match.group(2)))
        elif not fence and number > 1 and re.fullmatch(r"\s{0,3}(=+|-+)\s*", line) and lines[number - 2].strip():
            marks.append((number - 1, 1 if "=" in line else 2, lines[number - 2].strip()))
    return Outline("markdown", len(lines), (), _sections(marks, len(lines), "heading"))


def _rst(lines: Sequence[str]) -> Outline:
    marks: list[tuple[int, int, str]] = []
    levels: list[str] = []
    for number in range(2, len(lines) + 1):
        line, title = lines[number - 1], lines[number - 2].strip()
        if title and re.fullmatch(r"([=\-~^\"'`#*+.:_])\1{2,}\s*", line) and len(line.rstrip()) >= len(title):
            if line[0] not in levels:
                levels.append(line[0])
            marks.append((number - 1, levels.index(line[0]) + 1, title))
    return Outline("rst", len(lines), (), _sections(marks, len(lines), "heading"))


def _keys(language: str, lines: Sequence[str], pattern: str) -> Outline:
    """Top-level keys found by ``pattern`` on unindented lines; each runs to the next."""
    marks = [(n, 1, m.group(1)) for n, line in enumerate(lines, start=1) if (m := re.match(pattern, line))]
    return Outline(language, len(lines), (), _sections(marks, len(lines), "key"))


def _toml(lines: Sequence[str]) -> Outline:
    """Tables (``[name]``, ``[[name]]``), and the keys before the first table."""
    marks: list[tuple[int, int, str]] = []
    for number, line in enumerate(lines, start=1):
        table = re.match(r"^\s*(\[\[?[^\]]+\]\]?)\s*(?:#.*)?$", line)
        key = None if table or marks else re.match(r"^([A-Za-z0-9_\-\"'.]+)\s*=", line)
        if found := table or key:
            marks.append((number, 1, found.group(1)))
    return Outline("toml", len(lines), (), _sections(marks, len(lines), "key"))


def _json(lines: Sequence[str]) -> Outline:
    """Keys of the top-level object: a key at nesting depth 1, found by a small scanner."""
    marks: list[tuple[int, int, str]] = []
    depth, in_string, escaped = 0, False, False
    for number, line in enumerate(lines, start=1):
        start = None
        for index, char in enumerate(line):
            if in_string:
                if escaped:
                    escaped = False
                elif char == "\\":
                    escaped = True
                elif char == '"':
                    in_string = False
                    if depth == 1 and start is not None and line[index + 1 :].lstrip().startswith(":"):
                        marks.append((number, 1, json.loads(line[start : index + 1])))
                    start = None
            elif char == '"':
                in_string, start = True, index
            elif char in "{[":
                depth += 1
            elif char in "}]":
                depth -= 1
    return Outline("json", len(lines), (), _sections(marks, len(lines), "key"))


def head_and_tail(total: int) -> Outline:
    """The map of a file with no structure leanread knows (a log): its first and last lines."""
    head = min(HEAD_TAIL_LINES, total)
    tail = max(total - HEAD_TAIL_LINES + 1, head + 1)
    return Outline("log", total, ((1, head),) if head else (), (), tail if tail <= total else 0)


def _log(lines: Sequence[str]) -> Outline:
    return head_and_tail(len(lines))


_SCANNERS: dict[str, Callable[[Sequence[str]], Outline | None]] = {
    "python": _python,
    "markdown": _markdown,
    "rst": _rst,
    "json": _json,
    "yaml": lambda lines: _keys("yaml", lines, r"""^(?!-|#|\s)(["']?[^:#\s][^:#]*?["']?)\s*:(?:\s|$)"""),
    "toml": lambda lines: _toml(lines),
}


def language_of(path: str) -> str | None:
    """The language ``outline`` reads ``path`` as, from its extension, or None (head and tail)."""
    suffix = path[path.rfind(".") :].lower() if "." in path.rsplit("/", 1)[-1] else ""
    return _EXTENSIONS.get(suffix)


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
    elif language in _GRAMMARS:
        made = _tree_sitter(language, lines)
    return made if made is not None and made.symbols else _log(lines)


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
        yield from s.marks
        yield s.line
    yield from head_lines(made.later)
    if made.tail:
        yield from range(made.tail, made.total + 1)
