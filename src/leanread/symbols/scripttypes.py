"""Declared types in JavaScript and TypeScript, read from the tree: the names a type annotation
stands for, the type a value is made with, and the names a function's parameters and locals hold
(``TYPED`` bindings). A member is looked up on what holds it: ``source.subscribe`` where ``source:
Observable<T>`` means ``Observable.subscribe``, as a language server resolves it.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

from ..code.outline import tree_sitter_parser
from .facts import TYPED, Binding

#: Type nodes that stand for no declaration in the workspace (``any``, ``null``, a function type).
_NAMED_TYPES = frozenset({"type_identifier", "nested_type_identifier", "identifier"})
#: Declarators of typed names inside functions (parameters and locals).
_PATTERNS = {
    "typescript": """
        (required_parameter pattern: (identifier) @name type: (type_annotation) @type)
        (optional_parameter pattern: (identifier) @name type: (type_annotation) @type)
        (variable_declarator name: (identifier) @name type: (type_annotation) @type)
        (variable_declarator name: (identifier) @name value: (_) @value)
        (variable_declarator name: (object_pattern) @pattern value: (_) @value)
    """,
    "javascript": """
        (variable_declarator name: (identifier) @name value: (_) @value)
        (variable_declarator name: (object_pattern) @pattern value: (_) @value)
    """,
}


def _text(node: Any) -> str:
    return str(node.text.decode("utf-8", "replace"))


def _dotted(node: Any) -> str:
    """``a.b.c`` of a name or a chain of plain property reads, else empty."""
    text = _text(node)
    if node.type in ("identifier", "member_expression", "nested_identifier") and all(
        part.isidentifier() for part in text.split(".")
    ):
        return text
    return ""


def type_names(node: Any | None) -> tuple[str, ...]:
    """The declarations a type (or a ``type_annotation``) names: ``Observable<T>`` → ``Observable``,
    ``A | B | null`` → ``A``, ``B``; ``ns.T`` as written. Built-in, literal, function and object
    types name none."""
    if node is None:
        return ()
    kind = node.type
    if kind in ("type_annotation", "parenthesized_type", "union_type", "intersection_type", "readonly_type"):
        return tuple(dict.fromkeys(n for child in node.named_children for n in type_names(child)))
    if kind == "generic_type":
        return type_names(node.child_by_field_name("name"))
    if kind in _NAMED_TYPES:
        return (_text(node),) if all(p.isidentifier() for p in _text(node).split(".")) else ()
    return ()


def value_type(value: Any | None) -> tuple[str, ...]:
    """The type a value is made with: ``new Subject<T>()`` → ``Subject``, ``x as Foo`` → ``Foo``;
    none for anything else (a call's result is not followed)."""
    if value is None:
        return ()
    if value.type == "new_expression":
        made = value.child_by_field_name("constructor")
        name = _dotted(made) if made is not None else ""
        return (name,) if name else ()
    if value.type in ("as_expression", "satisfies_expression") and value.named_children:
        return type_names(value.named_children[-1])
    if value.type in ("parenthesized_expression", "non_null_expression") and value.named_children:
        return value_type(value.named_children[0])
    return ()


def declared(node: Any) -> tuple[str, ...]:
    """The types a declarator, parameter or field node declares: its annotation's, else its
    value's (``value_type``)."""
    annotation = node.child_by_field_name("type")
    if annotation is not None:
        return type_names(annotation)
    return value_type(node.child_by_field_name("value"))


@cache
def _query(language: str) -> Any:
    from tree_sitter import Query

    return Query(tree_sitter_parser(language).language, _PATTERNS[language])


def typed_bindings(language: str, root: Any, skip: set[int]) -> Iterator[Binding]:
    """``TYPED`` bindings of the parameters and locals under ``root`` whose type shows: ``x: T``,
    ``x = new T()``, ``x = y as T`` (one per type named), and ``const {a, b: c} = v`` (``a`` holds
    ``v.a``, ``c`` holds ``v.b``). Names whose first byte is in ``skip`` (the file's own
    top-level definitions) are left out."""
    from tree_sitter import QueryCursor

    if language not in _PATTERNS:
        return
    for _, captures in QueryCursor(_query(language)).matches(root):
        name = captures.get("name", [None])[0]
        pattern = captures.get("pattern", [None])[0]
        if name is not None and name.start_byte not in skip:
            annotation = captures.get("type", [None])[0]
            if annotation is None and name.parent is not None and name.parent.child_by_field_name("type") is not None:
                continue  # the annotation's match names its types
            types = type_names(annotation) if annotation is not None else value_type(captures["value"][0])
            for written in types:
                yield Binding(_text(name), TYPED, "", written, name.start_point[0] + 1)
        elif pattern is not None:
            yield from _destructured(pattern, captures["value"][0])


def _destructured(pattern: Any, value: Any) -> Iterator[Binding]:
    source = _dotted(value)
    if not source:
        return
    line = pattern.start_point[0] + 1
    for part in pattern.named_children:
        if part.type == "shorthand_property_identifier_pattern":
            yield Binding(_text(part), TYPED, "", f"{source}.{_text(part)}", line)
        elif part.type == "pair_pattern":
            key, target = part.child_by_field_name("key"), part.child_by_field_name("value")
            plain = key is not None and key.type == "property_identifier"
            if plain and target is not None and target.type == "identifier":
                yield Binding(_text(target), TYPED, "", f"{source}.{_text(key)}", line)
