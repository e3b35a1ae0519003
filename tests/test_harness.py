"""OpenAI and Anthropic tool definitions from the same parameter models as the MCP schemas,
checked against the ``openai`` and ``anthropic`` packages' own types (no network), and a tool
call of each SDK's own message types run through ``Session.call``."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import anthropic.types as anthropic_types
import pytest
from openai.types import chat, responses
from openai.types.shared_params import FunctionDefinition
from pydantic import TypeAdapter

from leanread import Limits, Session
from leanread.adapters.harness import HARNESS_TOOLS, anthropic_result, anthropic_tools, openai_result, openai_tools
from leanread.result import ImageData, ToolResult
from leanread.tools.registry import TOOL_NAMES, input_schema, tool_description


def _keys(typed_dict: Any) -> set[str]:
    return set(typed_dict.__required_keys__ | typed_dict.__optional_keys__)


def test_openai_chat_definitions_fit_the_sdk_types() -> None:
    tools = openai_tools(Limits(max_lines=300))
    assert [tool["function"]["name"] for tool in tools] == list(HARNESS_TOOLS)
    for tool in tools:
        TypeAdapter(chat.ChatCompletionFunctionToolParam).validate_python(tool)
        assert chat.ChatCompletionFunctionTool.model_validate(tool).model_dump(exclude_none=True) == tool
        assert set(tool) <= _keys(chat.ChatCompletionFunctionToolParam)
        assert set(tool["function"]) <= _keys(FunctionDefinition)
        name = tool["function"]["name"]
        assert tool["function"]["parameters"] == input_schema(name)
        assert tool["function"]["description"] == tool_description(name, Limits(max_lines=300))
    assert "at most 300 lines and 50 KB a call" in tools[0]["function"]["description"]  # limits filled in


def test_openai_responses_definitions_fit_the_sdk_types() -> None:
    tools = openai_tools(api="responses", names=TOOL_NAMES)
    assert [tool["name"] for tool in tools] == list(TOOL_NAMES)
    for tool in tools:
        TypeAdapter(responses.FunctionToolParam).validate_python(tool)
        assert set(tool) <= _keys(responses.FunctionToolParam)
        assert responses.FunctionTool.model_validate(tool).model_dump(exclude_none=True) == tool


def test_anthropic_definitions_fit_the_sdk_types() -> None:
    tools = anthropic_tools()
    assert [tool["name"] for tool in tools] == list(HARNESS_TOOLS)
    for tool in tools:
        TypeAdapter(anthropic_types.ToolParam).validate_python(tool)
        assert set(tool) <= _keys(anthropic_types.ToolParam)
        assert tool["input_schema"] == input_schema(tool["name"])


def test_a_chat_completion_tool_call_runs_and_answers(session: Session, root: Path) -> None:
    (root / "setup.py").write_text("".join(f"line {n}\n" for n in range(1, 13)))
    message = chat.ChatCompletionMessage.model_validate(
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": json.dumps(
                    {"path": "setup.py", "offset": "10", "limit": 2})}},
                {"id": "call_2", "type": "function", "function": {"name": "ls", "arguments": '{"depth": true}'}},
            ],
        }
    )  # fmt: skip
    answers = []
    for call in message.tool_calls or []:
        assert isinstance(call, chat.ChatCompletionMessageFunctionToolCall)
        result = session.call(call.function.name, call.function.arguments, call_id=call.id)
        answers.append(openai_result(result, call.id))
    for answer in answers:
        TypeAdapter(chat.ChatCompletionToolMessageParam).validate_python(answer)
    assert answers == [
        {
            "role": "tool",
            "tool_call_id": "call_1",
            "content": "<path>setup.py</path>\n<type>file</type>\n<content>\nline 10\nline 11\n\n"
            "(Showing lines 10-11 of 12. Use offset=12 to continue.)\n</content>",
        },
        {
            "role": "tool",
            "tool_call_id": "call_2",
            "content": "Invalid arguments for ls: depth must be a whole number (got true); "
            "see the tool's input schema.",
        },
    ]


def test_an_anthropic_tool_use_runs_and_answers(session: Session, root: Path) -> None:
    (root / "a.txt").write_text("alpha\n")
    block = anthropic_types.ToolUseBlock.model_validate(
        {"type": "tool_use", "id": "toolu_1", "name": "edit", "input": {"path": "a.txt", "old_string": "alpha",
                                                                        "new_string": "beta"}}
    )  # fmt: skip
    answer = anthropic_result(session.call(block.name, block.input, call_id=block.id), block.id)
    TypeAdapter(anthropic_types.ToolResultBlockParam).validate_python(answer)
    assert answer == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": [
            {
                "type": "text",
                "text": "You have not read a.txt in this session, so nothing was edited; read the lines old_string "
                "spans first (offset=1, limit=1) and retry.",
            }
        ],
        "is_error": True,
    }


def test_an_image_result_becomes_an_anthropic_image_block() -> None:
    data = base64.b64encode(b"\x89PNG fake").decode()
    result = ToolResult(text="an image", images=(ImageData(data, "image/png", 1, 1),))
    answer = anthropic_result(result, "toolu_2")
    TypeAdapter(anthropic_types.ToolResultBlockParam).validate_python(answer)
    assert answer["content"][1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": data},
    }


def test_an_unknown_tool_name_in_a_definition_request_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        anthropic_tools(names=["reed"])
