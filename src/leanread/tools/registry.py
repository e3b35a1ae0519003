"""Which tools there are: every tool's ``SPEC`` (``tools.spec``), one line each, in the order
servers and definitions list them.

The MCP input schemas, the OpenAI and Anthropic definitions (``leanread.adapters.harness``),
``Session.call`` and the command line all look a tool up here, so a tool added is one module and
one line of ``TOOLS``; ``register`` adds one from outside (a plugin, a test).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..config.settings import Limits
from . import context, edit, grep, ls, read, write
from .spec import ToolSpec

#: Every tool by name, in the order servers and definitions list them.
TOOLS: dict[str, ToolSpec] = {
    spec.name: spec for spec in (read.SPEC, grep.SPEC, ls.SPEC, edit.SPEC, write.SPEC, context.SPEC)
}

#: leanread's own tools, in that order.
TOOL_NAMES: tuple[str, ...] = tuple(TOOLS)

#: The tools a harness offers by default. ``context`` (forget, compact, rewind) is left out: a
#: harness that runs its own loop tells the session directly (``Session.forget`` and the rest).
HARNESS_TOOLS: tuple[str, ...] = tuple(name for name, spec in TOOLS.items() if spec.offered)


def spec_of(tool: str) -> ToolSpec:
    """The spec of ``tool``.

    Raises:
        KeyError: ``tool`` is not a registered tool.
    """
    return TOOLS[tool]


def tool_names() -> tuple[str, ...]:
    """Every registered tool's name, leanread's own first, then those ``register`` added."""
    return tuple(TOOLS)


@contextmanager
def registered(spec: ToolSpec) -> Iterator[ToolSpec]:
    """``spec`` registered as a tool for the ``with`` block, then taken away again.

    Raises:
        ValueError: a tool of that name is registered already.
    """
    if spec.name in TOOLS:
        raise ValueError(f"a tool named {spec.name!r} is registered already")
    TOOLS[spec.name] = spec
    try:
        yield spec
    finally:
        del TOOLS[spec.name]


def input_schema(tool: str) -> dict[str, Any]:
    """The JSON Schema of ``tool``'s arguments as the model is shown it (``ToolSpec.input_schema``).

    Raises:
        KeyError: ``tool`` is not a registered tool.
    """
    return TOOLS[tool].input_schema()


def accepted_schema(tool: str) -> dict[str, Any]:
    """The JSON Schema a call of ``tool`` is checked against (``ToolSpec.accepted_schema``).

    Raises:
        KeyError: ``tool`` is not a registered tool.
    """
    return TOOLS[tool].accepted_schema()


def tool_description(tool: str, limits: Limits) -> str:
    """The model-facing description of ``tool`` with ``limits`` filled in (``tools/<tool>.txt``).

    Raises:
        KeyError: ``tool`` is not a registered tool.
    """
    return TOOLS[tool].describe(limits)
