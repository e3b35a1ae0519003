"""Tool definitions and results for harnesses that run their own model loop: OpenAI function
calling (Chat Completions and Responses) and Anthropic tool use.

The definitions come from the same parameter models as the MCP input schemas
(``tools.registry``), so every client sees the same tools. Run a call the model makes with
``Session.call(name, arguments)`` and hand back what ``openai_result`` or ``anthropic_result``
makes of its result::

    session = Session(["/repo"])
    tools = openai_tools(session.limits)
    ...
    for call in message.tool_calls:
        result = session.call(call.function.name, call.function.arguments, call_id=call.id)
        messages.append(openai_result(result, call.id))

No network is used here: these are plain dicts the packages' own types accept.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from ..config.settings import Limits
from ..result import ToolResult
from ..tools.registry import HARNESS_TOOLS, input_schema, tool_description

__all__ = ["HARNESS_TOOLS", "anthropic_result", "anthropic_tools", "openai_result", "openai_tools"]


def openai_tools(
    limits: Limits | None = None,
    *,
    names: Sequence[str] = HARNESS_TOOLS,
    api: Literal["chat", "responses"] = "chat",
) -> list[dict[str, Any]]:
    """OpenAI function tools for ``names``, descriptions filled in with ``limits``.

    Args:
        limits: the session's limits (``session.limits``); default ``Limits()``.
        names: the tools to define, in this order.
        api: ``chat`` for Chat Completions (``{"type": "function", "function": {...}}``) or
            ``responses`` for the Responses API (``{"type": "function", "name": ..., ...}``).

    Raises:
        KeyError: a name that is not a leanread tool.
    """
    limits = limits or Limits()
    tools: list[dict[str, Any]] = []
    for name in names:
        function = {"name": name, "description": tool_description(name, limits), "parameters": input_schema(name)}
        if api == "chat":
            tools.append({"type": "function", "function": function})
        else:
            tools.append({"type": "function", **function, "strict": False})
    return tools


def anthropic_tools(limits: Limits | None = None, *, names: Sequence[str] = HARNESS_TOOLS) -> list[dict[str, Any]]:
    """Anthropic tool definitions (``{"name", "description", "input_schema"}``) for ``names``.

    Raises:
        KeyError: a name that is not a leanread tool.
    """
    limits = limits or Limits()
    return [
        {"name": name, "description": tool_description(name, limits), "input_schema": input_schema(name)}
        for name in names
    ]


def openai_result(result: ToolResult, tool_call_id: str) -> dict[str, Any]:
    """The Chat Completions ``tool`` message for ``result``: its text (a refusal's text says
    why and what to do next; the API has no error flag). Images, which a tool message cannot
    carry, are named by the text already."""
    return {"role": "tool", "tool_call_id": tool_call_id, "content": result.text}


def anthropic_result(result: ToolResult, tool_use_id: str) -> dict[str, Any]:
    """The Anthropic ``tool_result`` block for ``result``: its text, its images as base64 image
    blocks, and ``is_error`` for a refusal."""
    content: list[dict[str, Any]] = [{"type": "text", "text": result.text}]
    content += [
        {"type": "image", "source": {"type": "base64", "media_type": image.mime_type, "data": image.data}}
        for image in result.images
    ]
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": content, "is_error": result.is_error}
