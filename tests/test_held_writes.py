"""A call's end write held until the process is idle (``ledger.behind``): what this process reads
takes the held writes in (never twice, never missing one), another process sees them once made,
and a process that exits or forks makes them all the same."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from leanread import Session
from leanread.ledger import behind
from leanread.ledger.sqlite_store import SQLiteLedger
from leanread.ledger.store import ViewRecord
from leanread.tools.context import compact_sessions


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


_EXIT = """
import sys
import pytest

from leanread import Session
from leanread.ledger import behind
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
    hook = SQLiteLedger(file)  # a compaction hook's process: it cannot see the held read
    assert compact_sessions(hook, ["s"]).text == (
        "compact: no tool result was still in the context window, so nothing changed."
    )
    server.flush()
    assert [r.visible for r in _reads_in(server, "s", (root / "a.py").resolve())] == [False]
    again = session.read("a.py")  # the model no longer has the lines: shown again, not a stub
    assert "y0 = 0" in again.text and "unchanged" not in again.text
