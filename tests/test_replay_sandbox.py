"""Shell commands of a trace run confined to the scratch copy: they change it, and nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from leanread.bench.replay import sandbox

pytestmark = pytest.mark.skipif(not sandbox.available(), reason="unshare cannot make namespaces here")


def test_a_mutating_command_changes_the_scratch_copy_only(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "mod.py").write_text("a + b\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("untouched\n")
    run = sandbox.run_confined("cd /testbed && sed -i 's/a + b/b + a/' mod.py", scratch, ("/testbed",))
    assert run.ok, run.error
    assert (scratch / "mod.py").read_text() == "b + a\n"
    escape = sandbox.run_confined(f"echo changed > {outside}", scratch)
    assert not escape.ok and "Read-only file system" in escape.error
    assert outside.read_text() == "untouched\n"


def test_no_network_no_environment_and_a_time_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEANREAD_SECRET", "s3cret")
    run = sandbox.run_confined('test -z "$LEANREAD_SECRET" && python3 -c "print(1)"', tmp_path)
    assert run.ok, run.error
    net = sandbox.run_confined(
        "python3 -c \"import socket; socket.create_connection(('1.1.1.1', 53), timeout=2)\"", tmp_path
    )
    assert not net.ok
    slow = sandbox.run_confined("sleep 30", tmp_path, timeout=1)
    assert slow.status == 124


def test_git_snapshot_lets_git_checkout_restore_a_file(tmp_path: Path) -> None:
    (tmp_path / "mod.py").write_text("original\n")
    assert sandbox.git_snapshot(tmp_path)
    (tmp_path / "mod.py").write_text("changed\n")
    run = sandbox.run_confined("git checkout mod.py", tmp_path)
    assert run.ok, run.error
    assert (tmp_path / "mod.py").read_text() == "original\n"


def test_rewrite_replaces_the_agents_root_longest_first() -> None:
    cmd = "cd /workspace/demo__1.0 && cat /workspace/demo__1.0/a.py /workspace/other.py"
    assert sandbox.rewrite(cmd, ("/workspace/demo__1.0",), Path("/s")) == "cd /s && cat /s/a.py /workspace/other.py"
