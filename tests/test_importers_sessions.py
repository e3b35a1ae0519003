"""``leanread bench import`` of the sessions users have: Claude Code, Codex CLI and opencode.

The fixtures were written from the formats' sources and documentation (no public session with a
licence that allows copying was found): see ``fixtures/importers/README.md``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from leanread.bench.importers import converter, import_files
from leanread.bench.importers.patch import patch_ops

FIXTURES = Path(__file__).parent / "fixtures" / "importers"
STORAGE = FIXTURES / "opencode-storage"
SESSION = STORAGE / "session" / "9c1e4b2a7f3d5e6c8b0a1d2f3e4c5b6a7d8e9f0a" / "ses_52a1f3c0dffeQz7Lk2Jm9VbXcA.json"
ROOT = "/home/ana/src/tinyhttp"


def rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def test_claude_code_session_gives_the_documented_ops() -> None:
    (trace,) = converter("claude-code")(FIXTURES / "claude-code-session.jsonl", {})
    assert trace.ops == rows(FIXTURES / "claude-code-expected.jsonl")
    assert trace.name == "7d1f0c7e-3b8a-4c55-9a51-2f0e8f6b9c10__claude-code"
    header = trace.finish().header
    assert {k: header[k] for k in ("agent", "model", "orig_repo_root", "format", "n_steps")} == {
        "agent": "Claude Code 2.0.61",
        "model": "claude-sonnet-4-5-20250929",
        "orig_repo_root": ROOT,
        "format": "claude-code",
        "n_steps": 11,
    }
    assert header["op_counts"] == {"glob": 1, "read": 2, "grep": 2, "edit": 4, "write": 1, "shell": 1, "list": 1}


def test_claude_code_keeps_the_shells_folder_and_drops_refused_calls() -> None:
    (trace,) = converter("claude-code")(FIXTURES / "claude-code-session.jsonl", {})
    shells = [op for op in trace.ops if op.get("cmd")]
    assert [(op["op"], op["cmd"], op.get("rc")) for op in shells] == [
        ("shell", "python -m pytest -q test_casing.py", 1),
        ("grep", 'grep -rn "_Key" ../tinyhttp', None),
    ]
    assert shells[1]["path"] == "tinyhttp"
    assert not any(op.get("path") == "README.md" for op in trace.ops)


def test_codex_rollout_gives_the_documented_ops() -> None:
    (trace,) = converter("codex")(FIXTURES / "codex-rollout.jsonl", {})
    assert trace.ops == rows(FIXTURES / "codex-expected.jsonl")
    header = trace.finish().header
    assert {k: header[k] for k in ("repo", "base_commit", "agent", "model", "orig_repo_root", "n_steps")} == {
        "repo": "ana/tinyhttp",
        "base_commit": "4f2c1a9e8b7d6c5b4a39281706f5e4d3c2b1a090",
        "agent": "Codex CLI 0.58.0",
        "model": "gpt-5-codex",
        "orig_repo_root": ROOT,
        "n_steps": 10,
    }


def test_codex_sidecar_overrides_the_rollouts_git_fields(tmp_path: Path) -> None:
    rollout = tmp_path / "rollout-2025-11-20T09-00-00-x.jsonl"
    rollout.write_bytes((FIXTURES / "codex-rollout.jsonl").read_bytes())
    meta = {"repo": "psf/requests", "base_commit": "abc", "repo_root_in_trajectory": "/testbed"}
    (tmp_path / "sources.json").write_text(json.dumps({"019a9f3e-5c2d-7a10-b4e2-0c6f1d2e3a4b": meta}), "utf-8")
    (out,) = import_files("codex", [rollout], tmp_path / "out")
    header = rows(out)[0]
    assert (header["repo"], header["base_commit"], header["orig_repo_root"]) == ("psf/requests", "abc", "/testbed")
    assert out.name == "019a9f3e-5c2d-7a10-b4e2-0c6f1d2e3a4b__codex.jsonl"


def test_opencode_storage_gives_the_documented_ops() -> None:
    (trace,) = converter("opencode")(SESSION, {})
    assert trace.ops == rows(FIXTURES / "opencode-expected.jsonl")
    header = trace.finish().header
    assert {k: header[k] for k in ("agent", "model", "orig_repo_root", "format", "n_steps")} == {
        "agent": "opencode 0.15.8",
        "model": "anthropic/claude-sonnet-4-5",
        "orig_repo_root": ROOT,
        "format": "opencode",
        "n_steps": 11,
    }


def test_opencode_export_file_gives_the_same_ops(tmp_path: Path) -> None:
    session = json.loads(SESSION.read_text("utf-8"))
    messages = []
    for file in sorted((STORAGE / "message" / session["id"]).glob("*.json")):
        info = json.loads(file.read_text("utf-8"))
        parts = [json.loads(p.read_text("utf-8")) for p in sorted((STORAGE / "part" / info["id"]).glob("*.json"))]
        messages.append({"info": info, "parts": parts})
    messages.sort(key=lambda m: m["info"]["time"]["created"])
    export = tmp_path / "export.json"
    export.write_text(json.dumps({"info": session, "messages": messages}), "utf-8")
    (trace,) = converter("opencode")(export, {})
    assert trace.ops == rows(FIXTURES / "opencode-expected.jsonl")


def test_bench_import_cli_takes_the_new_formats(tmp_path: Path) -> None:
    session = str(FIXTURES / "claude-code-session.jsonl")
    done = subprocess.run(
        [sys.executable, "-m", "leanread", "bench", "import", "claude-code", session, "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        env={**os.environ},
        check=True,
    )
    assert [Path(line).name for line in done.stdout.splitlines()] == [
        "7d1f0c7e-3b8a-4c55-9a51-2f0e8f6b9c10__claude-code.jsonl"
    ]
    assert rows(tmp_path / "7d1f0c7e-3b8a-4c55-9a51-2f0e8f6b9c10__claude-code.jsonl")[1:] == rows(
        FIXTURES / "claude-code-expected.jsonl"
    )


def test_patch_add_delete_and_context_free_addition() -> None:
    text = (
        "*** Begin Patch\n*** Add File: /r/new.txt\n+a\n+b\n*** Delete File: old.txt\n"
        "*** Update File: c.txt\n@@\n+tail\n*** End of File\n*** End Patch\n"
    )
    assert patch_ops(text, lambda p: p.removeprefix("/r/")) == [
        {"op": "write", "path": "new.txt", "content": "a\nb\n"},
        {"op": "shell", "cmd": "rm old.txt", "mutates": ["old.txt"]},
        {"op": "shell", "cmd": "apply_patch (lines added without context)", "mutates": ["c.txt"]},
    ]


LINE = st.text(alphabet="abc xyz", min_size=0, max_size=6)


@given(st.lists(LINE, min_size=1, max_size=12), st.data())
def test_an_update_chunk_applied_as_its_edit_gives_the_patched_file(texts: list[str], data: st.DataObject) -> None:
    lines = [f"L{n:02d} {text}" for n, text in enumerate(texts)]
    start = data.draw(st.integers(0, len(lines) - 1))
    end = data.draw(st.integers(start + 1, len(lines)))
    replaced = data.draw(st.lists(LINE, max_size=3))
    keep = data.draw(st.integers(0, end - start))
    window = lines[start:end]
    body = [" " + line for line in window[:keep]] + ["-" + line for line in window[keep:]] + ["+" + r for r in replaced]
    text = "*** Begin Patch\n*** Update File: f.txt\n@@\n" + "\n".join(body) + "\n*** End Patch\n"
    original = "".join(line + "\n" for line in lines)
    expected = "".join(line + "\n" for line in lines[:start] + window[:keep] + replaced + lines[end:])
    result = original
    for op in patch_ops(text, lambda p: p):
        assert op["op"] == "edit"
        result = result.replace(op["old"], op["new"], 1)
    assert result == expected
