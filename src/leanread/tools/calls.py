"""One tool call given as a name and a dict of arguments, checked before ``Session.call`` runs
it: the path every harness takes (``Session.call``, the MCP server, the pydantic-ai toolset), so
each answers a call with the same text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..result import ToolResult
from .arguments import check_arguments
from .registry import HARNESS_TOOLS, TOOLS
from .spec import ToolSpec


def _refused(text: str) -> ToolResult:
    return ToolResult(text=text, is_error=True)


def _as_object(name: str, arguments: object) -> dict[str, Any] | ToolResult:
    """The arguments as a dict: a mapping as it is, a JSON object as text (as OpenAI sends
    ``function.arguments``) decoded, None as no arguments; anything else refused."""
    if arguments is None or arguments == "":
        return {}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError):
            return _refused(f"Invalid arguments for {name}: they are not valid JSON; send one JSON object.")
    if not isinstance(arguments, Mapping) or not all(isinstance(key, str) for key in arguments):
        return _refused(f"Invalid arguments for {name}: they must be one JSON object of named values.")
    return dict(arguments)


_SCHEMAS: dict[str, tuple[ToolSpec, dict[str, Any], list[str]]] = {}


def _schemas(name: str) -> tuple[dict[str, Any], list[str]]:
    """The tool's schema a call is checked against and the parameters it shows, built once per
    spec (every call asks)."""
    spec = TOOLS[name]
    kept = _SCHEMAS.get(name)
    if kept is None or kept[0] is not spec:
        kept = _SCHEMAS[name] = (spec, spec.accepted_schema(), list(spec.input_schema()["properties"]))
    return kept[1], kept[2]


def checked_call(name: str, arguments: object, tools: Sequence[str] = HARNESS_TOOLS) -> dict[str, Any] | ToolResult:
    """The arguments of a call of the tool ``name`` checked against its schema (see ``Session.call``).

    Args:
        arguments: a dict, the JSON text of one (OpenAI's ``function.arguments``), or None.
        tools: the tool names the model was offered; any other name is refused, so a model
            cannot run a tool its harness did not give it (``context``, which rewrites the
            ledger, unless the harness offers it).

    Returns:
        The arguments as the tool takes them (a whole number sent as text made a number), or an
        ``is_error`` result of one sentence: ``Unknown tool 'reed'; the tools are read, grep, ls,
        edit, write.`` (the names of ``tools``) or ``Invalid arguments for read: offset must be a
        whole number (got 'abc'); see the tool's input schema.``
    """
    if name not in tools or name not in TOOLS:
        return _refused(f"Unknown tool {name!r}; the tools are {', '.join(tools)}.")
    given = _as_object(name, arguments)
    if isinstance(given, ToolResult):
        return given
    accepted, listed = _schemas(name)
    checked = check_arguments(accepted, given, listed=listed)
    if isinstance(checked, str):
        return _refused(f"Invalid arguments for {name}: {checked}.")
    return checked
