"""forget / compact / rewind: a result that left the context window never earns a stub or a diff."""

from __future__ import annotations

from pathlib import Path

import pytest

from leanread import MemoryLedger, Session
from leanread.ledger.sqlite_store import SQLiteLedger


@pytest.fixture(params=["memory", "sqlite"])
def session(request: pytest.FixtureRequest, root: Path, tmp_path: Path) -> Session:
    ledger = MemoryLedger() if request.param == "memory" else SQLiteLedger(tmp_path / "ledger.sqlite3")
    (root / "a.py").write_text("".join(f"alpha_{i} = {i}\n" for i in range(1, 41)))
    (root / "b.py").write_text("".join(f"beta_{i} = {i}\n" for i in range(1, 41)))
    return Session([root], ledger=ledger)


def test_read_rewind_past_it_read_again_is_full(session: Session) -> None:
    session.read("b.py", limit=1)  # r1
    session.read("a.py")  # r2
    assert session.read("a.py").metadata["mode"] == "stub"  # r3
    assert session.rewind("r1") == 2  # r2 and the stub r3 are gone
    again = session.read("a.py")
    assert again.metadata["mode"] == "full"
    assert again.text.count("alpha_") == 40


def test_compact_hides_everything_up_to_the_call(session: Session) -> None:
    session.read("a.py")  # r1
    session.read("b.py")  # r2
    session.read("a.py", offset=1, limit=5)  # r3 (stub)
    assert session.compact("r2") == 2
    assert session.read("a.py").metadata["mode"] == "full"
    assert session.read("b.py").metadata["mode"] == "full"


def test_rewind_and_compact_take_calls_that_showed_no_file(session: Session) -> None:
    listing = session.ls(".")  # r1: a listing, no file view
    session.read("a.py")  # r2
    assert session.rewind(listing.metadata["call_id"]) == 1
    assert session.read("a.py").metadata["mode"] == "full"  # r3
    miss = session.grep("no_such_name")  # r4: no match
    refused = session.read("missing.py")  # r5: an error result
    assert miss.metadata["call_id"] == "r4" and refused.is_error and refused.metadata["call_id"] == "r5"
    assert session.compact(refused.metadata["call_id"]) == 1  # r3's view
    assert session.read("a.py").metadata["mode"] == "full"  # r6
    assert session.rewind(miss.metadata["call_id"]) == 1  # r6's view, made after r4
    assert session.read("a.py").metadata["mode"] == "full"


def test_unknown_call_id_is_a_clear_error(session: Session) -> None:
    session.read("a.py")
    result = session.context("rewind", call_id="r99")
    assert result.is_error
    assert result.text == "This session has no tool result with call id 'r99'; pass a call_id from a result's metadata."


def test_context_tool_actions(session: Session) -> None:
    session.read("a.py")
    forgot = session.context("forget", call_ids=["r1"])
    assert forgot.text == "forget: 1 tool result is now out of the context window (r1)."
    assert session.context("forget").text == (
        "forget needs call_ids: the ids of the results that left the context window."
    )
    assert session.context("shrink", call_id="r1").text == (
        "action must be one of forget, compact, rewind (got 'shrink')."
    )


def test_forget_takes_a_single_id_as_one_id(session: Session) -> None:
    session.read("a.py")  # r1
    assert session.forget("r1") == 1


def test_resumed_session_keeps_its_dedup_across_a_restart(root: Path, tmp_path: Path) -> None:
    (root / "a.py").write_text("".join(f"alpha_{i} = {i}\n" for i in range(1, 41)))
    path = tmp_path / "ledger.sqlite3"
    with SQLiteLedger(path) as ledger:
        Session([root], id="conv-1", ledger=ledger).read("a.py")
    with SQLiteLedger(path) as ledger:
        resumed = Session([root], id="conv-1", ledger=ledger)
        assert resumed.read("a.py").metadata["mode"] == "stub"
        assert resumed.last_path == "a.py"
        assert Session([root], id="conv-2", ledger=ledger).read("a.py").metadata["mode"] == "full"


def test_context_names_the_results_gone_and_the_ids_it_does_not_know(session: Session, root: Path) -> None:
    (root / "big.py").write_text("".join(f"def f{i}():\n    return {i}\n\n" for i in range(300)))
    assert session.read("big.py", mode="outline").metadata["call_id"] == "r1"  # one outline: several ledger rows
    session.read("a.py")  # r2
    forgot = session.context("forget", call_ids=["r1", "zzz"])
    assert forgot.text == (
        "forget: 1 tool result is now out of the context window (r1). "
        "No result of this session has the call id 'zzz'; it was ignored."
    )
    assert forgot.metadata["results"] == ["r1"] and forgot.metadata["unknown"] == ["zzz"]
    assert session.context("forget", call_ids=["r1"]).text == (
        "forget: no tool result of those was still in the context window, so nothing changed."
    )
    assert session.context("forget", call_ids=["x1", "x2"]).text == (
        "forget: no tool result of those was still in the context window, so nothing changed. "
        "No result of this session has the call ids 'x1', 'x2'; they were ignored."
    )
    session.read("b.py")  # r3: context calls take no call id
    assert session.context("rewind", call_id="r1").text == (
        "rewind: 2 tool results are now out of the context window (r2, r3)."
    )


def test_a_long_run_of_results_gone_is_named_first_to_last(session: Session, root: Path) -> None:
    for i in range(12):
        (root / f"f{i}.py").write_text(f"value = {i}\n")
        session.read(f"f{i}.py")
    assert session.context("compact", call_id="r12").text == (
        "compact: 12 tool results are now out of the context window (r1 … r12)."
    )
