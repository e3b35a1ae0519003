"""A call's end write held until the process is idle (``ledger.behind``): what this process reads
takes the held writes in (never twice, never missing one), another process sees them once made,
and a process that exits or forks makes them all the same."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

import pytest

from leanread import Session
from leanread.errors import LeanreadError
from leanread.ledger import behind, sqlite_store
from leanread.ledger.dedup import RECENT_CALLS
from leanread.ledger.sqlite_store import SQLiteLedger
from leanread.ledger.store import ViewRecord


def _reads_in(ledger: SQLiteLedger, session: str, path: Path) -> list[ViewRecord]:
    return [r for r in ledger.views_of(session, str(path)) if r.kind == "read"]


def _eventually(check: Callable[[], bool], seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.01)
    return False


def test_another_process_sees_a_read_once_its_write_is_made(root: Path, tmp_path: Path) -> None:
    (root / "a.py").write_text("x = 1\n" + "".join(f"y{i} = {i}\n" for i in range(60)))
    file = tmp_path / "ledger.sqlite3"
    session = Session([root], ledger=SQLiteLedger(file), id="s")
    assert "x = 1" in session.read("a.py").text
    other = SQLiteLedger(file)
    assert _eventually(lambda: len(_reads_in(other, "s", root / "a.py")) == 1)  # made when idle, unasked
    assert "unchanged since you read" in session.read("a.py").text


def test_reads_of_this_process_take_each_held_write_in_once_while_writes_are_made(root: Path, tmp_path: Path) -> None:
    ledger = SQLiteLedger(tmp_path / "ledger.sqlite3")
    session = Session([root], ledger=ledger, id="s")
    names = [f"f{k}.py" for k in range(4)]
    for name in names:
        (root / name).write_text(f"{name} = 1\n")
    wrong: list[str] = []
    stop = threading.Event()

    def reader(name: str) -> None:
        for done in range(1, 41):
            session.read(name, fresh=True)
            seen = _reads_in(ledger, "s", (root / name).resolve())
            if len(seen) != done or len({r.call_id for r in seen}) != done:
                wrong.append(f"{name}: {len(seen)} records after {done} reads")

    def flusher() -> None:  # makes the held writes at moments the readers cannot foresee
        while not stop.is_set():
            ledger.flush()
            time.sleep(0.0007)

    threads = [threading.Thread(target=reader, args=(name,)) for name in names]
    making = threading.Thread(target=flusher)
    making.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stop.set()
    making.join()
    assert wrong == []
    ledger.flush()
    assert [r.seq for r in ledger.session_views("s")] == list(range(1, 161))  # numbered in the file, once each


_COMPACT = """
import sys
from leanread.ledger.sqlite_store import SQLiteLedger
from leanread.tools.context import compact_sessions
print(compact_sessions(SQLiteLedger(sys.argv[1]), ["s"]).text)
"""

_EXIT = """
import sys
import pytest

from leanread import Session
from leanread.ledger import behind
from leanread.ledger.dedup import RECENT_CALLS
from leanread.ledger.sqlite_store import SQLiteLedger
session = Session([sys.argv[1]], ledger=SQLiteLedger(sys.argv[2]), id="s")
print(session.read("a.py").text.count("x = 1"))
"""


def test_a_process_that_exits_right_after_a_read_makes_its_write(root: Path, tmp_path: Path) -> None:
    (root / "a.py").write_text("x = 1\n")
    file = tmp_path / "ledger.sqlite3"
    done = subprocess.run(
        [sys.executable, "-c", _EXIT, str(root), str(file)], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout == "1\n"
    assert [r.call_id for r in _reads_in(SQLiteLedger(file), "s", (root / "a.py").resolve())] == ["r1"]


def _read_in_child(root: str, file: str) -> None:
    session = Session([root], ledger=SQLiteLedger(file), id="child")
    session.read("a.py")
    time.sleep(1.0)  # idle: the child's own writer thread makes the write
    os._exit(0)  # no exit hooks: only that thread can have made it


def test_a_forked_child_makes_its_held_writes_with_its_own_thread(root: Path, tmp_path: Path) -> None:
    (root / "a.py").write_text("x = 1\n")
    file = tmp_path / "ledger.sqlite3"
    parent = Session([root], ledger=SQLiteLedger(tmp_path / "parent.sqlite3"))
    parent.read("a.py")  # the parent's writer thread is running before the fork
    child = multiprocessing.get_context("fork").Process(target=_read_in_child, args=(str(root), str(file)))
    child.start()
    child.join(60)
    assert child.exitcode == 0
    assert [r.call_id for r in _reads_in(SQLiteLedger(file), "child", (root / "a.py").resolve())] == ["r1"]


def test_a_hide_by_another_process_before_the_write_is_made_counts_the_held_call_as_gone(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(behind, "IDLE_S", 600.0)  # held until made by hand
    monkeypatch.setattr(behind, "MAX_AGE_S", 600.0)
    (root / "a.py").write_text("".join(f"y{i} = {i}\n" for i in range(60)))
    file = tmp_path / "ledger.sqlite3"
    server = SQLiteLedger(file)
    session = Session([root], ledger=server, id="s")
    assert "y0 = 0" in session.read("a.py").text
    hook = subprocess.run(  # a compaction hook's process: it cannot see the held read
        [sys.executable, "-c", _COMPACT, str(file)], capture_output=True, text=True, timeout=120, check=True
    )
    assert hook.stdout == "compact: no tool result was still in the context window, so nothing changed.\n"
    server.flush()
    assert [r.visible for r in _reads_in(server, "s", (root / "a.py").resolve())] == [False]
    again = session.read("a.py")  # the model no longer has the lines: shown again, not a stub
    assert "y0 = 0" in again.text and "unchanged" not in again.text


def _held_by_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(behind, "IDLE_S", 600.0)
    monkeypatch.setattr(behind, "MAX_AGE_S", 600.0)


_READ = """
import sys
from leanread import Session
from leanread.ledger.sqlite_store import SQLiteLedger
print(Session([sys.argv[1]], ledger=SQLiteLedger(sys.argv[2]), id="s").read(sys.argv[3]).is_error)
"""


def test_a_held_call_keeps_its_place_before_a_later_call_another_process_wrote_first(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _held_by_hand(monkeypatch)
    (root / "a.py").write_text("".join(f"a{i} = {i}\n" for i in range(60)))
    (root / "b.py").write_text("".join(f"b{i} = {i}\n" for i in range(60)))
    file = tmp_path / "ledger.sqlite3"
    server = SQLiteLedger(file)
    session = Session([root], ledger=server, id="s")
    assert "a0 = 0" in session.read("a.py").text  # r1, held here
    other = subprocess.run(  # r2 of the same session, made at once in another process
        [sys.executable, "-c", _READ, str(root), str(file), "b.py"], capture_output=True, text=True, timeout=120
    )
    assert other.stdout == "False\n"
    server.flush()  # r1 is made after r2, in its own place before it
    assert [(r.call_id, r.seq, r.visible) for r in server.session_views("s")] == [("r1", 1, True), ("r2", 2, True)]
    assert session.rewind("r1") == 1  # what came after r1 is gone: r2, made first
    assert "b0 = 0" in session.read("b.py").text
    assert "unchanged since you read" in session.read("a.py").text


def test_two_stores_of_one_file_in_a_process_see_each_others_held_calls(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _held_by_hand(monkeypatch)
    (root / "a.py").write_text("".join(f"a{i} = {i}\n" for i in range(60)))
    file = tmp_path / "ledger.sqlite3"
    first = Session([root], ledger=SQLiteLedger(file), id="conversation")  # a harness's turn 1
    first.read("a.py")
    second = Session([root], ledger=SQLiteLedger(file), id="conversation")  # turn 2, a store of its own
    edited = second.edit("a.py", "a5 = 5", "a5 = 50")
    assert not edited.is_error, edited.text
    assert (root / "a.py").read_text().count("a5 = 50\n") == 1


def test_a_write_the_file_cannot_take_loses_only_its_call_and_says_so(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _held_by_hand(monkeypatch)
    (root / "ok.py").write_text("".join(f"h{i} = {i}\n" for i in range(60)))
    file = tmp_path / "ledger.sqlite3"
    ledger = SQLiteLedger(file)
    a = Session([root], ledger=ledger, id="A")
    b = Session([root], ledger=ledger, id="B")
    b.read("ok.py")
    a.read("ok.py", call_id="toolu_1")  # a harness's own call ids: no new_call_id
    raw = sqlite3.connect(file)  # A's transcript row is refused, as a full disk would
    raw.execute(
        "CREATE TRIGGER a_full BEFORE INSERT ON calls WHEN NEW.session = x'41' "
        "BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END"
    )
    raw.commit()
    raw.close()
    with pytest.raises(LeanreadError, match="database or disk is full"):
        ledger.flush()
    assert "unchanged since you read" in b.read("ok.py").text  # B's call, in the same batch, was kept
    assert [c.call_id for c in ledger.calls("B")] == ["r1", "r2"]
    said = a.read("ok.py", call_id="toolu_2")  # A learns its last call was not recorded
    assert said.is_error and said.text.startswith("The ledger did not record an earlier tool call of this session: ")


def test_a_file_dated_past_2262_is_recorded(root: Path, tmp_path: Path) -> None:
    (root / "future.py").write_text("".join(f"h{i} = {i}\n" for i in range(60)))
    os.utime(root / "future.py", ns=(2**63 + 10**9, 2**63 + 10**9))  # more than SQLite's integers hold
    ledger = SQLiteLedger(tmp_path / "ledger.sqlite3")
    session = Session([root], ledger=ledger, id="s")
    assert "h0 = 0" in session.read("future.py").text
    ledger.flush()
    assert not session.ls().is_error
    assert "unchanged since you read" in session.read("future.py").text


def _inherited(session: Session, root: str) -> None:
    session.read("b.py")
    session.ledger.flush()  # type: ignore[attr-defined]
    os._exit(0)


def test_a_forked_child_using_the_parents_session_does_not_write_the_parents_held_calls(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _held_by_hand(monkeypatch)
    (root / "a.py").write_text("x = 1\n" * 40)
    (root / "b.py").write_text("y = 2\n" * 40)
    ledger = SQLiteLedger(tmp_path / "ledger.sqlite3")
    session = Session([root], ledger=ledger, id="s")
    session.read("a.py")  # held in the parent when it forks
    child = multiprocessing.get_context("fork").Process(target=_inherited, args=(session, str(root)))
    child.start()
    child.join(60)
    assert child.exitcode == 0
    ledger.flush()
    assert sorted((r.call_id, Path(r.path).name) for r in ledger.session_views("s")) == [("r1", "a.py"), ("r2", "b.py")]


def _read_with_lock_held(session: Session) -> None:
    signal.alarm(20)  # a hang ends the child, and the test sees it
    session.read("a.py", fresh=True)
    session.ledger.flush()  # type: ignore[attr-defined]
    os._exit(0)


def test_a_child_forked_while_a_thread_held_the_stores_locks_does_not_hang(root: Path, tmp_path: Path) -> None:
    (root / "a.py").write_text("x = 1\n" * 40)
    ledger = SQLiteLedger(tmp_path / "ledger.sqlite3")
    session = Session([root], ledger=ledger, id="s")
    session.read("a.py")
    ledger.flush()
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:  # the writer thread mid-drain, as a fork may find it
        with ledger._draining, ledger._lock, behind._WRITER._cond:
            holding.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    holding.wait(30)
    try:
        child = multiprocessing.get_context("fork").Process(target=_read_with_lock_held, args=(session,))
        child.start()
        child.join(60)
    finally:
        release.set()
        holder.join()
    assert child.exitcode == 0


def _message(payload: dict[str, object]) -> bytes:
    return (json.dumps({"jsonrpc": "2.0", **payload}) + "\n").encode()


def test_a_server_stopped_with_sigterm_right_after_a_result_makes_its_write(root: Path, tmp_path: Path) -> None:
    (root / "a.py").write_text("x = 1\n" * 40)
    file = tmp_path / "ledger.sqlite3"
    command = [sys.executable, "-m", "leanread", "serve", "--root", str(root), "--ledger", str(file), "--session", "s"]
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    read = {"name": "read", "arguments": {"path": "a.py"}}
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as server:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(_message({"id": 0, "method": "initialize", "params": hello}))
        server.stdin.write(_message({"method": "notifications/initialized"}))
        server.stdin.write(_message({"id": 1, "method": "tools/call", "params": read}))
        server.stdin.flush()
        replies = [json.loads(server.stdout.readline()) for _ in range(2)]
        assert "x = 1" in replies[1]["result"]["content"][0]["text"]
        server.send_signal(signal.SIGTERM)  # at once: the write is still held
        assert server.wait(60) == 0
    assert [r.call_id for r in _reads_in(SQLiteLedger(file), "s", (root / "a.py").resolve())] == ["r1"]


def _drained(stream: IO[bytes], lines: list[bytes]) -> None:
    """Read ``stream``'s lines into ``lines`` to its end, so the server never waits on a full pipe."""
    lines.extend(iter(stream.readline, b""))


def test_a_server_stopped_with_sigterm_amid_calls_in_worker_threads_exits(root: Path, tmp_path: Path) -> None:
    # The SDK's worker threads (not daemons) waited for work that never came once SIGTERM ended
    # the event loop, and the interpreter waited for them at exit: the server hung.
    (root / "big.py").write_text("".join(f"line_{i} = {i}\n" for i in range(9000)))
    file = tmp_path / "ledger.sqlite3"
    command = [sys.executable, "-m", "leanread", "serve", "--root", str(root), "--ledger", str(file), "--session", "s"]
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    made = 0
    for pause in (0.05, 0.1, 0.2):
        with subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        ) as server:
            assert server.stdin is not None and server.stdout is not None
            server.stdin.write(_message({"id": 0, "method": "initialize", "params": hello}))
            server.stdin.flush()
            server.stdout.readline()
            replies: list[bytes] = []
            reader = threading.Thread(target=_drained, args=(server.stdout, replies), daemon=True)
            reader.start()
            server.stdin.write(_message({"method": "notifications/initialized"}))
            window = {"name": "read", "arguments": {"path": "big.py", "offset": 5, "limit": 3}}
            server.stdin.write(
                b"".join(_message({"id": n, "method": "tools/call", "params": window}) for n in range(1, 200))
            )
            server.stdin.flush()
            time.sleep(pause)
            server.send_signal(signal.SIGTERM)
            try:
                code = server.wait(20)
            except subprocess.TimeoutExpired:
                server.kill()
                raise AssertionError(f"still running 20 s after SIGTERM (sent {pause} s into the calls)") from None
            assert code == 0
            reader.join(10)
            answered = sum(1 for line in replies if b'"result"' in line)
            kept = SQLiteLedger(file).calls("s")  # every call answered before the end is kept
            assert len(kept) >= answered + made, (pause, answered, len(kept) - made)
            made = len(kept)


def test_a_read_that_forgets_the_files_old_results_keeps_its_own(root: Path, tmp_path: Path) -> None:
    # dedup="recent": a re-read past RECENT_CALLS calls forgets the old results within the call
    # itself (a hide); the call's own records must stay visible for the read after it
    (root / "a.py").write_text("".join(f"v{i} = {i}\n" for i in range(30)))
    (root / "b.py").write_text("x = 1\n")
    ledger = SQLiteLedger(tmp_path / "ledger.sqlite3")
    session = Session([root], ledger=ledger)
    session.read("a.py")
    for _ in range(RECENT_CALLS + 1):
        session.read("b.py", fresh=True)
    assert "v29 = 29" in session.read("a.py").text  # shown again: the model may have lost it
    ledger.flush()
    again = session.read("a.py").text
    assert "v29 = 29" not in again and "unchanged since you read" in again


def test_a_call_numbered_before_another_is_held_before_that_one_can_be_made_and_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first call has its seq and is about to be held when the second ends, is made and read:
    # the process's view of the file then stood past the first's seq, which was never read.
    ledger = SQLiteLedger(tmp_path / "ledger.sqlite3")
    first, second = ledger.new_call_id("s"), ledger.new_call_id("s")
    pausing, go = threading.Event(), threading.Event()
    made = sqlite_store.HeldCall

    def held(session_id: str, records: tuple[ViewRecord, ...], *rest: object) -> object:
        if records and records[0].call_id == first:
            pausing.set()
            go.wait(10)
        return made(session_id, records, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(sqlite_store, "HeldCall", held)

    def finish(call_id: str) -> None:
        ledger.finish_call("s", [ViewRecord(call_id, "/ws/a.py", call_id, ((1, 1),), 1, 1)], None, None)

    one = threading.Thread(target=finish, args=(first,))
    one.start()
    assert pausing.wait(10)
    two = threading.Thread(target=finish, args=(second,))
    two.start()
    two.join(0.5)
    if not two.is_alive():  # it got past the first: made and read before the first is held
        ledger.flush()
        assert [r.call_id for r in ledger.views_of("s", "/ws/a.py")] == [second]
    go.set()
    one.join(10)
    two.join(10)
    ledger.flush()
    assert [r.call_id for r in ledger.views_of("s", "/ws/a.py")] == [first, second]
