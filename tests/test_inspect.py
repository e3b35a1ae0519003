"""The inspect app over a real ledger, through Starlette's test client (the browser test drives chromium)."""

from __future__ import annotations

import re
from pathlib import Path

from starlette.testclient import TestClient

from leanread import Session
from leanread.inspector.chart import MAX_POINTS, saving_chart
from leanread.inspector.server import build_app
from leanread.ledger.store import LedgerStore


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
