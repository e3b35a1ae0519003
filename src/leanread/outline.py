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
from dataclasses import dataclass
from functools import cache
from typing import Any

from .errors import InvalidArgument

#: Lines of head and tail shown for a file with no structure leanread knows (a log).
HEAD_TAIL_LINES = 20
#: Longest head (module docstring, imports) shown for code.
HEAD_LINES = 40


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
    """

    name: str
    kind: str
    first: int
    last: int
    line: int
    depth: int


@dataclass(frozen=True)
class Outline:
    """The map of one file.

    Attributes:
        language: what the file was read as (``python``, ``markdown``, ``log``, …).
        total: lines in the file.
        head: lines ``1..head`` are shown whole (0: none).
        symbols: definitions in file order.
        tail: lines ``tail..total`` are shown whole (0: none; logs only).
    """

    language: str
    total: int
    head: int
    symbols: tuple[Symbol, ...]
    tail: int = 0


# --- Python (ast) ---------------------------------------------------------------------------------


def _python(lines: Sequence[str]) -> Outline | None:
    try:
        tree = ast.parse("\n".join(lines))
    except (SyntaxError, ValueError):
        return None
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
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                kind = "class" if isinstance(node, ast.ClassDef) else "method" if in_class else "function"
                name = prefix + node.name
                symbols.append(Symbol(name, kind, first, node.end_lineno or node.lineno, node.lineno, depth))
                if isinstance(node, ast.ClassDef):
                    visit(node.body, name + ".", depth + 1, True)
            elif depth == 0 and isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [t.id for t in targets if isinstance(t, ast.Name)]
                if names:
                    end = node.end_lineno or node.lineno
                    symbols.append(Symbol(names[0], "variable", node.lineno, end, node.lineno, 0))

    visit(tree.body, "", 0, False)
    return Outline("python", len(lines), _python_head(tree, len(lines)), tuple(symbols))


def _python_head(tree: ast.Module, total: int) -> int:
    """Last line of the module docstring and the imports before the first other statement."""
    head = 0
    for index, node in enumerate(tree.body):
        docstring = index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if docstring or isinstance(node, ast.Import | ast.ImportFrom):
            head = node.end_lineno or node.lineno
        else:
            break
    return min(head, HEAD_LINES, total)


# --- tree-sitter languages ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Grammar:
    module: str
    function: str
    kinds: dict[str, str]  # node type → kind
    containers: frozenset[str]  # node types whose bodies hold nested definitions


_JS_FUNCTIONS = frozenset({"arrow_function", "function_expression", "function", "class", "generator_function"})
# include guards, #if blocks and extern "C" { … } hold a header's definitions
_C_BLOCKS = frozenset(
    {"preproc_ifdef", "preproc_if", "preproc_else", "preproc_elif", "linkage_specification", "declaration_list"}
)
_C_KINDS = {"function_definition": "function", "struct_specifier": "struct", "enum_specifier": "enum"}
_GRAMMARS: dict[str, _Grammar] = {
    "javascript": _Grammar(
        "tree_sitter_javascript",
        "language",
        {
            "class_declaration": "class",
            "function_declaration": "function",
            "generator_function_declaration": "function",
            "method_definition": "method",
        },
        frozenset(
            {
                "class_declaration",
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
            "interface_declaration": "interface",
            "type_alias_declaration": "type",
            "enum_declaration": "enum",
            "internal_module": "namespace",
        },
        frozenset(
            {
                "class_declaration",
                "abstract_class_declaration",
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
        {"function_declaration": "function", "method_declaration": "method", "type_spec": "type"},
        frozenset({"type_declaration"}),
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
        },
        frozenset({"impl_item", "trait_item", "mod_item", "declaration_list"}),
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
            }
        ),
    ),
    "c": _Grammar("tree_sitter_c", "language", _C_KINDS, _C_BLOCKS),
    "cpp": _Grammar(
        "tree_sitter_cpp",
        "language",
        {**_C_KINDS, "class_specifier": "class", "namespace_definition": "namespace"},
        frozenset(
            {
                "class_specifier",
                "struct_specifier",
                "field_declaration_list",
                "namespace_definition",
                "declaration_list",
                "template_declaration",
            }
        ),
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


def _qualified_name(node: Any) -> str | None:
    """The name a definition is listed and looked up by: a Go method as ``Type.Method`` (its
    receiver's type), a Rust ``impl`` as ``impl Type`` or ``impl Trait for Type``."""
    name = _node_name(node)
    if name is None:
        return None
    if node.type == "method_declaration" and (receiver := node.child_by_field_name("receiver")) is not None:
        kinds = [c for c in receiver.named_children if c.type == "parameter_declaration"]
        typ = kinds[0].child_by_field_name("type") if kinds else None
        if typ is not None:
            receiver_type = str(typ.text.decode("utf-8", "replace")).lstrip("*")
            return f"{receiver_type}.{name}"
    if node.type == "impl_item":
        trait = node.child_by_field_name("trait")
        return f"impl {trait.text.decode('utf-8', 'replace')} for {name}" if trait is not None else f"impl {name}"
    return name


def _node_name(node: Any) -> str | None:
    # a C/C++ function is named by its declarator (its "type" field is the return type)
    field = (
        None
        if node.type == "function_definition"
        else node.child_by_field_name("name") or node.child_by_field_name("type")
    )
    if field is None:
        field = node.child_by_field_name("declarator")
        while field is not None and field.type not in (
            "identifier",
            "field_identifier",
            "qualified_identifier",
            "destructor_name",
            "operator_name",
        ):
            field = field.child_by_field_name("declarator") or field.child_by_field_name("name")
    return field.text.decode("utf-8", "replace") if field is not None else None


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


_LEADING = frozenset(
    {"decorator", "attribute_item", "attribute", "annotation", "comment", "line_comment", "block_comment"}
)


def _leading_start(node: Any) -> int:
    """First line of a definition, with the decorators, attributes, doc comments and ``template``
    line right before it (each on the line after the one before)."""
    if node.parent is not None and node.parent.type == "template_declaration":
        node = node.parent
    first: int = node.start_point[0]
    sibling = node.prev_named_sibling
    while sibling is not None and sibling.type in _LEADING and sibling.end_point[0] >= first - 1:
        first = sibling.start_point[0]
        sibling = sibling.prev_named_sibling
    return first + 1


def _tree_sitter(language: str, lines: Sequence[str]) -> Outline | None:
    parser = _parser(language)
    if parser is None:
        return None
    grammar = _GRAMMARS[language]
    tree = parser.parse("\n".join(lines).encode("utf-8", "surrogateescape"))
    symbols: list[Symbol] = []

    def visit(node: Any, prefix: str, depth: int) -> None:
        for child in node.named_children:
            kind = grammar.kinds.get(child.type)
            if language in ("javascript", "typescript") and child.type in _JS_BINDINGS:
                kind, name = _js_binding(child)
                if kind == "object" and name:  # a namespace object: its methods are definitions
                    value = child.child_by_field_name("value") or child.child_by_field_name("right")
                    symbols.append(
                        Symbol(
                            prefix + name,
                            "object",
                            child.start_point[0] + 1,
                            child.end_point[0] + 1,
                            child.start_point[0] + 1,
                            depth,
                        )
                    )
                    visit(value, prefix + name + ".", depth + 1)
                    continue
            else:
                name = _qualified_name(child) if kind else None
            if kind == "struct" and child.child_by_field_name("body") is None:
                name = None  # a use of a struct type, not its definition
            if name:
                first, last = _leading_start(child), child.end_point[0] + 1
                qualified = prefix + name
                symbols.append(Symbol(qualified, kind or "", first, last, first, depth))
                if child.type in grammar.containers:  # an impl's methods are the type's: Config.new
                    owner = prefix + (_node_name(child) or name) if child.type == "impl_item" else qualified
                    visit(child, owner + ".", depth + 1)
            elif child.type in grammar.containers:
                visit(child, prefix, depth)

    visit(tree.root_node, "", 0)
    return Outline(
        language, len(lines), _code_head(lines, symbols[0].first if symbols else len(lines) + 1), tuple(symbols)
    )


def _code_head(lines: Sequence[str], first_symbol: int) -> int:
    """Last line of the leading comments, imports and blank lines (before ``first_symbol``)."""
    head, in_comment = 0, False
    for number, line in enumerate(lines[:HEAD_LINES], start=1):
        if number >= first_symbol:
            break
        text = line.strip()
        leading = (
            in_comment
            or not text
            or re.match(
                r"((import|from|use|package|using)\b|#|require\(|//|/\*|\*|'use strict'|\"use strict\"|extern \"C\")",
                text,
            )
        )
        if not leading:
            break
        if text.startswith("/*") and "*/" not in text[2:]:
            in_comment = True
        elif in_comment and "*/" in text:
            in_comment = False
        head = number
    return head


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
    return Outline("markdown", len(lines), 0, _sections(marks, len(lines), "heading"))


def _rst(lines: Sequence[str]) -> Outline:
    marks: list[tuple[int, int, str]] = []
    levels: list[str] = []
    for number in range(2, len(lines) + 1):
        line, title = lines[number - 1], lines[number - 2].strip()
        if title and re.fullmatch(r"([=\-~^\"'`#*+.:_])\1{2,}\s*", line) and len(line.rstrip()) >= len(title):
            if line[0] not in levels:
                levels.append(line[0])
            marks.append((number - 1, levels.index(line[0]) + 1, title))
    return Outline("rst", len(lines), 0, _sections(marks, len(lines), "heading"))


def _keys(language: str, lines: Sequence[str], pattern: str) -> Outline:
    """Top-level keys found by ``pattern`` on unindented lines; each runs to the next."""
    marks = [(n, 1, m.group(1)) for n, line in enumerate(lines, start=1) if (m := re.match(pattern, line))]
    return Outline(language, len(lines), 0, _sections(marks, len(lines), "key"))


def _toml(lines: Sequence[str]) -> Outline:
    """Tables (``[name]``, ``[[name]]``), and the keys before the first table."""
    marks: list[tuple[int, int, str]] = []
    for number, line in enumerate(lines, start=1):
        table = re.match(r"^\s*(\[\[?[^\]]+\]\]?)\s*(?:#.*)?$", line)
        key = None if table or marks else re.match(r"^([A-Za-z0-9_\-\"'.]+)\s*=", line)
        if found := table or key:
            marks.append((number, 1, found.group(1)))
    return Outline("toml", len(lines), 0, _sections(marks, len(lines), "key"))


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
    return Outline("json", len(lines), 0, _sections(marks, len(lines), "key"))


def head_and_tail(total: int) -> Outline:
    """The map of a file with no structure leanread knows (a log): its first and last lines."""
    head = min(HEAD_TAIL_LINES, total)
    tail = max(total - HEAD_TAIL_LINES + 1, head + 1)
    return Outline("log", total, head, (), tail if tail <= total else 0)


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
    and tail)."""
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
    if found and len({s.name for s in found}) == 1:  # a getter and its setter, overloads: read them all
        first, last = min(s.first for s in found), max(s.last for s in found)
        return Symbol(found[0].name, found[0].kind, first, last, found[0].line, found[0].depth)
    if found:
        listed = ", ".join(f"{s.name} (lines {s.first}-{s.last})" for s in found[:8])
        raise InvalidArgument(
            f"symbol={wanted!r} names {len(found)} definitions in {display}: {listed}; use the full name."
        )
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


def shown_lines(made: Outline) -> Iterator[int]:
    """The line numbers an outline shows whole: its head, each signature line, its tail."""
    yield from range(1, made.head + 1)
    yield from (s.line for s in made.symbols)
    if made.tail:
        yield from range(made.tail, made.total + 1)
