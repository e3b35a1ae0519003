"""Bad tool arguments over MCP: one sentence as an is_error result, checked against the input
schema before the SDK sees them (no pydantic dumps, no coercion, no silently ignored names)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import pytest
from conftest import text_of
from mcp import Client
from pydantic import Field

from leanread.mcp.server import build_server, check_arguments

pytestmark = pytest.mark.anyio

#: read's advertised parameters (match_id, context_before and context_after are accepted, not listed).
READ_PARAMETERS = "path, symbol, offset, limit, focus"
SEE = "see the tool's input schema."
FORMATS = "'plain', 'tab', 'colon', 'catn', 'visible'"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "a.txt").write_text("alpha\nbeta\n")
    return tmp_path


def _file(path: str, body: str, total: int) -> str:
    lines = f"{total} line{'' if total == 1 else 's'}"
    return f"<path>{path}</path>\n<type>file</type>\n<content>\n{body}\n(End of file - total {lines})\n</content>"


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"offset": "abc"}, "offset must be a whole number (got 'abc')"),
        ({"offset": 2.5}, "offset must be a whole number (got 2.5)"),
        ({"offset": 1e30}, "offset must be a whole number (got 1e+30)"),
        ({"offset": 2.0}, "offset must be a whole number (got 2.0)"),
        ({"offset": True}, "offset must be a whole number (got true)"),
        ({"offset": "2.5"}, "offset must be a whole number (got '2.5')"),
        ({"offset": " 2"}, "offset must be a whole number (got ' 2')"),
        ({"offset": "0x10"}, "offset must be a whole number (got '0x10')"),
        ({"offset": "1" * 31}, "offset must be a whole number (got '" + "1" * 31 + "')"),
        ({"offset": "null"}, "offset must be a whole number (got 'null')"),
        ({"limit": [10]}, "limit must be a whole number (got [10])"),
        ({"char_offset": {"n": 1}}, 'char_offset must be a whole number (got {"n": 1})'),
        ({"format": None}, f"format must be one of {FORMATS} (got null)"),
        ({"format": 1}, f"format must be one of {FORMATS} (got 1)"),
        ({"format": "xml"}, f"format must be one of {FORMATS} (got 'xml')"),
        ({"mode": "map"}, "mode must be one of 'auto', 'full', 'outline' (got 'map')"),
        ({"fresh": "yes"}, "fresh must be true or false (got 'yes')"),
        ({"fresh": 1}, "fresh must be true or false (got 1)"),
        ({"fresh": None}, "fresh must be true or false (got null)"),
        ({"path": 123}, "path must be a string (got 123)"),
        ({"path": ["a.txt"]}, 'path must be a string (got ["a.txt"])'),
        ({"offset": "x" * 100}, "offset must be a whole number (got '" + "x" * 56 + "...)"),
    ],
)
async def test_wrong_types_are_one_sentence(repo: Path, arguments: dict[str, Any], problem: str) -> None:
    async with Client(build_server([repo], expose_context_tool=True)) as client:
        result = await client.call_tool("read", {"path": "a.txt", **arguments})
    assert result.is_error is True
    assert text_of(result) == f"Invalid arguments for read: {problem}; {SEE}"


async def test_a_whole_number_sent_as_text_is_that_number(repo: Path) -> None:
    async with Client(build_server([repo])) as client:
        result = await client.call_tool("read", {"path": "a.txt", "offset": "2", "limit": "+1"})
        grep = await client.call_tool("grep", {"pattern": "a", "max_results": "1", "context": "0"})
    assert result.is_error is False
    assert text_of(result) == _file("a.txt", "beta\n", 2)
    assert (grep.is_error, grep.meta["leanread"]["total_matches"], grep.meta["leanread"]["last_match"]) == (False, 2, 1)


async def test_unknown_argument(repo: Path) -> None:
    async with Client(build_server([repo], expose_context_tool=True)) as client:
        one = await client.call_tool("read", {"path": "a.txt", "bogus": 1})
        two = await client.call_tool("read", {"file_path": "a.txt", "bogus": 1, "offset": "abc"})
    assert one.is_error is True
    assert text_of(one) == (
        f"Invalid arguments for read: unknown argument 'bogus'; the parameters are {READ_PARAMETERS}."
    )
    assert two.is_error is True  # unknown names first: they explain the rest
    assert text_of(two) == (
        f"Invalid arguments for read: unknown arguments 'file_path', 'bogus'; the parameters are {READ_PARAMETERS}."
    )


async def test_context_tool_arguments(repo: Path) -> None:
    async with Client(build_server([repo], expose_context_tool=True)) as client:
        missing = await client.call_tool("context", {})
        wrong = await client.call_tool("context", {"action": 3})
        plain_string = await client.call_tool("context", {"action": "forget", "call_ids": "r1"})
        mixed = await client.call_tool("context", {"action": "forget", "call_ids": ["r1", 2]})
        unknown = await client.call_tool("context", {"action": "forget", "ids": ["r1"]})
    assert text_of(missing) == (
        "Invalid arguments for context: missing required argument 'action' (one of 'forget', 'compact', 'rewind'); "
        + SEE
    )
    assert text_of(wrong) == (
        f"Invalid arguments for context: action must be one of 'forget', 'compact', 'rewind' (got 3); {SEE}"
    )
    assert text_of(plain_string) == (
        f"Invalid arguments for context: call_ids must be a list of strings (got 'r1'); {SEE}"
    )
    assert text_of(mixed) == f'Invalid arguments for context: call_ids must be a list of strings (got ["r1", 2]); {SEE}'
    assert text_of(unknown) == (
        "Invalid arguments for context: unknown argument 'ids'; the parameters are action, call_ids, call_id."
    )
    assert all(r.is_error for r in (missing, wrong, plain_string, mixed, unknown))


async def test_a_json_encoded_list_is_still_accepted(repo: Path) -> None:
    async with Client(build_server([repo], expose_context_tool=True)) as client:
        await client.call_tool("read", {"path": "a.txt"})
        forgot = await client.call_tool("context", {"action": "forget", "call_ids": '["r1"]'})
    assert forgot.is_error is False
    assert text_of(forgot) == "forget: 1 tool result is now out of the context window (r1)."


async def test_unknown_tool(repo: Path) -> None:
    async with Client(build_server([repo], expose_context_tool=True)) as client:
        result = await client.call_tool("reed", {"path": "a.txt"})
    assert result.is_error is True
    assert text_of(result) == "Unknown tool 'reed'; the tools are read, grep, ls, edit, write, context."


async def test_null_for_an_optional_argument_means_omitted(repo: Path) -> None:
    async with Client(build_server([repo], expose_context_tool=True)) as client:
        await client.call_tool("read", {"path": "a.txt", "limit": 1})
        rest = await client.call_tool("read", {"path": None, "offset": 2, "limit": None, "char_offset": None})
    assert rest.is_error is False
    assert text_of(rest) == _file("a.txt", "beta\n", 2)


@pytest.mark.parametrize("name", ["null", "[1]", '{"a": 1}', "true", "12"])
async def test_a_path_that_looks_like_json_is_a_path(repo: Path, name: str) -> None:
    (repo / name).write_text("named file\n")
    async with Client(build_server([repo], expose_context_tool=True)) as client:
        await client.call_tool("read", {"path": "a.txt"})
        result = await client.call_tool("read", {"path": name})
    assert result.is_error is False
    assert text_of(result) == _file(name, "named file\n", 1)


async def test_bad_calls_record_nothing(repo: Path) -> None:
    async with Client(build_server([repo], expose_context_tool=True)) as client:
        await client.call_tool("read", {"path": "a.txt", "offset": "abc"})
        await client.call_tool("read", {"path": "a.txt", "bogus": True})
        good = await client.call_tool("read", {"path": "a.txt"})
    assert good.meta["leanread"]["call_id"] == "r1"
    assert text_of(good) == _file("a.txt", "alpha\nbeta\n", 2)


async def test_what_pydantic_still_refuses_is_one_sentence_too(repo: Path) -> None:
    server = build_server([repo], expose_context_tool=True)

    async def probe(n: Annotated[int, Field(ge=1, description="at least 1")]) -> str:
        return f"n={n}"

    server.add_tool(probe, name="probe", description="A test tool with a bound the schema check leaves to pydantic.")
    async with Client(server) as client:
        low = await client.call_tool("probe", {"n": 0})
        wrong = await client.call_tool("probe", {"n": "one"})
        fine = await client.call_tool("probe", {"n": 2})
    assert low.is_error is True
    assert text_of(low) == (
        "Invalid arguments for probe: n is not valid (input should be greater than or equal to 1, got 0); "
        "see the tool's input schema."
    )
    assert text_of(wrong) == f"Invalid arguments for probe: n must be a whole number (got 'one'); {SEE}"
    assert (fine.is_error, text_of(fine)) == (False, "n=2")


def test_check_arguments_directly() -> None:
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer"},
            "tags": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}], "default": None},
            "mode": {"enum": ["a", "b"], "type": "string", "default": "a"},
            "ratio": {"type": "number"},
            "loose": {},
        },
        "required": ["n"],
    }
    assert check_arguments(schema, {"n": 1, "tags": None, "loose": [1]}) == {"n": 1, "loose": [1]}
    assert check_arguments(schema, {"n": 1, "tags": '["x"]'}) == {"n": 1, "tags": ["x"]}
    assert check_arguments(schema, {"n": 1, "mode": "c"}) == f"mode must be one of 'a', 'b' (got 'c'); {SEE[:-1]}"
    assert check_arguments(schema, {"n": 1, "ratio": float("nan")}) == f"ratio must be a number (got nan); {SEE[:-1]}"
    assert check_arguments(schema, {"n": 1, "ratio": 0.5}) == {"n": 1, "ratio": 0.5}
    assert check_arguments(schema, {"n": 1, "ratio": 10**400}) == {"n": 1, "ratio": 10**400}
    assert check_arguments(schema, {"n": 1, "ratio": True}) == f"ratio must be a number (got true); {SEE[:-1]}"
    assert check_arguments(schema, {}) == f"missing required argument 'n' (a whole number); {SEE[:-1]}"
    assert check_arguments({**schema, "additionalProperties": True}, {"n": 1, "x": 2}) == {"n": 1, "x": 2}
