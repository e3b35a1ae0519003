"""A harness runs only the tools it gave the model: ``Session.call``, the pydantic-ai toolset and
the MCP server refuse any other name alike, ``context`` (which rewrites the ledger) included,
unless the harness offers it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from leanread import MemoryLedger, Session
from leanread.adapters.harness import HARNESS_TOOLS, anthropic_tools, openai_tools
from leanread.adapters.pydantic_toolset import leanread_toolset
from leanread.mcp.server import build_server
from leanread.tools.registry import TOOL_NAMES

STUB = (
    "<path>a.txt</path>\n<type>file</type>\n<content>\n(Lines 1-40 unchanged since you read them, still in your "
    "context. Use fresh=true to see them again.)\n\n(End of file - total 40 lines)\n</content>"
)
BODY = "".join(f"line {n} of the file\n" for n in range(1, 41))
FORGET = {"action": "forget", "call_ids": ["r1"]}


@pytest.fixture
def text_file(root: Path) -> Path:
    (root / "a.txt").write_text(BODY)
    return root / "a.txt"


def test_a_model_naming_context_is_refused_and_its_ledger_is_unchanged(session: Session, text_file: Path) -> None:
    assert session.call("read", {"path": "a.txt"}).metadata["call_id"] == "r1"
    refused = session.call("context", FORGET)
    assert (refused.is_error, refused.text) == (
        True,
        "Unknown tool 'context'; the tools are read, grep, ls, edit, write.",
    )
    again = session.call("read", {"path": "a.txt"})
    assert again.text == STUB  # r1 still counts as in the context window
    assert [record.visible for record in session.ledger.views_of(session.id, str(text_file))] == [True, True]


def test_the_harness_opts_in_by_offering_context(session: Session, text_file: Path) -> None:
    session.call("read", {"path": "a.txt"})
    done = session.call("context", FORGET, tools=TOOL_NAMES)
    assert (done.is_error, done.text) == (False, "forget: 1 tool result is now out of the context window (r1).")
    assert session.call("read", {"path": "a.txt"}).text == (
        f"<path>a.txt</path>\n<type>file</type>\n<content>\n{BODY}\n(End of file - total 40 lines)\n</content>"
    )


def test_only_the_offered_names_run_and_the_refusal_lists_them(session: Session, text_file: Path) -> None:
    offered = ("read", "grep")
    assert session.call("write", {"path": "b.txt", "content": "x\n"}, tools=offered).text == (
        "Unknown tool 'write'; the tools are read, grep."
    )
    assert session.call("reed", {"path": "a.txt"}).text == (
        "Unknown tool 'reed'; the tools are read, grep, ls, edit, write."
    )
    assert session.call("nonsense", {}, tools=("read", "nonsense")).text == (
        "Unknown tool 'nonsense'; the tools are read, nonsense."
    )
    assert not (text_file.parent / "b.txt").exists()


def test_the_default_matches_what_the_harness_definitions_offer() -> None:
    assert [tool["function"]["name"] for tool in openai_tools()] == list(HARNESS_TOOLS)
    assert [tool["name"] for tool in anthropic_tools()] == list(HARNESS_TOOLS)
    assert "context" not in HARNESS_TOOLS


@settings(max_examples=60, deadline=None)
@given(offered=st.sets(st.sampled_from(TOOL_NAMES)), name=st.sampled_from([*TOOL_NAMES, "Read", "cat"]))
def test_a_name_runs_exactly_when_it_is_offered(
    tmp_path_factory: pytest.TempPathFactory, offered: set[str], name: str
) -> None:
    folder = tmp_path_factory.mktemp("ws")
    session = Session([folder], ledger=MemoryLedger())
    order = tuple(n for n in TOOL_NAMES if n in offered)
    result = session.call(name, {}, tools=order)
    unknown = f"Unknown tool {name!r}; the tools are {', '.join(order)}."
    assert (result.text == unknown) == (name not in offered)
    if name not in offered:
        assert session.ledger.call_states(session.id) == {}  # a refused call records nothing


def _texts(result: Any) -> tuple[bool, str]:
    return bool(result.is_error), "".join(getattr(block, "text", "") for block in result.content)


@pytest.mark.anyio
@pytest.mark.parametrize("expose", [False, True])
async def test_session_call_answers_as_the_server_offering_the_same_tools(tmp_path: Path, expose: bool) -> None:
    served_root, direct_root = tmp_path / "served", tmp_path / "direct"
    for folder in (served_root, direct_root):
        folder.mkdir()
        (folder / "a.txt").write_text(BODY)
    tools = TOOL_NAMES if expose else HARNESS_TOOLS
    session = Session([direct_root], ledger=MemoryLedger())
    calls = [("read", {"path": "a.txt"}), ("context", FORGET), ("read", {"path": "a.txt"}), ("Context", FORGET)]
    async with Client(build_server([served_root], ledger=MemoryLedger(), expose_context_tool=expose)) as client:
        listed = [tool.name for tool in (await client.list_tools()).tools]
        for name, arguments in calls:
            direct = session.call(name, arguments, tools=tools)
            assert _texts(await client.call_tool(name, arguments)) == (direct.is_error, direct.text), name
    assert listed == list(tools)


def _toolset_run(session: Session, names: tuple[str, ...], call: tuple[str, dict[str, Any]]) -> list[str]:
    """What the model was shown for one tool call through the pydantic-ai toolset."""
    shown: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returns = [
            str(part.content)
            for message in messages
            if isinstance(message, ModelRequest)
            for part in message.parts
            if isinstance(part, ToolReturnPart)
        ]
        if returns:
            shown.extend(returns)
            return ModelResponse(parts=[TextPart("done")])
        return ModelResponse(parts=[ToolCallPart(call[0], call[1], tool_call_id="c1")])

    agent = Agent(FunctionModel(model), toolsets=[leanread_toolset(session, names=names)])
    asyncio.run(agent.run("go"))
    return shown


def test_the_pydantic_toolset_runs_context_when_it_offers_it(session: Session, text_file: Path) -> None:
    session.read("a.txt")
    shown = _toolset_run(session, TOOL_NAMES, ("context", FORGET))
    assert shown == ["forget: 1 tool result is now out of the context window (r1)."]
    assert [r.visible for r in session.ledger.views_of(session.id, str(text_file))] == [False]
