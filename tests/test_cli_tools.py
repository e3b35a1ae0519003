"""The bash agent's leanread: `edit`, `write` and `context` from a shell, one session across
separate invocations, and the compaction hook run as Claude Code runs it against a live server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from conftest import text_of
from mcp import Client, StdioServerParameters

from leanread.inspector.queries import headline
from leanread.ledger.sqlite_store import SQLiteLedger, default_ledger_path
from leanread.tokens import count_tokens

#: A line long enough that a stub is cheaper than the lines it stands for.
DEF = "def function_{0}(argument_one, argument_two): return {0}"
BODY = "".join(f"{DEF.format(i)}\n" for i in range(1, 11))
STUB = (
    "<path>defs.py</path>\n<type>file</type>\n<content>\n"
    "(Lines 1-10 unchanged since you read them, still in your context. Use fresh=true to see them again.)\n\n"
    "(End of file - total 10 lines)\n</content>\n"
)
FULL = f"<path>defs.py</path>\n<type>file</type>\n<content>\n{BODY}\n(End of file - total 10 lines)\n</content>\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "defs.py").write_text(BODY)
    return root


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, **extra}


def run(args: list[str], cwd: Path, stdin: str | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    """``python -m leanread ARGS`` with ``env`` added to this process's environment."""
    return subprocess.run(
        [sys.executable, "-m", "leanread", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env=_env(**env),
    )


def test_one_session_across_shell_calls_dedups_and_grants_edits(repo: Path) -> None:
    first = run(["read", "defs.py"], repo, LEANREAD_SESSION="bash-1")
    again = run(["read", "defs.py"], repo, LEANREAD_SESSION="bash-1")
    edited = run(["edit", "defs.py", "return 3", "return 33"], repo, LEANREAD_SESSION="bash-1")
    assert first.stdout == FULL
    assert again.stdout == STUB
    assert edited.returncode == 0, edited.stderr
    assert edited.stdout == "Edited line 3.\n"
    assert (repo / "defs.py").read_text() == BODY.replace("return 3\n", "return 33\n")


def test_session_flag_and_variable_name_the_same_session(repo: Path) -> None:
    assert run(["read", "defs.py", "--session", "s"], repo).stdout == FULL
    assert run(["read", "defs.py"], repo, LEANREAD_SESSION="s").stdout == STUB
    assert run(["read", "defs.py"], repo).stdout == FULL  # no session: a new one each call


def test_edit_without_the_reads_session_is_refused_and_writes_nothing(repo: Path) -> None:
    run(["read", "defs.py", "--session", "reader"], repo)
    refused = run(["edit", "defs.py", "return 3", "return 33"], repo)
    assert refused.returncode == 1
    assert refused.stdout == ""
    assert "defs.py" in refused.stderr and "read" in refused.stderr
    assert (repo / "defs.py").read_text() == BODY


def test_write_takes_content_from_stdin_byte_for_byte(repo: Path) -> None:
    created = run(["write", "notes/plan.md", "--session", "w"], repo, stdin="# Plan\n\n- one\n")
    assert created.returncode == 0, created.stderr
    assert created.stdout == "Created 3 lines.\n"
    assert (repo / "notes" / "plan.md").read_bytes() == b"# Plan\n\n- one\n"
    replaced = run(["write", "notes/plan.md", "# Plan\n", "--session", "w"], repo)
    assert replaced.returncode == 0, replaced.stderr
    assert (repo / "notes" / "plan.md").read_bytes() == b"# Plan\n"


def test_concurrent_shell_calls_share_one_session_safely(repo: Path) -> None:
    for i in range(6):
        (repo / f"f{i}.py").write_text(BODY)

    def read(i: int) -> dict[str, Any]:
        done = run(["read", f"f{i}.py", "--meta"], repo, LEANREAD_SESSION="many")
        assert done.returncode == 0, done.stderr
        return dict(json.loads(done.stderr))

    with ThreadPoolExecutor(6) as pool:
        metas = list(pool.map(read, range(6)))
    assert sorted(m["call_id"] for m in metas) == [f"r{i}" for i in range(1, 7)]
    for i in range(6):
        assert run(["read", f"f{i}.py"], repo, LEANREAD_SESSION="many").stdout == STUB.replace("defs.py", f"f{i}.py")


def test_context_commands_print_what_changed(repo: Path) -> None:
    for _ in range(3):
        run(["read", "defs.py", "--session", "c"], repo)
    forgot = run(["context", "forget", "r1", "zz", "--session", "c"], repo)
    assert forgot.stdout == (
        "forget: 1 tool result is now out of the context window (r1). "
        "No result of this session has the call id 'zz'; it was ignored.\n"
    )
    rewound = run(["context", "rewind", "r2", "--session", "c"], repo)
    assert rewound.stdout == "rewind: 1 tool result is now out of the context window (r3).\n"
    compacted = run(["context", "compact", "--all", "--session", "c"], repo)
    assert compacted.stdout == "compact: 1 tool result is now out of the context window (r2).\n"
    assert run(["read", "defs.py", "--session", "c"], repo).stdout == FULL
    nobody = run(["context", "forget", "r1"], repo)
    assert nobody.returncode == 1
    assert nobody.stderr == (
        "context needs --session (or $LEANREAD_SESSION): the session whose results left the context window.\n"
    )


def test_context_commands_are_kept_as_the_harness_s_and_inspect_counts_them_apart(repo: Path) -> None:
    run(["read", "defs.py", "--session", "c"], repo)
    run(["read", "defs.py", "--session", "c"], repo)
    forgot = run(["context", "forget", "r1", "--session", "c"], repo)
    assert forgot.stdout == "forget: 1 tool result is now out of the context window (r1).\n"
    with SQLiteLedger(default_ledger_path()) as ledger:
        assert [(c.tool, c.caller) for c in ledger.calls("c", bodies=False)] == [
            ("read", "model"), ("read", "model"), ("context", "harness"),
        ]  # fmt: skip
        (summary,) = ledger.sessions()
    shown = count_tokens(FULL[:-1]) + count_tokens(STUB[:-1])
    full = 2 * count_tokens(FULL[:-1])
    assert headline(summary) == (
        f"2 calls · {shown:,} tokens shown · {full:,} for plain full reads · {1 - shown / full:.1%} saved · "
        f"and 1 harness command ({count_tokens(forgot.stdout[:-1]):,} tokens the model was not shown)"
    )


def test_compact_all_covers_every_session_of_the_root_only(repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "defs.py").write_text(BODY)
    run(["read", "defs.py", "--session", "a"], repo)
    run(["read", "defs.py", "--session", "b"], repo)
    run(["read", "defs.py", "--session", "elsewhere"], other)
    done = run(["context", "compact", "--all"], repo)
    assert done.stdout == "compact: 2 tool results of 2 sessions are now out of the context window.\n"
    assert run(["read", "defs.py", "--session", "a"], repo).stdout == FULL
    assert run(["read", "defs.py", "--session", "elsewhere"], other).stdout == STUB


# --- the Claude Code hook against a running server -----------------------------------------


def claude_hook_input(event: str, cwd: Path, **fields: str) -> str:
    """The JSON Claude Code writes to a hook's standard input (hooks reference)."""
    base = {
        "session_id": "0b5e3c2a-6f1d-4d8e-9a51-3f0c2e7d9b11",
        "transcript_path": str(cwd / ".claude" / "transcript.jsonl"),
        "cwd": str(cwd),
        "hook_event_name": event,
    }
    return json.dumps({**base, **fields})


def hook(stdin: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The hook command as Claude Code runs it: through a shell, in the project folder, JSON on stdin."""
    command = f"{sys.executable} -m leanread context compact --hook"
    return subprocess.run(command, shell=True, cwd=cwd, input=stdin, capture_output=True, text=True, env=_env())


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("event", "fields"),
    [
        ("PreCompact", {"trigger": "auto", "custom_instructions": ""}),
        ("SessionStart", {"source": "clear"}),
    ],
)
async def test_claude_code_hook_makes_the_servers_next_read_full(
    repo: Path, event: str, fields: dict[str, str]
) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "leanread", "serve", "--root", str(repo)], env=_env()
    )
    async with Client(params) as client:
        await client.call_tool("read", {"path": "defs.py"})
        stub = await client.call_tool("read", {"path": "defs.py"})
        done = hook(claude_hook_input(event, repo, **fields), repo)
        after = await client.call_tool("read", {"path": "defs.py"})
    assert text_of(stub) + "\n" == STUB
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""  # SessionStart's stdout would land in the model's context
    assert done.stderr == "leanread: compact: 2 tool results are now out of the context window (r1, r2).\n"
    assert text_of(after) + "\n" == FULL


@pytest.mark.anyio
async def test_claude_code_startup_hook_changes_nothing(repo: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "leanread", "serve", "--root", str(repo)], env=_env()
    )
    async with Client(params) as client:
        await client.call_tool("read", {"path": "defs.py"})
        done = hook(claude_hook_input("SessionStart", repo, source="startup"), repo)
        after = await client.call_tool("read", {"path": "defs.py"})
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert text_of(after) + "\n" == STUB


def test_hook_input_decides_whether_anything_is_gone(repo: Path) -> None:
    run(["read", "defs.py", "--session", "h"], repo)
    resumed = hook(claude_hook_input("SessionStart", repo, source="resume"), repo)
    assert resumed.stderr == "leanread: compact: 1 tool result is now out of the context window (r1).\n"
    broken = hook("{not json", repo)
    assert broken.returncode == 1
    assert broken.stderr == "The hook input on standard input is not JSON; pass the client's hook JSON.\n"
