"""The parameters of every tool, once: the MCP input schemas, the OpenAI and Anthropic tool
definitions (``leanread.harness``) and ``Session.call`` all come from ``PARAMETERS`` here.

The descriptions live beside each tool (its module's ``PARAMETERS`` dict, also the CLI help);
this module adds the JSON types, enums, minimums and defaults. Every property has a plain
``type`` (clients such as the MCP Inspector convert a command-line value only then), and an
optional parameter is simply left out of ``required``: no ``anyOf`` with null.

A ``hidden`` parameter is accepted but not advertised: ``input_schema`` (what ``tools/list`` and
the harness definitions show the model) leaves it out, ``accepted_schema`` (what a call is checked
against) has it. read's ``match_id``, ``context_before`` and ``context_after`` are hidden: grep's
text shows no match ids (they are in its result's metadata), so only a harness passes them on.
A tool with a hidden parameter does not publish ``additionalProperties: false``, which would
forbid what the server takes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..config import READ_MODES, Limits
from ..formats import FORMATS
from . import context, description, edit, grep, ls, read, write


@dataclass(frozen=True)
class Param:
    """One parameter of a tool as its JSON Schema property shows it.

    ``kind`` is a JSON Schema type (``string``, ``integer``, ``boolean``, ``array`` of strings);
    ``default`` is published only when it is not None (None means "left out: the tool's default,
    as the description says"); ``minimum`` is the smallest count the tool takes.
    """

    name: str
    kind: str
    description: str
    required: bool = False
    default: object = None
    enum: tuple[str, ...] = ()
    minimum: int | None = None
    hidden: bool = False

    def schema(self) -> dict[str, Any]:
        """This parameter's JSON Schema property: ``{"type": "integer", "minimum": 1, ...}``."""
        prop: dict[str, Any] = {"type": self.kind}
        if self.kind == "array":
            prop["items"] = {"type": "string"}
        if self.enum:
            prop["enum"] = list(self.enum)
        if self.minimum is not None:
            prop["minimum"] = self.minimum
        if self.default is not None:
            prop["default"] = self.default
        prop["description"] = self.description
        return prop


def _text(doc: dict[str, str], name: str, *, required: bool = False) -> Param:
    return Param(name, "string", doc[name], required=required)


def _count(doc: dict[str, str], name: str, minimum: int, *, hidden: bool = False) -> Param:
    return Param(name, "integer", doc[name], minimum=minimum, hidden=hidden)


def _flag(doc: dict[str, str], name: str) -> Param:
    return Param(name, "boolean", doc[name], default=False)


_R, _G, _L, _E, _W, _C = (m.PARAMETERS for m in (read, grep, ls, edit, write, context))

#: Every tool's parameters in the order its schema lists them.
PARAMETERS: dict[str, tuple[Param, ...]] = {
    read.NAME: (
        _text(_R, "path"),
        Param("match_id", "string", _R["match_id"], hidden=True),
        _text(_R, "symbol"),
        _count(_R, "offset", 0),
        _count(_R, "limit", 1),
        Param("format", "string", _R["format"], default="plain", enum=FORMATS),
        _flag(_R, "fresh"),
        _count(_R, "char_offset", 1),
        _count(_R, "context_before", 0, hidden=True),
        _count(_R, "context_after", 0, hidden=True),
        Param("mode", "string", _R["mode"], enum=READ_MODES),
        _text(_R, "focus"),
    ),
    grep.NAME: (
        _text(_G, "pattern"),
        _text(_G, "path"),
        _text(_G, "glob"),
        _text(_G, "type"),
        _flag(_G, "case_insensitive"),
        _count(_G, "context", 0),
        _count(_G, "before", 0),
        _count(_G, "after", 0),
        _count(_G, "max_results", 1),
        _count(_G, "offset", 0),
        _flag(_G, "files_only"),
        _text(_G, "focus"),
        _flag(_G, "include_ignored"),
        _text(_G, "symbol"),
    ),
    ls.NAME: (
        _text(_L, "path"),
        _count(_L, "depth", 1),
        _count(_L, "max_entries", 1),
        _flag(_L, "include_ignored"),
    ),
    edit.NAME: (
        _text(_E, "path", required=True),
        _text(_E, "old_string", required=True),
        _text(_E, "new_string", required=True),
        _flag(_E, "replace_all"),
    ),
    write.NAME: (_text(_W, "path", required=True), _text(_W, "content", required=True)),
    context.NAME: (
        Param("action", "string", _C["action"], required=True, enum=context.ACTIONS),
        Param("call_ids", "array", _C["call_ids"]),
        _text(_C, "call_id"),
    ),
}

#: Every tool's name, in the order servers and definitions list them.
TOOL_NAMES: tuple[str, ...] = tuple(PARAMETERS)

#: The constants each tool's description quotes (see ``tools.description``).
_FACTS: dict[str, dict[str, object]] = {grep.NAME: grep.FACTS, ls.NAME: ls.FACTS}


def input_schema(tool: str) -> dict[str, Any]:
    """The JSON Schema of ``tool``'s arguments as the model is shown it: an object with
    ``properties`` (hidden parameters left out), ``required`` (when any) and, unless the tool has
    a hidden parameter, ``additionalProperties: false``.

    Raises:
        KeyError: ``tool`` is not one of ``TOOL_NAMES``.
    """
    params = PARAMETERS[tool]
    schema = _schema([p for p in params if not p.hidden])
    if not any(p.hidden for p in params):
        schema["additionalProperties"] = False
    return schema


def accepted_schema(tool: str) -> dict[str, Any]:
    """The JSON Schema a call of ``tool`` is checked against: ``input_schema`` with the hidden
    parameters in their places, and ``additionalProperties: false``.

    Raises:
        KeyError: ``tool`` is not one of ``TOOL_NAMES``.
    """
    schema = _schema(list(PARAMETERS[tool]))
    schema["additionalProperties"] = False
    return schema


def _schema(params: list[Param]) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": {p.name: p.schema() for p in params}}
    required = [p.name for p in params if p.required]
    if required:
        schema["required"] = required
    return schema


def tool_description(tool: str, limits: Limits) -> str:
    """The model-facing description of ``tool`` with ``limits`` filled in (``tools/<tool>.txt``).

    Raises:
        KeyError: ``tool`` is not one of ``TOOL_NAMES``.
    """
    if tool not in PARAMETERS:
        raise KeyError(tool)
    return description(tool, limits, **_FACTS.get(tool, {}))
