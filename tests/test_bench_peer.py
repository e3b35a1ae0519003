"""`leanread bench speed --peer`: the report's figures and the session-growth probe."""

from __future__ import annotations

from pathlib import Path

from leanread.bench.growth import grow, growth_rows
from leanread.bench.peer import peer_report
from leanread.ledger.store import MemoryLedger


def test_report_gives_each_ratio_to_the_reference() -> None:
    rows = [
        {"file": "a.py", "bytes": 100, "reference_s": 0.002, "outline_s": 0.003, "full_s": 0.004, "sqlite_s": 0.0045},
        {"file": "first read of 2 unseen copies", "bytes": 0, "reference_s": 0.002, "outline_s": None, "full_s": 0.005,
         "sqlite_s": 0.006},
    ]  # fmt: skip
    growth = growth_rows({"memory": {10: 0.001, 1000: 0.0012}})
    text = peer_report(rows, growth, "leanread bench speed --peer")
    assert "| a.py | 100 | 2.0 ms | 3.0 ms (1.50x) | 4.0 ms (2.00x) | 4.5 ms (2.25x) |" in text
    assert "| first read of 2 unseen copies | — | 2.0 ms | — (—) | 5.0 ms (2.50x) | 6.0 ms (3.00x) |" in text
    assert "| ledger | call 10 | call 1,000 |\n|---|---:|---:|\n| memory | 1.0 ms | 1.2 ms |" in text


def test_growth_probes_each_mark_of_one_session(tmp_path: Path) -> None:
    for k in range(4):
        (tmp_path / f"m{k}.py").write_text("".join(f"x{i} = {i}\n" for i in range(300)))
    ledger = MemoryLedger()
    marks = grow(ledger, tmp_path, "m0.py", marks=(10, 40), probes=3, session_id="g")
    assert sorted(marks) == [10, 40]
    assert all(0 < seconds < 5 for seconds in marks.values())
    assert ledger.new_call_id("g") == "r43"  # calls 1-9 and 13-39 fill, 10-12 and 40-42 probe


def test_rereads_fill_the_session_with_the_probe_itself(tmp_path: Path) -> None:
    for k in range(2):
        (tmp_path / f"m{k}.py").write_text("".join(f"x{i} = {i}\n" for i in range(300)))
    ledger = MemoryLedger()
    marks = grow(ledger, tmp_path, "m0.py", marks=(10, 40), probes=3, session_id="g", rereads=True)
    assert sorted(marks) == [10, 40]
    assert ledger.new_call_id("g") == "r43"
    views = ledger.views_of("g", str((tmp_path / "m0.py").resolve()))
    assert len(views) == 42 and not ledger.views_of("g", str((tmp_path / "m1.py").resolve()))
