"""How one call's latency moves as a session grows: the p50 of a probe read at calls 10, 1,000 and
10,000 of one session, in process, for each ledger store.

The session's other calls cycle over the tree's Python files: 50-line windows at varying offsets,
whole-file reads (outlines for big files) and ``ls``; the probe is a whole read of one file with
``fresh=true`` (``mode="full"``), timed ``probes`` times at each mark (the probes count as calls).
"""

from __future__ import annotations

import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from ..ledger.redis_store import RedisLedger
from ..ledger.sqlite_store import SQLiteLedger
from ..ledger.store import LedgerStore, MemoryLedger
from ..session import Session

MARKS = (10, 1000, 10000)


def _filler(session: Session, files: list[str], k: int) -> None:
    name = files[k % len(files)]
    if k % 5 == 4:
        session.ls(str(Path(name).parent))
    elif k % 5 == 3:
        session.read(name)
    else:
        session.read(name, offset=1 + (k * 37) % 200, limit=50)


def grow(
    ledger: LedgerStore,
    root: Path,
    probe: str,
    marks: tuple[int, ...] = MARKS,
    probes: int = 15,
    session_id: str | None = None,
    rereads: bool = False,
) -> dict[int, float]:
    """Mark → p50 seconds of the ``probes`` probe reads around that call of one session on
    ``ledger`` (named ``session_id``, default a new one); ``rereads``: every other call is the
    probe too (one file read whole again and again) instead of the mixed filler."""
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*.py"))
    session = Session([root], ledger=ledger, id=session_id or f"grow-{uuid.uuid4().hex[:8]}")
    out: dict[int, float] = {}
    calls = 0
    for mark in marks:
        while calls < mark - probes // 2:
            if rereads:
                session.read(probe, fresh=True, mode="full")
            else:
                _filler(session, files, calls)
            calls += 1
        times = []
        for _ in range(probes):
            start = time.perf_counter()
            session.read(probe, fresh=True, mode="full")
            times.append(time.perf_counter() - start)
            calls += 1
        out[mark] = statistics.median(times)
    return out


def bench_growth(
    root: Path, probe: str, redis_url: str | None, marks: tuple[int, ...] = MARKS
) -> dict[str, dict[int, float]]:
    """Store name → ``grow`` marks, for memory, SQLite (a fresh file) and Redis (when a URL is given)."""
    results: dict[str, dict[int, float]] = {"memory": grow(MemoryLedger(), root, probe, marks)}
    with tempfile.TemporaryDirectory(prefix="leanread-growth-") as tmp:
        sqlite = SQLiteLedger(Path(tmp) / "ledger.sqlite3")
        results["sqlite"] = grow(sqlite, root, probe, marks)
    if redis_url is not None:
        results["redis"] = grow(RedisLedger(redis_url, prefix=f"growth-{uuid.uuid4().hex[:8]}"), root, probe, marks)
    return results


def growth_rows(results: dict[str, dict[int, float]]) -> list[dict[str, Any]]:
    """One row per store: ``{"store": name, "p50": {mark: seconds}}``."""
    return [{"store": store, "p50": marks} for store, marks in results.items()]
