"""pydantic-ai with leanread's toolset, driven by its ``FunctionModel`` (no LLM): reads, refused
edits (two in a row, which over MCP would end the run), the read the refusal names, and the edit
again, all in one run."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from leanread import MemoryLedger, Session
from leanread.adapters.pydantic_toolset import leanread_toolset
from leanread.tools.registry import input_schema

BODY = "".join(f"line {n}\n" for n in range(1, 31))

#: The model's tool calls, one per turn, then a final answer.
SCRIPT: list[tuple[str, dict[str, Any]]] = [
    ("leanread_read", {"path": "app.py", "offset": "25"}),
    ("leanread_edit", {"path": "app.py", "old_string": "line 3\n", "new_string": "LINE 3\n"}),
    ("leanread_edit", {"path": "app.py", "old_string": "line 3\n", "new_string": "LINE 3\n"}),
    ("leanread_read", {"path": "app.py", "offset": 3, "limit": 1}),  # the read the refusal names
    ("leanread_edit", {"path": "app.py", "old_string": "line 3\n", "new_string": "LINE 3\n"}),
]


def _seen(messages: list[ModelMessage]) -> list[tuple[str, str]]:
    """Every tool answer the model was shown so far: (its outcome, its text); a retry prompt is
    ``retry``, which would count against the tool's retry budget."""
    seen = []
    for message in messages:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, ToolReturnPart):
                    seen.append((part.outcome, str(part.content)))
                elif isinstance(part, RetryPromptPart):
                    seen.append(("retry", str(part.content)))
    return seen


def test_refused_edits_the_named_read_and_the_edit_again_in_one_run(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(BODY)
    turns: list[list[tuple[str, str]]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        turns.append(_seen(messages))
        if len(turns) == 1:
            tools = {tool.name: tool for tool in info.function_tools}
            assert list(tools) == [f"leanread_{n}" for n in ("read", "grep", "ls", "edit", "write")]
            assert tools["leanread_read"].parameters_json_schema == input_schema("read")
        step = len(turns) - 1
        if step < len(SCRIPT):
            name, arguments = SCRIPT[step]
            return ModelResponse(parts=[ToolCallPart(name, arguments, tool_call_id=f"c{step}")])
        return ModelResponse(parts=[TextPart("done")])

    session = Session([tmp_path], ledger=MemoryLedger())
    agent = Agent(FunctionModel(model), toolsets=[leanread_toolset(session, prefix="leanread_")])
    run = asyncio.run(agent.run("Change line 3 of app.py to upper case."))  # its own loop, closed after
    assert run.output == "done"
    refusal = (
        "old_string spans line 3 of app.py, but you have not seen line 3 of its current version, so nothing was "
        "edited; read it first (offset=3, limit=1) and retry."
    )
    assert [kind for kind, _ in turns[-1]] == ["success", "failed", "failed", "success", "success"]
    assert turns[-1][1:3] == [("failed", refusal), ("failed", refusal)]
    assert turns[-1][3][1] == (
        "<path>app.py</path>\n<type>file</type>\n<content>\nline 3\n\n"
        "(Showing lines 3-3 of 30. Use offset=4 to continue.)\n</content>"
    )
    assert turns[-1][4][1] == "Edited line 3."
    assert (tmp_path / "app.py").read_text() == BODY.replace("line 3\n", "LINE 3\n")


def test_a_bad_argument_is_answered_not_retried(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    calls = iter([("read", {"path": "a.txt", "offset": "abc"}), ("read", {"path": "a.txt", "offset": 2.5})])

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        nxt = next(calls, None)
        if nxt is None:
            return ModelResponse(parts=[TextPart(" | ".join(text for _, text in _seen(messages)))])
        return ModelResponse(parts=[ToolCallPart(nxt[0], nxt[1])])

    agent = Agent(FunctionModel(model), toolsets=[leanread_toolset(Session([tmp_path], ledger=MemoryLedger()))])
    assert asyncio.run(agent.run("read a.txt")).output == (
        "Invalid arguments for read: offset must be a whole number (got 'abc'); see the tool's input schema. | "
        "Invalid arguments for read: offset must be a whole number (got 2.5); see the tool's input schema."
    )


def test_an_unknown_tool_name_is_a_key_error(tmp_path: Path) -> None:
    with pytest.raises(KeyError):
        leanread_toolset(Session([tmp_path], ledger=MemoryLedger()), names=["reed"])
