"""The tree-sitter grammars outlines read code with: per language, the node types that are
definitions (with their kind) and those whose bodies hold nested definitions; and the language
each file extension is read as. Data only."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Grammar:
    module: str
    function: str
    kinds: dict[str, str]  # node type → kind
    containers: frozenset[str]  # node types whose bodies hold nested definitions
    declarations: frozenset[str] = frozenset()  # kinds listed only outside a type's body
    members: frozenset[str] = frozenset()  # containers that are a type's body (impl, class)


#: ``export default class { … }`` and ``export default function () { … }``: listed as ``default``.
DEFAULT_EXPORTS = {"class": "class", "function_expression": "function", "function": "function"}
JS_FUNCTIONS = frozenset({"arrow_function", "function_expression", "function", "class", "generator_function"})
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
GRAMMARS: dict[str, Grammar] = {
    "javascript": Grammar(
        "tree_sitter_javascript",
        "language",
        {
            "class_declaration": "class",
            "function_declaration": "function",
            "generator_function_declaration": "function",
            "method_definition": "method",
            **DEFAULT_EXPORTS,
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
    "typescript": Grammar(
        "tree_sitter_typescript",
        "language_typescript",
        {
            "class_declaration": "class",
            "abstract_class_declaration": "class",
            "function_declaration": "function",
            "generator_function_declaration": "function",
            "method_definition": "method",
            "abstract_method_signature": "method",
            **DEFAULT_EXPORTS,
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
    "go": Grammar(
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
    "rust": Grammar(
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
    "java": Grammar(
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
    "python": Grammar(
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
    "c": Grammar("tree_sitter_c", "language", _C_KINDS, _C_BLOCKS, _C_DECLARATIONS),
    "cpp": Grammar(
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
EXTENSIONS = {
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
