"""One definition per tool: a tool registered once (``tools.registry``) is in the MCP tool list,
the harness definitions, ``Session.call`` and the command line, each made from its ``ToolSpec``."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client
from typer.testing import CliRunner

from leanread import MemoryLedger, Session
from leanread.adapters.harness import anthropic_tools, openai_tools
from leanread.cli.main import app
from leanread.cli.tools import add_tool_commands
from leanread.config.settings import Limits
from leanread.mcp.server import build_server
from leanread.result import ToolResult
from leanread.tools.common import ToolContext
from leanread.tools.registry import TOOL_NAMES, TOOLS, registered
from leanread.tools.spec import READ_ONLY, Arguments, ToolSpec, count, string


def _echo(ctx: ToolContext, args: Arguments, call_id: str) -> ToolResult:
    said = " ".join([args["text"]] * (args["times"] or 1))
    return ToolResult(said, metadata={"call_id": call_id, "roots": len(ctx.workspace.roots)})


ECHO = ToolSpec(
    "echo",
    (string("text", "What to say back.", required=True), count("times", "How often. Default: 1.", 1)),
    READ_ONLY,
    _echo,
    text="Say the text back (at most {max_lines} times).",
)

ECHO_SCHEMA = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "description": "What to say back."},
        "times": {"type": "integer", "description": "How often. Default: 1."},
    },
    "required": ["text"],
    "additionalProperties": False,
}


@pytest.fixture
def echo() -> Iterator[ToolSpec]:
    """The ``echo`` tool registered for one test, its command on the CLI app too."""
    with registered(ECHO) as spec:
        before = list(app.registered_commands)
        add_tool_commands(app)
        yield spec
        app.registered_commands[:] = before


@pytest.mark.anyio
async def test_a_registered_tool_is_in_the_mcp_tool_list_and_answers(echo: ToolSpec, root: Path) -> None:
    server = build_server([root], ledger=MemoryLedger())
    async with Client(server) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        done = await client.call_tool("echo", {"text": "hi", "times": "2"})
        refused = await client.call_tool("echo", {"times": 2})
    assert list(listed) == ["read", "grep", "ls", "edit", "write", "echo"]
    tool = listed["echo"]
    assert tool.description == "Say the text back (at most 2000 times)."
    assert tool.input_schema == ECHO_SCHEMA
    assert tool.annotations is not None and tool.annotations.read_only_hint is True
    assert [block.text for block in done.content] == ["hi hi"]  # type: ignore[union-attr]
    assert refused.is_error
    assert [block.text for block in refused.content] == [  # type: ignore[union-attr]
        "Invalid arguments for echo: missing required argument 'text' (a string); see the tool's input schema."
    ]


def test_a_registered_tool_is_in_the_harness_definitions(echo: ToolSpec) -> None:
    limits = Limits(max_lines=7)
    assert openai_tools(limits, names=("echo",)) == [
        {
            "type": "function",
            "function": {
                "name": "echo",
                "description": "Say the text back (at most 7 times).",
                "parameters": ECHO_SCHEMA,
            },
        }
    ]
    assert anthropic_tools(limits, names=("read", "echo"))[1] == {
        "name": "echo",
        "description": "Say the text back (at most 7 times).",
        "input_schema": ECHO_SCHEMA,
    }


def test_a_registered_tool_runs_through_session_call(echo: ToolSpec, session: Session) -> None:
    done = session.call("echo", '{"text": "ok", "times": 3}', tools=("read", "echo"))
    assert (done.text, done.is_error, done.metadata) == ("ok ok ok", False, {"call_id": "r1", "roots": 1})
    unoffered = session.call("echo", {"text": "ok"})
    assert unoffered.text == "Unknown tool 'echo'; the tools are read, grep, ls, edit, write."
    assert [(c.tool, c.arguments, c.text) for c in session.ledger.calls(session.id)] == [
        ("echo", {"text": "ok", "times": 3}, "ok ok ok")
    ]


def test_a_registered_tool_is_a_command(echo: ToolSpec, root: Path) -> None:
    runner = CliRunner()
    said = runner.invoke(app, ["echo", "hi", "--times", "3", "--root", str(root)])
    helped = runner.invoke(app, ["echo", "--help"], env={"COLUMNS": "80", "TERM": "dumb"})
    assert (said.exit_code, said.output) == (0, "hi hi hi\n")
    assert "Print exactly what the model would see for an `echo` tool call." in helped.output
    assert "  text <str>  What to say back.  [required]\n" in helped.output
    assert "  --times <int>" in helped.output and "How often. Default: 1." in helped.output


def test_every_tool_is_registered_once_in_order() -> None:
    assert TOOL_NAMES == ("read", "grep", "ls", "edit", "write", "context")
    assert tuple(TOOLS) == TOOL_NAMES


@pytest.mark.parametrize("name", ["read", "grep", "ls", "edit", "write", "context"])
def test_each_session_method_takes_its_tools_parameters(name: str) -> None:
    spec = TOOLS[name]
    method = inspect.signature(getattr(Session, name)).parameters
    taken = [p for p in method if p != "self" and not (p == "call_id" and spec.numbered)]
    assert sorted(taken) == sorted(p.name for p in spec.params)
    for param in spec.params:
        default = method[param.name].default
        assert default is inspect.Parameter.empty if param.required else default in (param.unset, ())
