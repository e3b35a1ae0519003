"""``leanread bench faults``: kill -9 of ``leanread serve`` in the middle of a burst of edits and
writes, round after round, then check that every file holds one whole version and that the
SQLite ledger reopens cleanly.

Each round starts one ``leanread serve`` (stdio, SQLite ledger in the round's folder), reads a
few files, then sends a burst of ``write`` and ``edit`` calls at once, each turning a file into
a known next version. After a random number of answers, and a random sub-5-ms pause, the server
is killed with SIGKILL. Then each file must equal one of its versions (never a mix), the stray
temp files are counted (a kill between the temp file and its rename leaves one, the file itself
is intact), and the ledger must open, pass ``PRAGMA integrity_check`` and answer a query.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..ledger.sqlite_store import SQLiteLedger

#: Files changed per round, and versions each goes through in a burst.
FILES = 4
VERSIONS = 12
#: Lines per version: under the outline threshold (200 lines, 48 KiB), so a read shows it whole.
LINES = 60
SESSION = "faults"


@dataclass(frozen=True)
class FaultReport:
    """What ``bench_faults`` found.

    Attributes:
        rounds: server processes started and killed.
        torn: files (over all rounds) whose bytes were none of their versions.
        ledger_failures: rounds whose ledger did not open, check or answer cleanly.
        stray_temp_files: temp files left by a kill between write and rename (over all rounds).
        changes_answered: successful writes and edits answered before the kills (over all rounds).
        seconds: wall time of the whole run.
    """

    rounds: int
    torn: int
    ledger_failures: int
    stray_temp_files: int
    changes_answered: int
    seconds: float


def version(file: int, number: int) -> str:
    """The text of version ``number`` of file ``file`` (about 40 KB)."""
    return "".join(f"file {file} line {n} version {number} " + "x" * 600 + "\n" for n in range(LINES))


def _requests(rng: random.Random) -> list[dict[str, Any]]:
    """The JSON-RPC messages of one round: handshake, reads, then the burst."""
    messages: list[dict[str, Any]] = [
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench-faults", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    calls: list[tuple[str, dict[str, Any]]] = [("read", {"path": f"f{k}.txt"}) for k in range(FILES)]
    for number in range(1, VERSIONS + 1):
        for k in rng.sample(range(FILES), FILES):
            if number % 2:
                calls.append(("write", {"path": f"f{k}.txt", "content": version(k, number)}))
            else:
                old, new = f"version {number - 1} ", f"version {number} "
                calls.append(("edit", {"path": f"f{k}.txt", "old_string": old, "new_string": new, "replace_all": True}))
    for i, (name, arguments) in enumerate(calls, start=1):
        messages.append(
            {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
        )
    return messages


class _Answers:
    """Counts the server's answers on a thread, so the round can kill it after the n-th."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.count = 0
        self.changes = 0
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self._thread.start()

    def _pump(self, stream: IO[bytes]) -> None:
        for line in stream:
            answer = json.loads(line)
            with self._cond:
                if answer.get("id", 0) > 0:
                    self.count += 1
                    if answer["id"] > FILES and answer.get("result", {}).get("isError") is False:
                        self.changes += 1
                self._cond.notify_all()
        with self._cond:
            self.count = -1  # the stream ended
            self._cond.notify_all()

    def wait_for(self, n: int, timeout: float) -> None:
        with self._cond:
            self._cond.wait_for(lambda: self.count >= n or self.count < 0, timeout)

    def join(self) -> None:
        self._thread.join(5)


def _round(folder: Path, rng: random.Random) -> tuple[int, int, bool, int]:
    """One round in ``folder``: (torn files, stray temp files, ledger reopened, changes answered)."""
    root = folder / "ws"
    root.mkdir()
    for k in range(FILES):
        (root / f"f{k}.txt").write_text(version(k, 0))
    db = folder / "ledger.sqlite3"
    env = {**os.environ, "XDG_STATE_HOME": str(folder / "state")}
    args = [sys.executable, "-m", "leanread", "serve", "--root", str(root), "--ledger", str(db), "--session", SESSION]
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    answers = _Answers(proc.stdout)
    messages = _requests(rng)
    head, burst = messages[: 2 + FILES], messages[2 + FILES :]
    try:
        for part in (head, burst):  # the reads first: a write needs the file known whole
            proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in part))
            proc.stdin.flush()
            answers.wait_for(FILES, timeout=60)
        answers.wait_for(FILES + rng.randrange(len(burst)), timeout=60)
        time.sleep(rng.random() * 0.005)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        answers.join()
        proc.stdin.close()
        proc.stdout.close()
    torn = 0
    for k in range(FILES):
        data = (root / f"f{k}.txt").read_text()
        if data not in {version(k, n) for n in range(VERSIONS + 1)}:
            torn += 1
    strays = sum(1 for p in root.iterdir() if p.name.endswith(".tmp"))
    return torn, strays, _ledger_reopens(db, root), answers.changes


def _ledger_reopens(db: Path, root: Path) -> bool:
    """True when the ledger left by the killed server opens, checks clean and answers a query."""
    try:
        with SQLiteLedger(db) as ledger:
            ledger.views_of(SESSION, os.path.realpath(root / "f0.txt"))
        with sqlite3.connect(db) as conn:
            return bool(conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok")
    except Exception:
        return False


def bench_faults(rounds: int = 100, seed: int = 0) -> FaultReport:
    """Run ``rounds`` kill -9 rounds (see the module docstring); ``seed`` fixes the moments."""
    rng = random.Random(seed)
    start = time.perf_counter()
    torn = failures = strays = changes = 0
    with tempfile.TemporaryDirectory(prefix="leanread-faults-") as tmp:
        for n in range(rounds):
            folder = Path(tmp) / f"round{n}"
            folder.mkdir()
            t, s, ok, c = _round(folder, rng)
            torn, strays, changes = torn + t, strays + s, changes + c
            failures += 0 if ok else 1
    return FaultReport(rounds, torn, failures, strays, changes, time.perf_counter() - start)


def markdown_report(report: FaultReport, command: str) -> str:
    """The BENCHMARKS.md section for ``report``."""
    return "\n".join(
        [
            "## Faults: kill -9 of `leanread serve` during edits and writes",
            "",
            f"`{command}`",
            "",
            "| rounds | torn files | ledger reopen failures | stray temp files | changes answered | time |",
            "|---:|---:|---:|---:|---:|---:|",
            f"| {report.rounds} | {report.torn} | {report.ledger_failures} | {report.stray_temp_files} "
            f"| {report.changes_answered:,} | {report.seconds:.1f} s |",
        ]
    )
