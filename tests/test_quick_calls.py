"""Which calls the server runs where they arrive (on its event loop) and which in a worker thread:
a plain read of a file whose last read was a fast text window (``mcp.quick``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest
from conftest import text_of
from mcp import Client

from leanread import Session
from leanread.ledger.store import MemoryLedger
from leanread.mcp import quick
from leanread.mcp.quick import QUICK_S, QuickCalls, file_system_of, mount_points
from leanread.mcp.server import build_server
from leanread.result import ToolResult
from leanread.tools.read.quick import quick_read


@pytest.mark.parametrize(
    ("arguments", "path"),
    [
        ({"path": "a.py"}, "a.py"),
        ({"path": "a.py", "offset": "2", "mode": "full", "fresh": True}, "a.py"),
        ({"path": "a.py", "focus": ""}, "a.py"),
        ({"path": "a.py", "focus": "what is x"}, None),  # a question for the pruning backend
        ({"path": "a.py", "symbol": "x"}, None),  # the symbol index
        ({"match_id": "m1"}, None),
        ({}, None),  # goes on with the last file: the call decides which
        ({"path": ""}, None),
        ({"path": "a\x00.py"}, None),
        ({"path": 7}, None),
        ({"path": ["a.py"]}, None),
    ],
)
def test_a_plain_read_of_one_file_may_be_quick(arguments: dict[str, object], path: str | None) -> None:
    assert quick_read(arguments) == path


def _window(kind: str = "file", error: bool = False) -> ToolResult:
    return ToolResult(text="x", is_error=error, metadata={"type": kind})


def test_a_call_runs_on_the_loop_only_after_the_same_call_was_a_fast_text_window_of_a_local_file() -> None:
    """(Each ``learn`` here says where the file was found: True local, False not, None not
    checked because the call ran on the loop.)"""
    calls = QuickCalls()
    read = {"path": "a.py"}
    assert not calls.inline("read", "/ws", read)  # nothing learned yet
    calls.learn("read", "/ws", read, _window(), QUICK_S / 2, local=True)
    assert calls.inline("read", "/ws", {"path": "a.py"})
    assert not calls.inline("read", "/ws", {"path": "a.py", "mode": "outline"})  # other arguments, other cost
    assert not calls.inline("read", "/ws", {"path": "a.py", "offset": 1, "limit": 5})
    assert not calls.inline("read", "/ws", {"path": "b.py"})
    assert not calls.inline("read", "/other", read)  # another root's a.py
    assert not calls.inline("grep", "/ws", {"pattern": "x", "path": "a.py"})
    calls.learn("read", "/ws", {"path": "n.py"}, _window(), 0.0, local=False)  # on a network or FUSE mount
    assert not calls.inline("read", "/ws", {"path": "n.py"})
    cases = [(_window(), QUICK_S), (_window("pdf"), 0.0), (_window("directory"), 0.0), (_window(error=True), 0.0)]
    for after, seconds in cases:
        calls.learn("read", "/ws", read, _window(), 0.0, local=True)
        assert calls.inline("read", "/ws", read)
        calls.learn("read", "/ws", read, after, seconds, local=True)  # slow, or no text window: back to a thread
        assert not calls.inline("read", "/ws", read), (after, seconds)


_MOUNTINFO = """\
22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw
31 27 0:40 / /home/me/net rw,relatime shared:12 - nfs4 server:/export rw,vers=4.2
32 31 0:41 / /home/me/net/fast rw,relatime - tmpfs tmpfs rw
33 27 0:42 / /mnt/my\\040disk rw,relatime - fuse.sshfs me@host: rw
34 27 0:43 / /srv rw,relatime - ext4 /dev/sdb1 rw
35 34 0:44 / /srv rw,relatime - fuse.rclone remote: rw
"""


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("/home/me/app.py", "ext4"),
        ("/home/me/net/app.py", "nfs4"),
        ("/home/me/network.py", "ext4"),  # a name that starts like a mount point is not under it
        ("/home/me/net/fast/a.py", "tmpfs"),  # the nearest mount point above wins
        ("/mnt/my disk/a.py", "fuse.sshfs"),  # a space is written \040
        ("/proc/self/status", "proc"),
        ("/srv/data.txt", "fuse.rclone"),  # mounted over /srv later: the one on top
    ],
)
def test_the_file_system_of_a_path_is_its_nearest_mount_points(path: str, kind: str) -> None:
    assert file_system_of(os.fsencode(path), mount_points(_MOUNTINFO.encode())) == kind
    assert file_system_of(os.fsencode(path), []) is None


def test_a_mount_point_that_is_no_utf8_is_matched_by_its_bytes() -> None:
    table = b"27 1 8:1 / / rw - ext4 /dev/sda1 rw\n40 27 0:50 / /mnt/m\xff rw - fuse.x x rw\n"
    assert file_system_of(b"/mnt/m\xff/a.txt", mount_points(table)) == "fuse.x"
    assert file_system_of(os.fsencode("/mnt/m\udcff/a.txt"), mount_points(table)) == "fuse.x"  # as realpath gives it


def test_a_file_here_is_local_and_one_in_proc_is_not(root: Path) -> None:
    (root / "a.py").write_text("x = 1\n")
    calls = QuickCalls()
    assert calls.local("read", str(root), {"path": "a.py"})
    assert not calls.local("read", "/proc/self", {"path": "status"})
    assert not calls.local("read", str(root), {"path": "a.py", "focus": "why"})


class _Where(MemoryLedger):
    """A memory ledger that notes the thread each call id was taken in."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[str] = []

    def new_call_id(self, session_id: str) -> str:
        self.threads.append("loop" if threading.current_thread() is threading.main_thread() else "worker")
        return super().new_call_id(session_id)


@pytest.mark.anyio
async def test_the_server_runs_a_fast_reads_next_runs_on_its_loop(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(quick, "QUICK_S", 60.0)  # every read here counts as fast: the rule, not the clock
    (root / "small.py").write_text("x = 1\n")
    (root / "sub").mkdir()
    (root / "sub" / "c.py").write_text("y = 2\n")
    ledger = _Where()
    calls = [
        ("read", {"path": "small.py", "fresh": True}),
        ("read", {"path": "small.py", "fresh": True}),
        ("read", {"path": "sub"}),
        ("read", {"path": "sub"}),  # a folder is no text window: never on the loop
        ("grep", {"pattern": "x"}),
        ("read", {"path": "small.py", "offset": 1, "limit": 1}),  # other arguments: learned anew
        ("read", {"path": "small.py", "fresh": True}),
    ]
    async with Client(build_server([root], ledger=ledger)) as client:
        results = [await client.call_tool(name, arguments) for name, arguments in calls]
        (root / "small.py").unlink()
        gone = [await client.call_tool("read", {"path": "small.py", "fresh": True}) for _ in range(2)]
    assert ledger.threads == ["worker", "loop", "worker", "worker", "worker", "worker", "loop", "loop", "worker"]
    assert all(result.is_error for result in gone)
    alone = Session([root], ledger=MemoryLedger())  # the same answers as a session gives
    (root / "small.py").write_text("x = 1\n")
    assert [text_of(r) for r in results] == [alone.call(name, arguments).text for name, arguments in calls]


@pytest.mark.anyio
async def test_a_shared_server_runs_every_call_in_a_worker(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(quick, "QUICK_S", 60.0)
    (root / "small.py").write_text("x = 1\n")
    ledger = _Where()
    async with Client(build_server([root], ledger=ledger, shared=True, session_id="s")) as client:
        for _ in range(3):
            await client.call_tool("read", {"path": "small.py", "fresh": True})
    assert ledger.threads == ["worker"] * 3


def test_trust_in_a_fast_call_lasts_trust_s_and_a_run_on_the_loop_does_not_renew_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [100.0]
    monkeypatch.setattr(quick.time, "monotonic", lambda: now[0])
    calls = QuickCalls()
    read = {"path": "a.py"}
    calls.learn("read", "/ws", read, _window(), 0.0, local=True)
    now[0] += quick.TRUST_S / 2
    assert calls.inline("read", "/ws", read)
    calls.learn("read", "/ws", read, _window(), 0.0, local=None)  # ran on the loop: nothing was checked
    now[0] += quick.TRUST_S / 2
    assert not calls.inline("read", "/ws", read)  # checked again in a thread first
    calls.learn("read", "/ws", read, _window(), 0.0, local=True)
    assert calls.inline("read", "/ws", read)


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("mount") is None, reason="mounting needs root")
def test_a_mount_made_after_the_table_was_read_is_seen_at_once(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "a.py").write_text("x = 1\n")
    calls = QuickCalls()
    before = calls.local("read", str(tmp_path / "ws"), {"path": "a.py"})
    mounted = subprocess.run(["mount", "-t", "proc", "proc", str(tmp_path / "ws")], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount here: {mounted.stderr.decode(errors='replace').strip()}")
    try:
        assert not calls.local("read", str(tmp_path / "ws"), {"path": "self/status"})  # proc: no local file system
    finally:
        subprocess.run(["umount", str(tmp_path / "ws")], check=True)
    assert calls.local("read", str(tmp_path / "ws"), {"path": "a.py"}) == before
