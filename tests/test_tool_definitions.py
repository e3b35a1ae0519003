"""What each tool's definition must tell a model, held rule by rule as the model is sent it
(``tools/list`` of a server with default settings), and what the five definitions cost.

A rule is held by one phrase of the tool's description, or of one parameter's description, or
by a field of the input schema, so a shorter text cannot drop one silently: rewording a rule
means rewording its phrase here too.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leanread import MemoryLedger, Session
from leanread.bench.replay.tooldefs import leanread_definitions
from leanread.mcp.server import build_server
from leanread.tools.registry import accepted_schema

#: The goal of issue 29: tokens of the five definitions (name, description, input schema).
BUDGET = 1_300


@dataclass(frozen=True)
class Rule:
    """One thing a model must be told: by ``phrase`` in the description of ``tool`` (``param``
    empty) or of its parameter ``param``."""

    tool: str
    what: str
    phrase: str
    param: str = ""


RULES = (
    # read
    Rule("read", "what it reads", "Read a text file, document (PDF, DOCX, ODT, RTF, EPUB), notebook, image or folder."),
    Rule("read", "lines exactly as in the file, no numbers", "Lines come as in the file, unnumbered"),
    Rule("read", "its caps", "at most 2000 lines and 50 KB a call"),
    Rule("read", "offsets are 1-based", "First line, 1-based.", "offset"),
    Rule(
        "read",
        "a whole big text file (not a document) gives its outline",
        "A text file over 200 lines or 48 KB read whole gives its outline",
    ),
    Rule("read", "how to get the text of an outlined file", "offset, limit or symbol give the text"),
    Rule("read", "one definition by name", "A definition by name", "symbol"),
    Rule("read", "symbol without path searches the workspace", "without path: found in the workspace", "symbol"),
    Rule("read", "paths are relative to the workspace root", "Relative to the workspace root.", "path"),
    Rule("read", "no path goes on in the last file", "Default: the last file read, after its last window.", "path"),
    Rule("read", "markers are display only", "markers are display only: never write them into a file."),
    Rule("read", "focus keeps the relevant lines", "A question: only the lines relevant to it are shown.", "focus"),
    # grep
    Rule("grep", "the regex flavour", "Rust regex: no look-around or back-references.", "pattern"),
    Rule("grep", "a failing regex is searched as text", "one that fails or finds nothing is searched as literal text"),
    Rule("grep", "lines shown count as read for edit", "Lines shown whole count as read for edit."),
    Rule("grep", "its caps", "At most 100 matches and 50 KB a call"),
    Rule("grep", "a capped result says how to go on", "a note says how to go on."),
    Rule("grep", "what is skipped, said", "Ignored files, .git, binaries, secrets and symbolic links are skipped"),
    Rule("grep", "a name's uses", "Instead of pattern: a name's uses", "symbol"),
    Rule("grep", "focus keeps the relevant matches", "A question: a long result keeps the matches", "focus"),
    Rule("grep", "files only", "true: the matching files with their match counts.", "files_only"),
    Rule("grep", "context lines", "Lines around each match.", "context"),
    # ls
    Rule("ls", "a tree", "List a folder as a tree."),
    Rule(
        "ls",
        "what is left out, said",
        "Left out: .git, node_modules, virtualenvs, ignored paths, secrets; a note says",
    ),
    Rule(
        "ls",
        "escaped names go back as shown",
        "Odd bytes in names are escaped (`caf\\xe9.txt`): pass paths back as shown.",
    ),
    Rule("ls", "the default depth", "Default: 2.", "depth"),
    # edit
    Rule("edit", "what it does", "Replace old_string with new_string."),
    Rule("edit", "read before edit", "old_string must be text you were shown of the file as it is now"),
    Rule("edit", "one occurrence unless replace_all", "it must occur once unless replace_all.", "old_string"),
    Rule("edit", "every occurrence", "true: replace every occurrence.", "replace_all"),
    Rule("edit", "what is forgiven", "copied line numbers, CRLF, trailing spaces and indentation are forgiven"),
    Rule("edit", "a refusal says what to read", "else nothing is edited and the result says what to read."),
    Rule(
        "edit",
        "the result shows what differs from what was sent",
        "shows lines only where they were written otherwise",
    ),
    # write
    Rule(
        "write",
        "create, or replace a file read whole",
        "Create a file (UTF-8, folders created) or replace all of one",
    ),
    Rule("write", "the file's encoding is kept", "keeping its encoding and line endings"),
    Rule("write", "part of a file: edit", "for part of a file, use edit."),
)


@pytest.fixture(scope="module")
def listed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The tools as ``tools/list`` gives them, by name."""
    root = tmp_path_factory.mktemp("ws")
    tools = asyncio.run(build_server([root], ledger=MemoryLedger()).list_tools())
    return {tool.name: tool for tool in tools}


def _said(tool: Any, param: str) -> str:
    text = tool.input_schema["properties"][param]["description"] if param else tool.description
    return " ".join(text.split())


@pytest.mark.parametrize("rule", RULES, ids=[f"{r.tool}: {r.what}" for r in RULES])
def test_each_rule_is_said(listed: dict[str, Any], rule: Rule) -> None:
    assert rule.phrase in _said(listed[rule.tool], rule.param)


#: Parameters a call may carry that the definitions leave out (``Param.hidden``): each is needed
#: only once a result calls for it, and that result names it (``TOLD``), or it is a harness's
#: setting (``format``) or a second spelling of a shown one (``before``/``after`` for
#: ``context``, ``type`` for ``glob``).
HIDDEN = {
    "read": ["char_offset", "context_after", "context_before", "format", "fresh", "match_id", "mode"],
    "grep": ["after", "before", "include_ignored", "max_results", "offset", "type"],
    "ls": ["include_ignored", "max_entries"],
    "edit": [],
    "write": [],
}


def test_the_hidden_parameters_are_these(listed: dict[str, Any]) -> None:
    hidden = {
        name: sorted(set(accepted_schema(name)["properties"]) - set(tool.input_schema["properties"]))
        for name, tool in listed.items()
    }
    assert hidden == HIDDEN


def _told(root: Path) -> dict[tuple[str, str], str]:
    """The results that call for a hidden parameter, by (tool, parameter)."""
    (root / ".gitignore").write_text("build/\n")
    (root / "build").mkdir()
    (root / "build" / "gen.py").write_text("needle = 1\n")
    (root / "many").mkdir()
    for n in range(120):
        (root / "many" / f"f{n:03}.py").write_text("needle = 1\n")
    (root / "long.txt").write_text("x" * 2500 + "\n")
    (root / "big.py").write_text("".join(f"def f{n}(a, b):\n    c = a + b * {n}\n    return c\n\n" for n in range(100)))
    session = Session([root], ledger=MemoryLedger())
    session.read("big.py", offset=1, limit=60)
    listing = session.ls().text
    return {
        ("read", "char_offset"): session.read("long.txt").text,
        ("read", "mode"): session.read("big.py").text,
        ("read", "fresh"): session.read("big.py", offset=1, limit=60).text,
        ("grep", "offset"): session.grep("needle").text,
        ("grep", "include_ignored"): session.grep("needle").text,
        ("ls", "include_ignored"): listing,
        ("ls", "max_entries"): listing,
    }


#: What each result says of its hidden parameter (and of the rule it follows: a long line is cut
#: where marked, lines the model has come back as a note).
TOLD = {
    ("read", "char_offset"): "is longer than 2000 characters and was cut where marked; read the rest with offset=1, "
    "char_offset=2001.",
    ("read", "mode"): 'or all of it with mode="full".',
    ("read", "fresh"): "unchanged since you read them, still in your context. Use fresh=true to see them again.",
    ("grep", "offset"): "Use offset=101 to continue",
    ("grep", "include_ignored"): "(include_ignored=true searches it)",
    ("ls", "include_ignored"): "(include_ignored=true lists it)",
    ("ls", "max_entries"): "or pass a larger max_entries.",
}


def test_a_result_that_calls_for_a_hidden_parameter_names_it(root: Path) -> None:
    told = _told(root)
    assert {key: phrase for key, phrase in TOLD.items() if phrase not in told[key]} == {}
    assert {param for _, param in TOLD} <= {param for params in HIDDEN.values() for param in params}


def test_every_tool_has_its_rules() -> None:
    assert sorted({rule.tool for rule in RULES}) == ["edit", "grep", "ls", "read", "write"]


def test_the_schemas_say_what_is_required(listed: dict[str, Any]) -> None:
    required = {name: tool.input_schema.get("required", []) for name, tool in listed.items()}
    assert required == {
        "read": [],
        "grep": [],
        "ls": [],
        "edit": ["path", "old_string", "new_string"],
        "write": ["path", "content"],
    }
    assert accepted_schema("read")["properties"]["format"]["enum"] == ["plain", "tab", "colon", "catn", "visible"]
    assert accepted_schema("read")["properties"]["mode"]["enum"] == ["auto", "full", "outline"]


def test_the_five_definitions_fit_the_budget() -> None:
    counts = leanread_definitions().tools
    assert list(counts) == ["read", "grep", "ls", "edit", "write"]
    assert sum(counts.values()) <= BUDGET, counts


def test_no_bound_or_default_is_shown_but_each_is_checked(listed: dict[str, Any]) -> None:
    shown = {
        (name, param): sorted(set(prop) - {"type", "description", "enum"})
        for name, tool in listed.items()
        for param, prop in tool.input_schema["properties"].items()
    }
    assert {key: extra for key, extra in shown.items() if extra} == {}
    assert accepted_schema("read")["properties"]["limit"] == {"type": "integer", "minimum": 1}
    assert accepted_schema("edit")["properties"]["replace_all"] == {
        "type": "boolean",
        "default": False,
        "description": "true: replace every occurrence.",
    }


BOUNDED = [
    (tool, name, prop["minimum"])
    for tool in ("read", "grep", "ls")
    for name, prop in accepted_schema(tool)["properties"].items()
    if "minimum" in prop
]
#: A call each bounded count is tried in: what else it needs to reach the tool's check.
BASE: dict[tuple[str, str], dict[str, object]] = {
    ("read", "char_offset"): {"path": "a.py", "offset": 1},
    ("read", "context_before"): {"match_id": "m1"},
    ("read", "context_after"): {"match_id": "m1"},
}
TOOL_BASE: dict[str, dict[str, object]] = {"read": {"path": "a.py"}, "grep": {"pattern": "x"}, "ls": {}}


@pytest.mark.parametrize(("tool", "name", "minimum"), BOUNDED, ids=[f"{t}.{n}" for t, n, _ in BOUNDED])
@given(below=st.integers(min_value=1, max_value=10**6))
@settings(max_examples=5, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_count_below_its_unshown_minimum_is_refused_by_the_tool(
    root: Path, tool: str, name: str, minimum: int, below: int
) -> None:
    (root / "a.py").write_text("x = 1\n")
    value = minimum - below
    args = {**BASE.get((tool, name), TOOL_BASE[tool]), name: value}
    refused = Session([root], ledger=MemoryLedger()).call(tool, args)
    assert refused.is_error
    # offset=0 is taken as 1, so offset's refusal asks for 1 or more
    assert refused.text.startswith(f"{name} must be {max(minimum, 1 if name == 'offset' else 0)} or more (got {value})")
    assert "\n" not in refused.text
