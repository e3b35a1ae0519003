"""The inspect app over a real ledger, through Starlette's test client (the browser test drives chromium)."""

from __future__ import annotations

import json
import re
import sqlite3
import zlib
from pathlib import Path

from starlette.testclient import TestClient

from leanread import MemoryLedger, Session
from leanread.inspector.chart import MAX_POINTS, saving_chart
from leanread.inspector.server import build_app
from leanread.ledger.sqlite_store import SQLiteLedger
from leanread.ledger.store import LedgerStore
from leanread.tokens import count_tokens


def _text(html: str, element_id: str) -> str:
    """The text of the element with ``element_id`` (tags dropped)."""
    start = html.index(f'id="{element_id}"')
    body = html[html.index(">", start) + 1 :]
    return re.sub(r"<[^>]+>", "", body.split("</", 1)[0])


def _client(ledger: LedgerStore, host: str = "127.0.0.1") -> TestClient:
    return TestClient(build_app(ledger), base_url=f"http://{host}")


def test_other_hosts_are_refused(session: Session) -> None:
    assert _client(session.ledger).get("/").status_code == 200
    assert _client(session.ledger, "localhost").get("/").status_code == 200
    refused = _client(session.ledger, "attacker.example").get("/")
    assert refused.status_code == 400


def test_unknown_session_call_and_file_say_what_to_do(session: Session) -> None:
    client = _client(session.ledger)
    got = client.get("/s/nope")
    assert got.status_code == 404
    assert "No session &#39;nope&#39; in this ledger; pick one from the list of sessions." in got.text
    session.ls()
    got = client.get(f"/s/{session.id}/c/9")
    assert "has no call #9; pick one from the session&#39;s list." in got.text
    got = client.get(f"/s/{session.id}/file?path=/etc/passwd")
    assert got.status_code == 404
    assert "showed no file &#39;/etc/passwd&#39;" in got.text
    assert "No replay report was given" in client.get("/report").text


def test_the_text_shown_is_escaped_exactly(root: Path, session: Session) -> None:
    (root / "x.html").write_text("<script>alert(1)</script> & done\n")
    session.read("x.html")
    page = _client(session.ledger).get(f"/s/{session.id}/c/1").text
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; done" in page
    assert "<script>" not in page


def test_calls_are_paginated(root: Path, session: Session) -> None:
    for i in range(250):
        session.ls(call_id=f"c{i}")
    client = _client(session.ledger)
    first = client.get(f"/s/{session.id}").text
    assert first.count('href="/s/' + session.id + "/c/") == 100
    last = client.get(f"/s/{session.id}?page=3").text
    assert last.count('href="/s/' + session.id + "/c/") == 50
    assert "<span>page 3</span>" in last
    assert _text(last, "totals").startswith("250 calls · ")


def test_a_file_rebuilt_from_the_results_against_a_wrong_version_is_flagged(root: Path, session: Session) -> None:
    (root / "a.py").write_text("one\ntwo\nthree\n")
    session.read("a.py")
    client = _client(session.ledger)
    real = str((root / "a.py").resolve())
    page = client.get(f"/s/{session.id}/file", params={"path": real}).text
    assert _text(page, "divergences").startswith("None: every line rebuilt")
    assert _text(page, "disk-note").startswith("The disk has the version the model saw last.")
    (record,) = [r for r in session.ledger.session_views(session.id) if r.kind == "read"]
    session.ledger.put_version(record.content_hash, "one\nTWO\nthree")  # the ledger now disagrees with the result
    (root / "a.py").write_text("one\ntwo\nfour\n")
    page = client.get(f"/s/{session.id}/file", params={"path": real}).text
    assert _text(page, "divergences") == (
        "call #1 (r1): line 2: the model holds &#39;two&#39;, the version has &#39;TWO&#39;"
    )
    assert _text(page, "disk-note").startswith("The file changed on disk since the model last saw it.")
    assert page.count('<tr class="differs">') == 1


def test_a_forgotten_call_is_gone_and_its_lines_are_not_held(root: Path, session: Session) -> None:
    (root / "a.py").write_text("one\n")
    session.read("a.py")
    session.forget("r1")
    client = _client(session.ledger)
    assert '<td class="state-gone">gone</td>' in client.get(f"/s/{session.id}").text
    page = client.get(f"/s/{session.id}/file", params={"path": str((root / "a.py").resolve())}).text
    assert '<td class="code"><span class="gone">—</span></td><td class="code">one</td>' in page


def test_chart_samples_long_sessions_and_keeps_the_totals() -> None:
    svg = saving_chart([1] * 10_000, [4] * 10_000)
    assert 'aria-label="10,000 tokens shown against 40,000 plain full reads (75.0% saved)"' in svg
    for points in re.findall(r'points="([^"]*)"', svg):
        assert len(points.split()) == MAX_POINTS
    assert "No calls yet." in saving_chart([], [])


def _module(name: str, functions: int) -> str:
    return "".join(
        f"def {name}_{i}(value):\n    total = value * {i}  # one step of {name}\n    return total + {i}\n\n"
        for i in range(functions)
    )


#: Three files whose whole read is an outline: over the outline's line count, one over a window.
OUTLINED = {"store.py": _module("store", 90), "views.py": _module("view", 120), "cli.py": _module("command", 600)}


def _plain_tokens(root: Path, name: str) -> int:
    """Tokens of the plain full read of the whole file: a read with mode="full" by a session that has seen nothing."""
    return int(Session([root], ledger=MemoryLedger()).read(name, mode="full").metadata["tokens"])


def test_the_headline_counts_outlines_and_their_stubs_at_their_plain_reads(root: Path, store: LedgerStore) -> None:
    for name, text in OUTLINED.items():
        (root / name).write_text(text)
    session = Session([root], ledger=store, id="outlines")
    results = [session.read(name) for name in OUTLINED] + [session.read(name) for name in OUTLINED]
    assert [r.metadata["mode"] for r in results] == ["outline"] * 3 + ["stub"] * 3
    plain = [_plain_tokens(root, name) for name in OUTLINED] * 2
    shown, full = sum(r.metadata["tokens"] for r in results), sum(plain)
    saved = 1 - shown / full
    assert saved > 0.75
    client = _client(store)
    page = client.get("/s/outlines").text
    assert (
        _text(page, "totals") == f"6 calls · {shown:,} tokens shown · {full:,} for plain full reads · {saved:.1%} saved"
    )
    assert f'aria-label="{shown:,} tokens shown against {full:,} plain full reads ({saved:.1%} saved)"' in page
    rows = re.findall(r'<td class="num">([\d,]+)</td><td class="num">([\d,]+)</td>', page)
    assert rows == [(f"{r.metadata['tokens']:,}", f"{p:,}") for r, p in zip(results, plain, strict=True)]
    listed = client.get("/").text
    row = listed.split('href="/s/outlines"')[1].split("</tr>")[0]
    assert re.findall(r'<td class="num">([^<]*)</td>', row) == ["6", f"{shown:,}", f"{full:,}", f"{saved:.1%}"]
    call = client.get("/s/outlines/c/4").text
    assert f"{results[3].metadata['tokens']:,} tokens shown · {plain[0]:,} for the plain full read" in call
    assert _text(page, "saved-means").startswith("Saved: each call against the plain full answer it stands for.")


def _as_written_before(file: Path, types: set[str]) -> None:
    """Make the ledger ``file`` a version 5 one written before every result said its plain cost:
    the calls whose metadata ``type`` is in ``types`` lose ``full_tokens`` and count their own tokens."""
    raw = sqlite3.connect(file)
    rows = raw.execute("SELECT session, number, tokens, body FROM calls").fetchall()
    for session_id, number, tokens, body in rows:
        data = json.loads(zlib.decompress(body))
        if data["m"].get("type") in types:
            del data["m"]["full_tokens"]
            blob = zlib.compress(json.dumps(data, separators=(",", ":")).encode("ascii"), 1)
            raw.execute(
                "UPDATE calls SET full_tokens = ?, body = ? WHERE session = ? AND number = ?",
                (tokens, blob, session_id, number),
            )
    raw.execute("PRAGMA user_version = 5")
    raw.commit()
    raw.close()


def test_a_transcript_written_before_the_plain_costs_says_unknown(root: Path, tmp_path: Path) -> None:
    for name, text in OUTLINED.items():
        (root / name).write_text(text)
    (root / "small.py").write_text(_module("small", 5))
    file = tmp_path / "ledger.sqlite3"
    question = "Where is the total of command 7 computed?"
    with SQLiteLedger(file) as ledger:
        session = Session([root], ledger=ledger, id="old")
        results = [
            session.read("store.py"),
            session.read("store.py"),
            session.read("small.py"),
            session.grep("^def ", after=2, focus=question),
            session.ls(),
            session.read("nope.py"),
        ]
        gone_alone = Session([root], ledger=ledger, id="outlines only")
        alone = [gone_alone.read("views.py"), gone_alone.read("views.py")]
    focused = results[3].metadata
    assert "kept_matches" in focused["focus"] and focused["full_tokens"] == focused["focus"]["tokens_before"]
    _as_written_before(file, {"outline", "grep", "tree"})
    with SQLiteLedger(file) as upgraded:
        calls = upgraded.calls("old", bodies=False)
        assert [c.full_tokens for c in calls] == [None, None] + [
            r.metadata.get("full_tokens") for r in results[2:5]
        ] + [results[5].metadata.get("tokens", calls[5].tokens)]
        client = _client(upgraded)
        known = [c for c in calls if c.full_tokens is not None]
        shown, full = sum(c.tokens for c in calls), sum(c.full_tokens or 0 for c in known)
        known_shown = sum(c.tokens for c in known)
        saved = 1 - known_shown / full
        page = client.get("/s/old").text
        assert _text(page, "totals") == (
            f"6 calls · {shown:,} tokens shown · {full:,} for the plain full reads of the 4 calls of known cost, "
            f"which showed {known_shown:,} · {saved:.1%} saved · 2 calls of unknown plain cost "
            "(recorded before leanread said it)"
        )
        assert f"({saved:.1%} saved; 2 calls of unknown plain cost left out)" in page
        assert re.findall(r'<td class="num">[\d,]+</td><td class="num">([^<]*)</td>', page)[:3] == [
            "unknown",
            "unknown",
            f"{calls[2].full_tokens:,}",
        ]
        only = client.get("/s/outlines only").text
        assert _text(only, "totals") == (
            f"2 calls · {sum(r.metadata['tokens'] for r in alone):,} tokens shown · plain full reads of unknown cost "
            "(recorded before leanread said it) · saving unknown"
        )
        assert "No calls with a known plain cost." in only
        listed = client.get("/").text
        rows = [listed.split(f'href="/s/{sid}"')[1].split("</tr>")[0] for sid in ("old", "outlines%20only")]
        assert [re.findall(r'<td class="num">([^<]*)</td>', row) for row in rows] == [
            ["6", f"{shown:,}", f"{full:,} + 2 unknown", f"{saved:.1%}"],
            ["2", f"{sum(r.metadata['tokens'] for r in alone):,}", "0 + 2 unknown", "unknown"],
        ]
        assert "unknown for the plain full read" in client.get("/s/old/c/1").text


def _cells(listed: str, session_id: str) -> list[str]:
    """The number cells of the session's row in the list of sessions."""
    row = listed.split(f'href="/s/{session_id}"')[1].split("</tr>")[0]
    return re.findall(r'<td class="num">([^<]*)</td>', row)


def test_the_harness_commands_are_counted_apart_from_the_models_calls(root: Path, store: LedgerStore) -> None:
    (root / "a.py").write_text("one\ntwo\n")
    session = Session([root], ledger=store, id="h")
    reads = [session.read("a.py")]
    forgot = session.context("forget", ["r1"])
    reads.append(session.read("a.py"))
    rewound = session.context("rewind", call_id="r1")
    assert (forgot.text, rewound.text) == (
        "forget: 1 tool result is now out of the context window (r1).",
        "rewind: 1 tool result is now out of the context window (r2).",
    )
    alone = Session([root], ledger=store, id="only").context("forget", ["r9"])
    assert alone.text == (
        "forget: no tool result of those was still in the context window, so nothing changed. "
        "No result of this session has the call id 'r9'; it was ignored."
    )
    shown = sum(r.metadata["tokens"] for r in reads)
    full = sum(r.metadata["full_tokens"] for r in reads)
    unseen = count_tokens(forgot.text) + count_tokens(rewound.text)
    client = _client(store)
    page = client.get("/s/h").text
    assert _text(page, "totals") == (
        f"2 calls · {shown:,} tokens shown · {full:,} for plain full reads · 0.0% saved · "
        f"and 2 harness commands ({unseen:,} tokens the model was not shown)"
    )
    assert f'aria-label="{shown:,} tokens shown against {full:,} plain full reads (0.0% saved)"' in page
    assert re.findall(r"<td>(\w+[^<]*)</td><td class=\"code\">", page) == [
        "read", "context (by the harness)", "read", "context (by the harness)",
    ]  # fmt: skip
    assert _text(client.get("/s/h/c/2").text, "facts").startswith(
        f"run by the harness, not the model · {count_tokens(forgot.text):,} tokens the model was not shown · "
    )
    assert _text(client.get("/s/only").text, "totals") == (
        f"0 calls · 0 tokens shown · and 1 harness command ({count_tokens(alone.text):,} tokens the model "
        "was not shown)"
    )
    listed = client.get("/").text
    assert _cells(listed, "h") == ["2 and 2 harness", f"{shown:,}", f"{full:,}", "0.0%"]
    assert _cells(listed, "only") == ["0 and 1 harness", "0", "0", "unknown"]


def test_a_ledger_written_before_callers_is_shown_as_before(root: Path, tmp_path: Path) -> None:
    (root / "a.py").write_text("one\ntwo\n")
    file = tmp_path / "ledger.sqlite3"
    with SQLiteLedger(file) as ledger:
        session = Session([root], ledger=ledger, id="old")
        read = session.read("a.py")
        forgot = session.context("forget", ["r1"])
    raw = sqlite3.connect(file)  # a version 6 file: no caller, every call counted as the model's
    raw.execute("ALTER TABLE calls DROP COLUMN caller")
    raw.execute("PRAGMA user_version = 6")
    raw.commit()
    raw.close()
    shown = read.metadata["tokens"] + count_tokens(forgot.text)
    full = read.metadata["full_tokens"] + count_tokens(forgot.text)
    with SQLiteLedger(file) as upgraded:
        page = _client(upgraded).get("/s/old").text
    assert _text(page, "totals") == f"2 calls · {shown:,} tokens shown · {full:,} for plain full reads · 0.0% saved"
    assert "(by the harness)" not in page
