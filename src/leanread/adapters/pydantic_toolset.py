"""leanread's tools as a pydantic-ai toolset, for agents that run in-process.

pydantic-ai counts a tool result that is an error as a retry, so over MCP two refusals in a row
from one tool end the run (``UnexpectedModelBehavior: Tool 'edit' exceeded max retries count of
1``), though a refused edit is an answer the model acts on (it names the read to make). This
toolset hands each refusal back as pydantic-ai's ``ToolFailed``: the model sees the same text
and adapts, and no retry budget is spent. Bound long runs with ``UsageLimits`` instead::

    from pydantic_ai import Agent
    from leanread import Session
    from leanread.adapters.pydantic_toolset import leanread_toolset

    agent = Agent("openai:gpt-5", toolsets=[leanread_toolset(Session(["/repo"]))])

Needs ``pydantic-ai`` (or ``pydantic-ai-slim``), which leanread does not install itself.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from typing import Any

from pydantic_ai import BinaryContent, Tool
from pydantic_ai.exceptions import ToolFailed
from pydantic_ai.toolsets import FunctionToolset

from ..session import Session
from ..tools.registry import input_schema, tool_description
from .harness import HARNESS_TOOLS


def _answer(session: Session, name: str, names: Sequence[str]) -> Callable[..., Any]:
    """The function pydantic-ai calls for tool ``name``: ``Session.call`` with its keywords,
    ``names`` being the tools the toolset offers."""

    def answer(**arguments: Any) -> Any:
        result = session.call(name, arguments, tools=names)
        if result.is_error:
            raise ToolFailed(result.text)
        if not result.images:
            return result.text
        images = [BinaryContent(base64.b64decode(image.data), media_type=image.mime_type) for image in result.images]
        return [result.text, *images]

    return answer


def leanread_toolset(
    session: Session, *, names: Sequence[str] = HARNESS_TOOLS, prefix: str = ""
) -> FunctionToolset[Any]:
    """A pydantic-ai ``FunctionToolset`` of ``session``'s tools.

    Args:
        session: the leanread session every call runs on (one per agent conversation).
        names: the tools offered, default read, grep, ls, edit and write.
        prefix: put before each tool's name (``"leanread_"`` gives ``leanread_read``), for an
            agent that has other tools of these names.

    Returns:
        A toolset whose tools have leanread's own JSON Schemas (``tools.registry``) and answer as
        ``Session.call`` does: text (and images) for a result, ``ToolFailed`` for a refusal.

    Raises:
        KeyError: a name that is not a leanread tool.
    """
    tools = [
        Tool.from_schema(
            _answer(session, name, names),
            name=prefix + name,
            description=tool_description(name, session.limits),
            json_schema=input_schema(name),
        )
        for name in names
    ]
    return FunctionToolset(tools)
