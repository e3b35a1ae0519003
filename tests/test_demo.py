"""The demo's trace replay, end to end through a `leanread serve` subprocess.

The release source is laid into the demo's cache beforehand, so no download happens here;
`make demo` runs the same code against a real sdist from PyPI.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from leanread.bench.demo import replay_trace
from leanread.bench.ops import Replayer


def _lay_out(tmp_path: Path) -> tuple[Path, Path]:
    source = tmp_path / "cache" / "src" / "toypkg-1.0"
    (source / "toypkg").mkdir(parents=True)
    (source / "toypkg" / "core.py").write_text("".join(f"value_{i} = {i}\n" for i in range(1, 41)))
    ops = [
        {"op": "read", "path": "toypkg/core.py", "offset": None, "limit": None, "step": 1},
        {"op": "read", "path": "toypkg/core.py", "offset": 10, "limit": 5, "step": 2},
        {"op": "edit", "path": "toypkg/core.py", "old": "value_12 = 12\n", "new": "value_12 = 0\n", "step": 3},
        {"op": "read", "path": "toypkg/core.py", "offset": 10, "limit": 5, "step": 4},
        {"op": "read", "path": "toypkg/absent.py", "offset": None, "limit": None, "step": 5},
        {"op": "read", "path": "toypkg/core.py", "tail": 2, "offset": None, "limit": None, "step": 6},
        {"op": "write", "path": "/workspace/outside.py", "content": "x = 1\n", "step": 7},
    ]
    trace = tmp_path / "owner__toypkg-1__agent.jsonl"
    header = {"instance_id": "owner__toypkg-1", "repo": "owner/toypkg", "version": "1.0", "agent": "a", "model": "m"}
    trace.write_text("\n".join(json.dumps(row) for row in [header, *ops]) + "\n")
    return trace, tmp_path / "cache"


def test_replay_counts_tokens_stubs_and_skips(tmp_path: Path) -> None:
    trace, cache = _lay_out(tmp_path)
    replay = replay_trace(trace, cache)
    assert [(r.step, r.window, r.note) for r in replay.rows] == [
        (1, "1-end", ""),
        (2, "10-14", "stub → r1"),
        (4, "10-14", "stub → r1, r3"),  # the edit went through leanread: r3 showed the new line 12
        (6, "39-end", "markers → r1"),  # lines 39-40 kept their text through the edit of line 12
    ]
    assert replay.skipped_reads == ["toypkg/absent.py"]
    assert replay.changes == {"edit through leanread": 1, "skipped: outside the repository": 1}
    # The stub is cheaper than the colon-prefixed window it replaces.
    assert replay.rows[1].leanread < replay.rows[1].baseline
    assert replay.leanread_total < replay.baseline_total
    # The source in the cache is untouched: edits went to a scratch copy.
    assert "value_12 = 12\n" in (cache / "src" / "toypkg-1.0" / "toypkg" / "core.py").read_text()


def test_demo_command_prints_table_and_ratio(tmp_path: Path) -> None:
    trace, cache = _lay_out(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "leanread", "demo", "--trace", str(trace), "--cache", str(cache)],
        capture_output=True,
        text=True,
        timeout=120,
        env={"COLUMNS": "160", "PATH": "/usr/bin:/bin", "PYTHONPATH": os.environ.get("PYTHONPATH", "")},
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "toypkg/core.py" in out
    assert "reads replayed: 4; skipped (path absent or outside the repository): 1" in out
    replay = replay_trace(trace, cache)
    lean, base = replay.leanread_total, replay.baseline_total
    assert f"leanread / opencode-style = {lean:,} / {base:,} tokens = {lean / base:.3f}" in out
    # the legend names the unit and explains each note the table uses, and only those
    assert "Figures are tokens (o200k_base) of the text each read returned to the model." in out
    assert "stub → rN: the model still had these lines, unchanged, from call rN, so leanread sent a short" in out
    assert "markers → rN: only the lines the model did not have yet were sent;" in out
    assert "diff: the file changed" not in out and "byte cap:" not in out
    # the agent's file changes are listed, one row each
    assert "The agent's file changes, replayed between the reads" in out
    rows = [line.split("│")[1:-1] for line in out.splitlines() if line.startswith("│") and "outside" in line]
    assert [[cell.strip() for cell in row] for row in rows] == [
        ["7", "write", "/workspace/outside.py", "1 line", "skipped: outside the repository"]
    ]
    assert any("edit" in line and "1 → 1 line" in line and "edit through leanread" in line for line in out.splitlines())


def test_replayer_undo_restores_bytes(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_bytes(b"a\r\nb\r\n")
    replayer = Replayer(tmp_path)
    assert replayer.apply({"op": "insert", "path": "f.txt", "line": 1, "new": "x"}) == "applied"
    assert target.read_bytes() == b"a\r\nx\nb\r\n"
    assert replayer.apply({"op": "undo_edit", "path": "f.txt"}) == "applied"
    assert target.read_bytes() == b"a\r\nb\r\n"
    assert replayer.apply({"op": "edit", "path": "f.txt", "old": "zzz", "new": "y"}) == "skipped: old text not found"
