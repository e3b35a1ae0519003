"""The JSON Schemas the model sees, held as a snapshot, and ``Session.call``: the same checks and
the same result as the MCP server for the same call."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp import Client

from leanread import MemoryLedger, Session
from leanread.mcp.server import build_server
from leanread.tools.arguments import check_arguments
from leanread.tools.registry import TOOL_NAMES, accepted_schema, input_schema

SNAPSHOT = Path(__file__).parent / "fixtures" / "schemas" / "tools.json"


def _listed(tools: list[Any]) -> list[dict[str, Any]]:
    return [
        {
            "name": tool.name,
            "inputSchema": tool.input_schema,
            "annotations": tool.annotations.model_dump(by_alias=True, exclude_none=True),
        }
        for tool in tools
    ]


@pytest.mark.anyio
async def test_the_schemas_the_model_sees_are_the_snapshot(root: Path) -> None:
    async with Client(build_server([root], ledger=MemoryLedger())) as client:
        tools = (await client.list_tools()).tools
    # regenerate after a deliberate change: write json.dumps(_listed(tools), indent=2) + "\n" to SNAPSHOT
    assert json.dumps(_listed(tools), indent=2) + "\n" == SNAPSHOT.read_text()


def _properties() -> list[tuple[str, str, dict[str, Any]]]:
    return [(tool, name, prop) for tool in TOOL_NAMES for name, prop in accepted_schema(tool)["properties"].items()]


def test_every_property_has_a_plain_type_and_no_null() -> None:
    for tool, name, prop in _properties():
        assert prop["type"] in ("string", "integer", "boolean", "array"), (tool, name)
        assert "anyOf" not in prop and prop.get("default", 0) is not None, (tool, name)
    enums = {(tool, name): prop["enum"] for tool, name, prop in _properties() if "enum" in prop}
    assert enums == {
        ("read", "format"): ["plain", "tab", "colon", "catn", "visible"],
        ("read", "mode"): ["auto", "full", "outline"],
        ("context", "action"): ["forget", "compact", "rewind"],
    }
    counts = {(tool, name): prop.get("minimum") for tool, name, prop in _properties() if prop["type"] == "integer"}
    assert counts == {
        ("read", "offset"): 0,
        ("read", "limit"): 1,
        ("read", "char_offset"): 1,
        ("read", "context_before"): 0,
        ("read", "context_after"): 0,
        ("grep", "context"): 0,
        ("grep", "before"): 0,
        ("grep", "after"): 0,
        ("grep", "max_results"): 1,
        ("grep", "offset"): 0,
        ("ls", "depth"): 1,
        ("ls", "max_entries"): 1,
    }


@given(st.integers(min_value=-(10**29), max_value=10**29))
def test_a_whole_number_as_text_is_that_number(n: int) -> None:
    schema = input_schema("read")
    assert check_arguments(schema, {"offset": str(n)}) == {"offset": n}
    assert check_arguments(schema, {"offset": n}) == {"offset": n}


@given(st.one_of(st.floats(), st.booleans(), st.text().filter(lambda t: re.fullmatch(r"[-+]?[0-9]+", t) is None)))
def test_anything_else_for_a_whole_number_is_refused(value: object) -> None:
    problem = check_arguments(input_schema("ls"), {"depth": value})
    assert isinstance(problem, str) and problem.startswith("depth must be a whole number (got "), problem
    assert problem.endswith("); see the tool's input schema")


@pytest.mark.parametrize(("sent", "taken"), [("true", True), ("false", False), ("TRUE", True), (" False ", False)])
def test_true_or_false_as_text_is_that_boolean(sent: str, taken: bool) -> None:
    assert check_arguments(accepted_schema("read"), {"fresh": sent}) == {"fresh": taken}
    assert check_arguments(input_schema("edit"), {"path": "a", "old_string": "true", "new_string": sent}) == {
        "path": "a",
        "old_string": "true",
        "new_string": sent,
    }  # a string argument stays the text sent


@pytest.mark.parametrize("sent", ["yes", "1", "t", ""])
def test_other_text_for_a_boolean_is_refused(sent: str) -> None:
    assert check_arguments(accepted_schema("read"), {"fresh": sent}) == (
        f"fresh must be true or false (got {sent!r}); see the tool's input schema"
    )


def _mcp_view(result: Any) -> tuple[bool, str]:
    return bool(result.is_error), "".join(block.text for block in result.content)


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("read", {"path": "a.txt", "offset": "2"}),
    ("read", {"path": "a.txt", "offset": "2"}),
    ("read", {"path": "a.txt", "offset": 2.5}),
    ("read", {"path": "a.txt", "fresh": "yes"}),
    ("read", {"path": "a.txt", "bogus": 1}),
    ("grep", {"pattern": "beta", "max_results": "5"}),
    ("ls", {"depth": "1"}),
    ("edit", {"path": "a.txt", "old_string": "alpha", "new_string": "ALPHA"}),
    ("read", {"path": "a.txt", "fresh": True}),
    ("edit", {"path": "a.txt", "old_string": "alpha", "new_string": "ALPHA"}),
    ("write", {"path": "b.txt", "content": "new\n"}),
    ("context", {"action": "forget", "call_ids": ["r1"]}),
    ("context", {"action": "shrink"}),
    ("reed", {}),
]


@pytest.mark.anyio
async def test_session_call_answers_as_the_server_does(tmp_path: Path) -> None:
    over_mcp, direct = tmp_path / "mcp", tmp_path / "direct"
    for folder in (over_mcp, direct):
        folder.mkdir()
        (folder / "a.txt").write_text("alpha\nbeta\ngamma\n")
    session = Session([direct], ledger=MemoryLedger())
    async with Client(build_server([over_mcp], ledger=MemoryLedger(), expose_context_tool=True)) as client:
        errors = []
        for name, arguments in CALLS:
            served = _mcp_view(await client.call_tool(name, arguments))
            called = session.call(name, arguments, tools=TOOL_NAMES)
            assert served == (called.is_error, called.text), (name, arguments)
            errors.append(called.is_error)
    assert errors == [False, False, True, True, True, False, False, True, False, False, False, False, True, True]
    assert (direct / "a.txt").read_bytes() == (over_mcp / "a.txt").read_bytes() == b"ALPHA\nbeta\ngamma\n"


def test_session_call_takes_json_text_and_refuses_what_is_not_an_object(session: Session, root: Path) -> None:
    (root / "a.txt").write_text("alpha\nbeta\n")
    shown = session.call("read", '{"path": "a.txt", "limit": "1"}', call_id="call_7")
    assert (shown.is_error, shown.metadata["call_id"], shown.metadata["last_line"]) == (False, "call_7", 1)
    assert [(r.is_error, r.text) for r in (session.call("ls", "[1]"), session.call("ls", "{oops"))] == [
        (True, "Invalid arguments for ls: they must be one JSON object of named values."),
        (True, "Invalid arguments for ls: they are not valid JSON; send one JSON object."),
    ]
    assert session.call("ls", None).is_error is False
    assert session.call("read", {"path": "a.txt", "offset": True}).text == (
        "Invalid arguments for read: offset must be a whole number (got true); see the tool's input schema."
    )


def test_read_takes_the_parameters_it_does_not_advertise(session: Session, root: Path) -> None:
    (root / "a.txt").write_text("alpha\nbeta\ngamma\n")
    listed, accepted = input_schema("read"), accepted_schema("read")
    assert [name for name in accepted["properties"] if name not in listed["properties"]] == [
        "match_id",
        "format",
        "fresh",
        "char_offset",
        "context_before",
        "context_after",
        "mode",
    ]
    assert "additionalProperties" not in listed and accepted["additionalProperties"] is False
    assert session.call("grep", {"pattern": "beta"}).metadata["matches"][0]["id"] == "m1"
    around = session.call("read", {"match_id": "m1", "context_before": "0", "context_after": 1})
    assert around.text == (
        "<path>a.txt</path>\n<type>file</type>\n<content>\nbeta\ngamma\n\n(End of file - total 3 lines)\n</content>"
    )
    assert session.call("read", {"path": "a.txt", "match": "m1"}).text == (
        "Invalid arguments for read: unknown argument 'match'; the parameters are path, symbol, offset, limit, "
        "focus."
    )
