"""Tool arguments checked against a tool's JSON Schema: one sentence for what does not fit.

Used by ``Session.call`` (every harness) and by the MCP server for tools registered with the SDK.
Unknown names, missing ones and values of the wrong JSON type (``"abc"``, ``2.5`` or ``true`` for
a whole number, ``null`` for a string) are refused; the only leniency: a well-formed whole number
sent as a string (``"10"``, as the MCP Inspector CLI and some models send it) is taken as that
number, ``"true"`` or ``"false"`` (any case) for a boolean as that boolean, a JSON list sent as a
string (``'["r1"]'``) as that list, and a null for an optional argument as leaving it out.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

#: How an argument check names a JSON Schema type: "offset must be a whole number".
_KIND_TEXT = {
    "string": "a string",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "null",
}
_KIND_PLURAL = {"string": "strings", "integer": "whole numbers", "number": "numbers", "boolean": "booleans"}
#: The next step after an argument of the wrong type.
_SEE_SCHEMA = "see the tool's input schema"
#: Characters of a rejected value quoted in a message at most.
_SHOWN_CHARS = 60
#: A whole number written as text, as an integer argument may arrive (at most 30 digits).
_WHOLE = re.compile(r"[-+]?[0-9]{1,30}")


def _shown(value: object) -> str:
    """A rejected value as a message quotes it: JSON words for null and booleans, ``'abc'`` for
    strings, cut to ``_SHOWN_CHARS``."""
    if value is None or isinstance(value, bool):
        text = json.dumps(value)
    elif isinstance(value, str | int | float):
        text = repr(value)
    else:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 3] + "..."


def _is_kind(kind: object, value: object) -> bool:
    """True when ``value`` (decoded JSON) is of the JSON Schema type ``kind``; strict: a boolean
    is not a number, a float is not an integer, a numeric string is neither."""
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        if isinstance(value, bool):
            return False
        return isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    if kind == "array":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    return True  # a type this check does not know: left to pydantic


def _fits(schema: Mapping[str, Any], value: object) -> bool:
    """True when ``value`` fits ``schema`` in its types, ``anyOf``, ``enum`` and array ``items``;
    bounds, formats and ``$ref`` are left to pydantic."""
    if "anyOf" in schema:
        return any(_fits(option, value) for option in schema["anyOf"])
    if "enum" in schema and not any(value == e and type(value) is type(e) for e in schema["enum"]):
        return False
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind is not None else []
    if kinds and not any(_is_kind(k, value) for k in kinds):
        return False
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return all(_fits(schema["items"], item) for item in value)
    return True


def _expected(schema: Mapping[str, Any]) -> str:
    """What ``schema`` asks for, in words ("a whole number", "a list of strings"); a nullable
    type is named without its null."""
    if "anyOf" in schema:
        options = [_expected(option) for option in schema["anyOf"] if option.get("type") != "null"]
        return " or ".join(dict.fromkeys(options)) or "null"
    if "enum" in schema:
        return "one of " + ", ".join(_shown(e) for e in schema["enum"])
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items")
        item_kind = items.get("type") if isinstance(items, dict) else None
        return f"a list of {_KIND_PLURAL[item_kind]}" if item_kind in _KIND_PLURAL else "a list"
    kinds = kind if isinstance(kind, list) else [kind]
    return " or ".join(_KIND_TEXT.get(str(k), f"of type {k}") for k in kinds)


def _wants(schema: Mapping[str, Any], kind: str) -> bool:
    """True when ``schema`` (or one of its ``anyOf`` options) has the JSON type ``kind``."""
    if "anyOf" in schema:
        return any(_wants(option, kind) for option in schema["anyOf"])
    types = schema.get("type")
    return kind == types or (isinstance(types, list) and kind in types)


def _decoded(schema: Mapping[str, Any], value: str) -> object:
    """A string argument as the value ``schema`` wants, when it is one written as text: a whole
    number (``"10"``, ``"-3"``) for an integer, ``"true"``/``"false"`` for a boolean, a JSON list
    or object for one; else ``value``."""
    word = value.strip().lower()
    if word in ("true", "false") and _wants(schema, "boolean") and not _wants(schema, "string"):
        return word == "true"
    if _WHOLE.fullmatch(value) and _wants(schema, "integer"):
        try:
            return int(value)
        except ValueError:  # more digits than int() takes
            return value
    try:
        decoded = json.loads(value)
    except (ValueError, RecursionError):
        return value
    return decoded if isinstance(decoded, list | dict) and _fits(schema, decoded) else value


def _optional(schema: Mapping[str, Any], name: str, prop: Mapping[str, Any]) -> bool:
    """True when leaving ``name`` out means its default, and that default is not a value a null
    could be mistaken for: not required, and no default or a null one."""
    return name not in schema.get("required", ()) and prop.get("default") is None


def check_arguments(
    schema: Mapping[str, Any], arguments: Mapping[str, Any], *, listed: Sequence[str] | None = None
) -> dict[str, Any] | str:
    """The arguments of one tool call checked against the tool's input schema.

    Checks, in this order: names not in ``properties`` (unless ``additionalProperties`` allows
    them), names in ``required`` that are missing, and each value's JSON type (see ``_fits``) in
    the schema's property order. A string that spells what the property wants is decoded: a whole
    number (``"10"``) for an integer, a JSON list or object (``'["r1"]'``) for one. An explicit
    null for an optional property with no default (or a null one) is dropped, so the tool sees its
    default. Bounds (``minimum``) are left to the tool, whose refusal names the next step.

    Args:
        schema: the tool's input schema (an object schema with ``properties``).
        arguments: the call's arguments, decoded from JSON.
        listed: the parameter names an unknown argument's problem names; default every property
            (a tool's hidden parameters are accepted but not named).

    Returns:
        The arguments to pass on, or the first problem and its next step, without the tool's name
        or a full stop: ``offset must be a whole number (got 'abc'); see the tool's input schema``
        or ``unknown argument 'bogus'; the parameters are path, offset``.
    """
    properties: Mapping[str, Any] = schema.get("properties", {})
    unknown = [name for name in arguments if name not in properties]
    if unknown and not schema.get("additionalProperties"):
        noun = "argument" if len(unknown) == 1 else "arguments"
        names = ", ".join(repr(name) for name in unknown)
        return f"unknown {noun} {names}; the parameters are {', '.join(properties if listed is None else listed)}"
    for name in schema.get("required", ()):
        if name not in arguments:
            return f"missing required argument {name!r} ({_expected(properties.get(name, {}))}); {_SEE_SCHEMA}"
    checked = dict(arguments)
    for name, prop in properties.items():
        if name not in checked:
            continue
        value = checked[name]
        if value is None and _optional(schema, name, prop):
            del checked[name]
            continue
        if isinstance(value, str) and not _fits(prop, value):
            checked[name] = value = _decoded(prop, value)
        if not _fits(prop, value):
            return f"{name} must be {_expected(prop)} (got {_shown(value)}); {_SEE_SCHEMA}"
    return checked


def validation_problem(error: ValidationError) -> str:
    """The first error pydantic found, with the next step, as ``check_arguments`` words a problem."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "the arguments"
    message = first["msg"][:1].lower() + first["msg"][1:]
    got = f", got {_shown(first['input'])}" if first.get("type") != "missing" else ""
    return f"{where} is not valid ({message}{got}); {_SEE_SCHEMA}"
