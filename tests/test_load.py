"""``leanread bench load`` in small: concurrent HTTP sessions against one server, against two
sharing a real Redis with one of them killed half-way, and with Redis stopped half-way."""

from __future__ import annotations

import os
import shutil

import pytest

from leanread.bench.load import load_report, run_load
from leanread.bench.redis_local import local_redis


@pytest.fixture(autouse=True)
def _needs_redis() -> None:
    if shutil.which("redis-server") is None:
        if os.environ.get("CI"):
            pytest.fail("redis-server is not installed; .ci/run installs Debian's redis-server package")
        pytest.skip("redis-server is not installed (apt-get install redis-server)")


def test_one_server_answers_every_call() -> None:
    row = run_load(sessions=5, calls=40, servers=1, max_seconds=120)
    assert (row["calls"], row["errors"], row["failovers"]) == (200, {}, 0)
    assert row["p50_ms"] > 0 and row["cpu_ms_per_call"] > 0 and row["peak_mb"] > 0
    text = load_report([row], "leanread bench load --sessions 5 --calls 40")
    assert "| 1 (SQLite) | 200 of 200 | 0 | 0 | 0 | 0 |" in text


def test_a_killed_server_leaves_the_sessions_to_the_other() -> None:
    with local_redis(persist=True) as redis:
        row = run_load(sessions=5, calls=40, servers=2, fault="kill", max_seconds=120, redis=redis)
    # every call answered, none refused: the edits after the kill still had their grants on the survivor
    assert (row["calls"], row["errors"], row["lost_records"]) == (200, {}, {})
    assert row["failovers"] >= 1


def test_a_stopped_redis_gives_its_sentence_then_recovers_with_no_record_lost() -> None:
    with local_redis(persist=True) as redis:
        row = run_load(sessions=5, calls=60, servers=2, fault="redis", max_seconds=120, redis=redis)
    assert (row["calls"] - row["outage_errors"], row["errors"]) == (300, {})
    assert set(row["lost_records"]) <= {"edit", "write"}  # a done change is never turned into an error
    assert row["outage_errors"] >= 1
