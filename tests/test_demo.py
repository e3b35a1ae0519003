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

LINE = "value_{} = compute_total(orders, region='north', year={})"


def _lay_out(tmp_path: Path, first_limit: int | None = 30) -> tuple[Path, Path]:
    """The toy trace; its first read takes lines 1-``first_limit`` (None: the whole file)."""
    source = tmp_path / "cache" / "src" / "toypkg-1.0"
    (source / "toypkg").mkdir(parents=True)
    # lines of 17 tokens: a window of ten is worth its stub, five lines their marker (leanread.marks)
    (source / "toypkg" / "core.py").write_text("".join(f"{LINE.format(i, 2000 + i)}\n" for i in range(1, 41)))
    ops = [
        {"op": "read", "path": "toypkg/core.py", "offset": None, "limit": first_limit, "step": 1},
        {"op": "read", "path": "toypkg/core.py", "offset": 10, "limit": 10, "step": 2},
        {"op": "edit", "path": "toypkg/core.py", "old": "year=2012)\n", "new": "year=1999)\n", "step": 3},
        {"op": "read", "path": "toypkg/core.py", "offset": 10, "limit": 10, "step": 4},
        {"op": "read", "path": "toypkg/absent.py", "offset": None, "limit": None, "step": 5},
        {"op": "read", "path": "toypkg/core.py", "tail": 15, "offset": None, "limit": None, "step": 6},
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
        (1, "1-30", ""),
        (2, "10-19", "stub → step 1"),
        (4, "10-19", "stub → steps 1, 3"),  # the edit of step 3 went through leanread and showed the new line 12
        (6, "26-end", "markers → step 1"),  # lines 26-30 as read at step 1, then 31-40 new
    ]
    assert replay.rows[1].text == (
        "<path>toypkg/core.py</path>\n<type>file</type>\n<content>\n(Lines 10-19 unchanged since you read them, "
        "still in your context. Use fresh=true to see them again.)\n\n(Showing lines 10-19 of 40. Use offset=20 to "
        "continue.)\n</content>"
    )
    assert replay.skipped_reads == ["toypkg/absent.py"]
    assert replay.changes == {"edit through leanread": 1, "skipped: outside the repository": 1}
    # The stub is cheaper than the colon-prefixed window it replaces.
    assert replay.rows[1].leanread < replay.rows[1].baseline
    assert replay.leanread_total < replay.baseline_total
    # The source in the cache is untouched: edits went to a scratch copy.
    assert "year=2012)\n" in (cache / "src" / "toypkg-1.0" / "toypkg" / "core.py").read_text()


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
    flat = " ".join(out.split())  # the legend's lines wrap at the console's width
    # one numbering: the notes name the trace's steps, as the rows of both tables do
    assert "steps are the trace's own, in both tables and in the notes." in flat
    assert "│ stub → steps 1, 3 " in out and "│ markers → step 1 " in out and " r1" not in out
    # the legend explains each note the table uses, and only those
    assert "stub → step N: the model still had these lines, unchanged, from what leanread answered at step N" in flat
    assert "markers → step N: only the lines the model did not have yet were sent;" in flat
    assert "diff: the file changed" not in flat and "byte cap:" not in flat and "outline:" not in flat
    # the read mode, said before the table, and the exact text of one stub
    assert flat.index("Read mode: full. Every read returns the lines it asks for and a whole read the whole file") < (
        flat.index("The agent's reads, replayed through leanread")
    )
    assert "with no outlines; `leanread demo --read-mode auto` replays it with outlines" in flat
    stub = replay.rows[1].text
    assert f"What leanread answered at step 2 (a stub, {replay.rows[1].leanread:,} tokens), exactly:\n{stub}\n" in out
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


def test_auto_mode_names_its_outlines_and_says_how_to_read_in_full(tmp_path: Path) -> None:
    from rich.console import Console

    from leanread.bench.demo import print_report

    trace, cache = _lay_out(tmp_path, first_limit=None)
    body = "".join(f"    x{n} = a + b * {n}\n" for n in range(12))
    big = "".join(f"def f{i}(a, b):\n{body}    return x0 * {i}\n\n" for i in range(1, 21))
    (cache / "src" / "toypkg-1.0" / "toypkg" / "core.py").write_text(big)
    replay = replay_trace(trace, cache, read_mode="auto")
    assert [(r.step, r.note) for r in replay.rows][:2] == [(1, "outline"), (2, "")]  # lines 10-19 are new to it
    console = Console(width=400, record=True)
    print_report(replay, console)
    out = console.export_text()
    assert (
        "Read mode: auto. A whole read of a file over 200 lines or 48 KiB gives its outline; an edit of lines an "
        "outline did not show is refused and applied directly, so the figure leaves out the reads an agent would "
        "add; `leanread demo` replays it with every file read in full.\n"
    ) in out
    assert "outline: a whole read of a big file, answered with its map (one row per definition)\n" in out
