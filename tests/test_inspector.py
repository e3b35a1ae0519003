"""The real MCP Inspector CLI (npm ``@modelcontextprotocol/inspector``) against ``leanread serve``:
it converts a ``--tool-arg`` value only for a property with a plain ``type``, so these calls prove
the schemas can be filled from a command line. ``.ci/run`` installs it into
``~/.cache/leanread/npm``; elsewhere the tests skip, saying so (under ``CI=true`` they fail)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from leanread.adapters.harness import HARNESS_TOOLS
from leanread.tools.registry import input_schema

INSPECTOR = Path(
    os.environ.get("LEANREAD_INSPECTOR", Path.home() / ".cache/leanread/npm/node_modules/.bin/mcp-inspector")
)


@pytest.fixture
def inspector() -> Path:
    if not INSPECTOR.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"the MCP Inspector CLI is missing at {INSPECTOR}; .ci/run installs it")
        pytest.skip(f"the MCP Inspector CLI is not installed ({INSPECTOR}); see .ci/run to install it")
    return INSPECTOR


def _inspect(inspector: Path, root: Path, *args: str) -> Any:
    """The JSON the Inspector CLI prints for one request to ``leanread serve --root root``."""
    env_args = [f"-e=PYTHONPATH={os.environ['PYTHONPATH']}"] if os.environ.get("PYTHONPATH") else []
    command = [str(inspector), "--cli", *env_args, sys.executable, "-m", "leanread", "serve", "--root", str(root)]
    done = subprocess.run(
        [*command, "--ledger", "memory", *args], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def _text(answer: Any) -> tuple[bool, str]:
    return answer["isError"], "".join(block["text"] for block in answer["content"])


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "setup.py").write_text("".join(f"line {n}\n" for n in range(1, 13)))
    (tmp_path / "src" / "app.py").write_text("def Handler():\n    return 1\n")
    return tmp_path


def test_tools_list_shows_the_schemas_and_annotations(inspector: Path, repo: Path) -> None:
    tools = {tool["name"]: tool for tool in _inspect(inspector, repo, "--method", "tools/list")["tools"]}
    assert list(tools) == list(HARNESS_TOOLS)  # context only with --expose-context-tool
    assert all(tools[name]["inputSchema"] == input_schema(name) for name in HARNESS_TOOLS)
    hints = {name: tools[name]["annotations"] for name in HARNESS_TOOLS}
    assert [name for name, hint in hints.items() if hint["readOnlyHint"]] == ["read", "grep", "ls"]
    assert [name for name, hint in hints.items() if hint["destructiveHint"]] == ["edit", "write"]
    assert [name for name, hint in hints.items() if not hint["idempotentHint"]] == ["edit"]


def test_integer_boolean_and_enum_arguments(inspector: Path, repo: Path) -> None:
    call = ("--method", "tools/call", "--tool-name")
    read = _inspect(
        inspector, repo, *call, "read", "--tool-arg", "path=setup.py", "--tool-arg", "offset=10",
        "--tool-arg", "limit=2", "--tool-arg", "format=colon", "--tool-arg", "fresh=true",
    )  # fmt: skip
    listed = _inspect(inspector, repo, *call, "ls", "--tool-arg", "depth=1")
    found = _inspect(
        inspector, repo, *call, "grep", "--tool-arg", "pattern=handler", "--tool-arg", "case_insensitive=true",
        "--tool-arg", "max_results=1",
    )  # fmt: skip
    wrong = _inspect(inspector, repo, *call, "read", "--tool-arg", "path=setup.py", "--tool-arg", "format=xml")
    assert _text(read) == (
        False,
        "<path>setup.py</path>\n<type>file</type>\n<content>\n10: line 10\n11: line 11\n\n"
        "(Showing lines 10-11 of 12. Use offset=12 to continue.)\n</content>",
    )
    assert _text(listed) == (
        False,
        ".:\nsrc/\nsetup.py",
    )
    assert _text(found) == (
        False,
        "src/app.py\n1\tdef Handler():",
    )
    assert _text(wrong) == (
        True,
        "Invalid arguments for read: format must be one of 'plain', 'tab', 'colon', 'catn', 'visible' "
        "(got 'xml'); see the tool's input schema.",
    )
