"""One tool call, one write at its end: what a call records (its view records, the last path, its
place in the session, its transcript row) reaches the SQLite ledger in one transaction, so a
call is in the file whole or not at all (``ledger.callwrites``)."""

from __future__ import annotations

import sqlite3
import uuid
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leanread import Session
from leanread.errors import LeanreadError
from leanread.ledger.callwrites import CallWrites
from leanread.ledger.sqlite_store import SQLiteLedger
from leanread.ledger.store import LedgerStore, MemoryLedger, ViewRecord

CALLS = {
    "read": ("read", {"path": "a.py"}),
    "read of a window": ("read", {"path": "a.py", "offset": 2, "limit": 2}),
    "re-read (a stub)": ("read", {"path": "a.py"}),
    "read of a missing file": ("read", {"path": "gone.py"}),
    "grep": ("grep", {"pattern": "def "}),
    "grep without a match": ("grep", {"pattern": "nowhere"}),
    "ls": ("ls", {}),
}


def _writes(statements: list[str]) -> list[list[str]]:
    """The write steps among traced statements: each ``BEGIN IMMEDIATE … COMMIT`` block, and each
    write made outside one (SQLite commits it on its own)."""
    steps: list[list[str]] = []
    block: list[str] | None = None
    for sql in statements:
        head = sql.split(None, 1)[0].upper()
        if sql.startswith("BEGIN IMMEDIATE"):
            block = []
        elif head == "COMMIT" and block is not None:
            steps.append(block)
            block = None
        elif head in ("INSERT", "UPDATE", "DELETE"):
            if block is None:
                steps.append([sql])
            else:
                block.append(sql)
    return steps


@pytest.fixture
def sqlite_session(root: Path, tmp_path: Path) -> Session:
    (root / "a.py").write_text("def one():\n    return 1\n\n\ndef two():\n    return 2\n")
    return Session([root], ledger=SQLiteLedger(tmp_path / "ledger.sqlite3"))


@pytest.mark.parametrize("name", list(CALLS))
def test_a_call_makes_three_writes_its_id_its_place_and_one_at_its_end(sqlite_session: Session, name: str) -> None:
    tool, arguments = CALLS[name]
    sqlite_session.read("a.py")  # the stub's earlier read; the others do not mind it
    ledger = sqlite_session.ledger
    assert isinstance(ledger, SQLiteLedger)
    traced: list[str] = []
    ledger.flush()
    ledger._conn.set_trace_callback(lambda sql: traced.append(" ".join(sql.split())))
    try:
        sqlite_session.call(tool, arguments)
        ledger.flush()  # the end write is made behind, after the result left
    finally:
        ledger._conn.set_trace_callback(None)
    steps = [step[-1].split(" (", 1)[0] for step in _writes(traced)]
    numbered = ["INSERT INTO matches"] if name == "grep" else []  # its match ids are in its text: numbered first
    # its place in the session (its records' seqs) is taken as it ends; the rest is held
    assert steps == ["INSERT INTO counters", *numbered, "INSERT INTO counters", "INSERT INTO calls"]


def test_a_call_that_showed_a_file_has_its_place_in_its_own_record(sqlite_session: Session) -> None:
    sqlite_session.read("a.py")
    sqlite_session.ls()
    assert sqlite_session.read("gone.py").is_error
    kinds = [(r.call_id, r.kind, r.seq) for r in sqlite_session.ledger.session_views(sqlite_session.id)]
    assert kinds == [("r1", "read", 1), ("r2", "call", 2), ("r3", "call", 3)]
    sqlite_session.read("a.py", offset=2, limit=1, fresh=True)
    assert sqlite_session.rewind("r1") == 1
    assert sqlite_session.ledger.call_states(sqlite_session.id) == {"r1": True, "r2": False, "r3": False, "r4": False}
    sqlite_session.read("a.py", offset=2, limit=1, fresh=True)
    assert sqlite_session.rewind("r3") == 1  # a refusal's place is its mark
    assert sqlite_session.ledger.call_states(sqlite_session.id)["r5"] is False


def _fail_transcript(path: Path) -> None:
    """A real failure of the file at the transcript's insert, as a full disk gives one."""
    conn = sqlite3.connect(path)
    conn.execute(
        "CREATE TRIGGER full_disk BEFORE INSERT ON calls BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END"
    )
    conn.commit()
    conn.close()


def test_a_read_the_ledger_cannot_finish_keeps_nothing_and_the_next_call_says_so(root: Path, tmp_path: Path) -> None:
    (root / "a.py").write_text("x = 1\n")
    path = tmp_path / "ledger.sqlite3"
    ledger = SQLiteLedger(path)
    session = Session([root], ledger=ledger)
    _fail_transcript(path)
    shown = session.read("a.py")  # its end write is held, made after the result left
    assert not shown.is_error and "x = 1" in shown.text
    with pytest.raises(LeanreadError, match="database or disk is full"):
        ledger.flush()
    assert session.ledger.session_views(session.id) == []  # nothing of the failed write is kept
    assert session.ledger.last_path(session.id) is None
    said = session.ls()
    assert said.is_error
    assert said.text == (
        f"The ledger did not record an earlier tool call of this session: Cannot use the ledger file {path} "
        "(database or disk is full); make sure it is a readable and writable file on a local disk with space "
        "left, or pass another ledger path."
    )
    again = session.read("a.py")  # not a stub: the model's copy was never recorded
    assert not again.is_error and "x = 1" in again.text and "unchanged" not in again.text


def _record(call_id: str, path: str, first: int, kind: str) -> ViewRecord:
    return ViewRecord(call_id, path, "h" + path, ((first, first + 2),), 10, 1, kind=kind)


records_st = st.lists(
    st.tuples(st.sampled_from(["r1", "r2", "now"]), st.sampled_from(["/a", "/b"]), st.integers(1, 5),
              st.sampled_from(["read", "carry", "grep"])),
    max_size=8,
)  # fmt: skip


@pytest.mark.parametrize("store", ["memory", "sqlite"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(before=records_st, during=records_st)
def test_what_a_call_reads_back_is_what_the_store_holds_after_it(
    store: str, tmp_path: Path, before: list[tuple[str, str, int, str]], during: list[tuple[str, str, int, str]]
) -> None:
    ledger: LedgerStore = MemoryLedger() if store == "memory" else SQLiteLedger(tmp_path / "ledger.sqlite3")
    session = uuid.uuid4().hex
    for args in before:
        ledger.record(session, _record(*args))
    writes = CallWrites(ledger, session, "now")
    for args in during:
        writes.record(session, _record(*args))
    seen = {path: writes.views_of(session, path) for path in ("/a", "/b")}
    writes.finish(None)
    for path, views in seen.items():  # the same records in the same order; the kept ones numbered after
        held = ledger.views_of(session, path)
        assert [replace(r, seq=0) for r in views] == [replace(r, seq=0) for r in held]
        assert [r.seq for r in views] == sorted({r.seq for r in views})
    marks = [r for r in ledger.session_views(session) if r.kind == "call"]
    own = any(call_id == "now" and kind != "carry" for call_id, _, _, kind in during)
    assert [r.call_id for r in marks] == ([] if own else ["now"])


@pytest.mark.parametrize("files", [1, 3, 7])
def test_a_grep_asks_the_store_once_for_each_file_it_shows(root: Path, tmp_path: Path, files: int) -> None:
    for k in range(files):
        (root / f"m{k}.py").write_text(f"def f{k}():\n    return {k}\n")
    ledger = SQLiteLedger(tmp_path / "ledger.sqlite3")
    session = Session([root], ledger=ledger)
    traced: list[str] = []
    ledger._conn.set_trace_callback(traced.append)
    try:
        result = session.grep("def f")
        ledger.flush()
    finally:
        ledger._conn.set_trace_callback(None)
    assert result.metadata["total_files"] == files
    assert sum(sql.startswith("SELECT h.hides, r.call_id") for sql in traced) == files  # views_of's one statement


def test_calls_take_their_place_in_the_order_they_end_a_harness_call_id_too(root: Path, tmp_path: Path) -> None:
    for k in range(8):
        (root / f"m{k}.py").write_text(f"def f{k}():\n    return {k}\n")
    session = Session([root], ledger=SQLiteLedger(tmp_path / "ledger.sqlite3"))
    session.read("m0.py")  # r1
    assert session.grep("def f").metadata["total_files"] == 8  # r2: a record a file
    session.call("read", {"path": "m1.py", "fresh": True}, call_id="toolu_7")  # a harness's own id
    session.read("m2.py", fresh=True)  # r3
    made = session.ledger.session_views(session.id)
    assert [r.seq for r in made] == sorted({r.seq for r in made})  # distinct, in the order below
    assert [r.call_id for r in made] == ["r1", *["r2"] * 8, "toolu_7", "r3"]
    assert session.rewind("r2") == 2  # what came after the grep: the harness's read and r3
    assert session.ledger.call_states(session.id) == {"r1": True, "r2": True, "toolu_7": False, "r3": False}


def test_the_ledger_is_asked_of_instruction_files_only_when_some_govern_the_file(root: Path, tmp_path: Path) -> None:
    (root / "plain").mkdir()
    (root / "plain" / "a.py").write_text("x = 1\n")
    (root / "ruled").mkdir()
    (root / "ruled" / "AGENTS.md").write_text("Use tabs.\n")
    (root / "ruled" / "b.py").write_text("y = 2\n")
    ledger = SQLiteLedger(tmp_path / "ledger.sqlite3")
    session = Session([root], ledger=ledger)
    asked: list[str] = []
    ledger._conn.set_trace_callback(lambda sql: asked.append(sql) if "records_with_instructions" in sql else None)
    try:
        plain = session.read("plain/a.py")
        ruled = session.read("ruled/b.py")
        again = session.read("ruled/b.py", fresh=True)
    finally:
        ledger._conn.set_trace_callback(None)
    assert len(asked) == 2  # the two reads below AGENTS.md
    assert "Use tabs." not in plain.text
    assert "Instructions from ruled/AGENTS.md:\nUse tabs." in ruled.text
    assert "Use tabs." not in again.text  # still in view
