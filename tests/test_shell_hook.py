"""Claude Code's PreToolUse hook on Bash: the JSON Claude Code sends in, a rewrite to
``leanread sh`` (its ``session_id`` as the ledger session) out for reads, nothing for the rest;
and a SWE-agent viewer window replayed through the same path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from leanread.bench.replay.calls import ReadCall, snapshot
from leanread.bench.replay.strategies.bash_leanread import BashLeanread
from leanread.cli.clientconfig import render


def _event(command: str, cwd: Path, tool: str = "Bash") -> dict[str, object]:
    return {
        "session_id": "0b6f1c3e-claude-session",
        "transcript_path": str(cwd / "t.jsonl"),
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": {"command": command, "description": "Show the file"},
        "tool_use_id": "toolu_01",
    }


def _hook(event: dict[str, object], cwd: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "leanread.shell.hook", *args],
        input=json.dumps(event),
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.py").write_text("".join(f"value_{n} = {n}\n" for n in range(1, 60)))
    return root


def test_a_read_is_rewritten_to_leanread_sh_in_claude_codes_session(repo: Path, tmp_path: Path) -> None:
    out = json.loads(_hook(_event("sed -n '10,40p' a.py", repo), repo))
    leanread = str(Path(sys.executable).parent / "leanread")
    assert out == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "permissionDecisionReason": "leanread answers this read from what the session has seen",
            "updatedInput": {
                "command": f"{leanread} sh --session 0b6f1c3e-claude-session --root {repo} -c "
                + "'sed -n '\"'\"'10,40p'\"'\"' a.py'",
                "description": "Show the file",
            },
        }
    }
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "LEANREAD_WARM": "0"}
    command = out["hookSpecificOutput"]["updatedInput"]["command"]
    runs = [subprocess.run(["bash", "-c", command], cwd=repo, env=env, capture_output=True, text=True) for _ in "ab"]
    assert runs[0].stdout == "".join(f"value_{n} = {n}\n" for n in range(10, 41))
    assert runs[1].stdout.startswith("(Lines 10-40 unchanged since you read them, still in your context.")


@pytest.mark.parametrize(
    ("command", "tool"),
    [
        ("sed -i 's/1/2/' a.py", "Bash"),
        ("ls -la", "Bash"),
        ("cat a.py > b.py", "Bash"),
        ("cat a.py", "Read"),
        ("cat /etc/hostname", "Bash"),  # outside the root: Claude Code's own prompt decides
        ("grep -rn value ..", "Bash"),
        ("cat .env", "Bash"),  # on leanread's deny list: not waved through with allow
        ("cd sub && cat ../../x.py", "Bash"),
    ],
)
def test_other_calls_are_left_alone(repo: Path, command: str, tool: str) -> None:
    assert _hook(_event(command, repo, tool), repo) == ""


def test_mcp_config_prints_the_hook_and_it_runs(repo: Path) -> None:
    settings = json.loads(render("claude-code", [str(repo)], "settings"))
    (entry,) = settings["hooks"]["PreToolUse"]
    assert entry["matcher"] == "Bash"
    hook = entry["hooks"][0]["command"]
    done = subprocess.run(
        ["bash", "-c", hook], input=json.dumps(_event("cat a.py", repo)), capture_output=True, text=True, check=True
    )
    assert "--root " + str(repo) in json.loads(done.stdout)["hookSpecificOutput"]["updatedInput"]["command"]


def test_a_swe_agent_window_goes_through_the_same_path(repo: Path) -> None:
    strategy = BashLeanread(repo)
    file = snapshot(repo, "a.py")
    assert file is not None
    call = ReadCall("a.py", 5, 20, file, 1, cmd="nl -ba a.py | sed -n '5,24p'")
    first = strategy.read(call)
    again = strategy.read(ReadCall("a.py", 5, 20, file, 2, cmd=call.cmd))
    assert first == "".join(f"{n}\tvalue_{n} = {n}\n" for n in range(5, 25))
    assert again.startswith("(Lines 5-24 unchanged since you read them, still in your context.")
    assert strategy.divergences == [] and strategy.notes["shell: answered"] == 2
