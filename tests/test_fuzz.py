"""The fuzzer (``leanread bench fuzz``): its own determinism and checks, and a short run against
the real server over stdio."""

from __future__ import annotations

import hashlib
import itertools
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from mcp_types import CallToolResult, TextContent

from leanread.bench.fuzz import FuzzConfig, run_fuzz
from leanread.bench.fuzz.calls import make_call
from leanread.bench.fuzz.check import changes, explained_keys, leaked, result_problem
from leanread.bench.fuzz.report import command, markdown_report
from leanread.bench.fuzz.transport import mark_surrogates, sdk_rejects
from leanread.bench.fuzz.tree import Snapshotter, build_tree


def _calls(base: Path, seed: int, count: int = 200) -> list[str]:
    tree = build_tree(base, seed, big_bytes=1 << 16)
    return [make_call(seed, k, tree).shown(10_000).replace(str(tree.root), "<root>") for k in range(1, count + 1)]


def _tree_digest(base: Path) -> str:
    digest = hashlib.sha256()
    for folder, dirs, names in sorted(os.walk(os.fsencode(base))):
        dirs.sort()
        for name in sorted(names):
            path = os.path.join(folder, name)
            digest.update(os.path.relpath(path, os.fsencode(base)))
            if os.path.isfile(path) and not os.path.islink(path):
                digest.update(Path(os.fsdecode(path)).read_bytes())
    return digest.hexdigest()


def test_the_same_seed_gives_the_same_tree_and_calls(tmp_path: Path) -> None:
    one, two, other = _calls(tmp_path / "a", 7), _calls(tmp_path / "b", 7), _calls(tmp_path / "c", 8)
    assert one == two
    assert one != other
    assert _tree_digest(tmp_path / "a" / "ws") == _tree_digest(tmp_path / "b" / "ws")
    assert {call.split("(")[0] for call in one} >= {"read", "grep", "ls", "edit", "write", "context"}


def test_call_k_is_the_same_alone(tmp_path: Path) -> None:
    tree = build_tree(tmp_path, 3, big_bytes=1 << 16)
    calls = [make_call(3, k, tree) for k in range(1, 60)]
    assert make_call(3, 42, tree) == calls[41]


def test_edits_follow_reads_of_the_same_file(tmp_path: Path) -> None:
    tree = build_tree(tmp_path, 5, big_bytes=1 << 16)
    calls = [make_call(5, k, tree) for k in range(1, 400)]
    pairs = [
        (a, b)
        for a, b in itertools.pairwise(calls)
        if a.tool == "read" and b.tool == "edit" and a.arguments.get("path") == b.arguments["path"]
    ]
    assert len(pairs) >= 20
    assert any(b.arguments["old_string"] in tree.texts[b.arguments["path"]] for _, b in pairs)


def test_the_tree_has_every_hostile_kind(tmp_path: Path) -> None:
    tree = build_tree(tmp_path, 1, big_bytes=1 << 16)
    names = set(os.listdir(os.fsencode(tree.root / "names")))
    assert b"caf\xe9.txt" in names and b"new\nline.txt" in names and b"-n.txt" in names
    assert os.path.islink(tree.root / "links" / "loop_a") and not os.path.exists(tree.root / "links" / "dangling")
    assert os.stat(tree.root / "hard" / "app_hardlink.py").st_ino == os.stat(tree.root / "src" / "app.py").st_ino
    assert (tree.root / "special" / "fifo").is_fifo()
    assert tree.canary in (tree.root / ".env").read_text() and tree.canary in (tree.outside / "secret.txt").read_text()
    assert (tree.root / "enc" / "utf16.txt").read_bytes()[:2] == b"\xff\xfe"


def test_snapshot_changes_and_what_an_edit_explains(tmp_path: Path) -> None:
    tree = build_tree(tmp_path, 1, big_bytes=1 << 16)
    shots = Snapshotter(tree)
    before = shots.take()
    (tree.root / "src" / "app.py").write_text("changed\n")
    (tree.root / "out" / "new").mkdir()
    (tree.root / "out" / "new" / "f.txt").write_text("x")
    (tree.outside / "secret.txt").write_text("y")
    after = shots.take()
    assert changes(before, after) == {
        b"ws/src/app.py": "modified",
        b"ws/hard/app_hardlink.py": "modified",
        b"ws/out/new": "created",
        b"ws/out/new/f.txt": "created",
        b"outside/secret.txt": "modified",
    }
    assert explained_keys(tree, "links/inside.py", before) == {b"ws/src/app.py", b"ws/hard/app_hardlink.py"}
    assert explained_keys(tree, "out/new/f.txt", before) == {b"ws/out/new/f.txt", b"ws/out/new"}
    assert explained_keys(tree, "links/outside.txt", before) == set()
    assert explained_keys(tree, "../outside/secret.txt", before) == set()
    assert explained_keys(tree, "a\x00b", before) == set()


def test_result_checks(tmp_path: Path) -> None:
    tree = build_tree(tmp_path, 1, big_bytes=1 << 16)

    def result(text: str, is_error: bool = False, meta: dict[str, object] | None = None) -> CallToolResult:
        return CallToolResult(content=[TextContent(type="text", text=text)], is_error=is_error, _meta=meta)

    assert result_problem(result("File not found: x.", is_error=True)) is None
    assert result_problem(result("ok", meta={"leanread": {}})) is None
    assert result_problem(result("ok")) == "a successful result without _meta.leanread"
    assert result_problem(result("", is_error=True)) == "a result whose first block is not a non-empty text"
    assert result_problem(result("Traceback (most recent call last):\n", is_error=True)) == (
        "a result holding 'Traceback (most recent call last)': 'Traceback (most recent call last):\\n'"
    )
    assert leaked(tree, result("fine", meta={"leanread": {"x": tree.canary}}))
    assert not leaked(tree, result("fine", meta={"leanread": {}}))


def test_lone_surrogates_go_on_the_wire_as_escapes() -> None:
    assert mark_surrogates({"path": "a\ud800", "n": [1, "\udce9"]}) == {
        "path": "a\U000f0000d800\U000f0001",
        "n": [1, "\U000f0000dce9\U000f0001"],
    }
    assert sdk_rejects("read", {"path": "fine"}) is None
    problem = sdk_rejects("read", {"path": "\ud800"})
    assert problem is not None and problem.startswith("the MCP SDK cannot parse it: Invalid JSON:")


def test_a_short_run_finds_no_crash_hang_change_or_leak() -> None:
    summary = run_fuzz(FuzzConfig(calls=300, seed=1, deadline=5.0, big_bytes=1 << 20, max_seconds=25))
    counts = {kind: summary.count(kind) for kind in ("crash", "hang", "unexplained", "leak")}
    assert counts == {"crash": 0, "hang": 0, "unexplained": 0, "leak": 0}, markdown_report(summary)


def test_a_replayed_call_is_checked_like_in_the_run() -> None:
    summary = run_fuzz(FuzzConfig(seed=1, only=(4, 9), deadline=5.0, big_bytes=1 << 16))
    assert summary.sent == 2
    assert summary.ok + summary.error_results + summary.count("hang") + summary.count("crash") == 2
    assert command(summary) == "leanread bench fuzz --seed 1 --only 4 --only 9 --deadline 5"
    report = markdown_report(summary)
    assert report.startswith("## Fuzzer: hostile tool calls over MCP\n\n`leanread bench fuzz --seed 1 --only 4")


def test_sigterm_ends_a_run_after_the_call_in_flight_with_its_report() -> None:
    argv = [sys.executable, "-m", "leanread", "bench", "fuzz", "--calls", "100000", "--seed", "1", "--verbose"]
    argv += ["--deadline", "5"]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, text=True) as run:
        assert run.stdout is not None
        for _ in range(5):  # five calls answered: the run is under way
            assert run.stdout.readline()
        run.send_signal(signal.SIGTERM)
        out, _ = run.communicate(timeout=60)
    stopped = re.search(r"; stopped by SIGTERM after (\d+) calls\)", out)
    assert stopped is not None, out[-2000:]
    assert 5 <= int(stopped.group(1)) < 100_000
    assert run.returncode in (0, 1)
    assert "| calls | ok |" in out
