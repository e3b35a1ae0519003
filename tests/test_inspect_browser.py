"""`leanread inspect` end to end: the real command, a real ledger, Debian's chromium driven by Playwright.

Skipped with the reason when chromium or playwright is missing, except under ``CI=true``, where
that is a failure. Set ``LEANREAD_SCREENSHOTS=docs`` to write the README's screenshots.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from leanread import Session
from leanread.ledger.sqlite_store import SQLiteLedger

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _need(what: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} is missing under CI; .ci/run installs it (apt chromium, pip leanread[dev]).")
    pytest.skip(f"{what} is missing: apt-get install chromium and pip install playwright to run the browser tests.")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _need("the playwright package")
    if not os.path.exists(CHROMIUM):
        _need("chromium")
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


@pytest.fixture
def site(tmp_path: Path, root: Path) -> Iterator[str]:
    """A ledger with one session of real calls, served by `leanread inspect`; yields its URL."""
    (root / "app.py").write_text("".join(f"value_{i} = {i}\n" for i in range(1, 81)))
    ledger_file = tmp_path / "ledger.sqlite3"
    with SQLiteLedger(ledger_file) as ledger:
        session = Session([root], ledger=ledger, id="demo-session")
        session.read("app.py", limit=30)
        session.read("app.py")
        session.grep("value_7")
        session.edit("app.py", "value_3 = 3\n", "value_3 = 33\n")
        session.read("app.py", offset=1, limit=10)
        session.read("missing.py")
    proc = subprocess.Popen(
        [sys.executable, "-m", "leanread", "inspect", "--ledger", str(ledger_file), "--report",
         str(Path(__file__).parent.parent / "bench-results" / "replay" / "results.json")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ},
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("leanread inspect: open http://127.0.0.1:"), (line, proc.stderr and proc.stderr.read())
        yield line.split("open ", 1)[1].split(" ", 1)[0]
    finally:
        proc.terminate()
        proc.communicate(timeout=10)


def _shot(page: Any, name: str) -> None:
    folder = os.environ.get("LEANREAD_SCREENSHOTS")
    if folder:
        page.screenshot(path=str(Path(folder) / f"inspect-{name}.png"), full_page=False)


def test_open_a_session_click_a_call_see_its_text_and_the_chart(browser: Any, site: str) -> None:
    page = browser.new_page(viewport={"width": 1100, "height": 760})
    page.goto(site)
    rows = page.locator("#sessions tr")
    assert rows.count() == 2
    assert rows.nth(1).locator("td").nth(2).inner_text() == "6"
    _shot(page, "sessions")
    page.click("text=demo-session")
    assert page.locator("h1").inner_text() == "Session demo-session"
    chart = page.locator("svg.chart")
    assert chart.is_visible()
    assert chart.locator("polyline.shown").count() == 1
    assert chart.locator("polyline.full").count() == 1
    assert "% saved)" in (chart.get_attribute("aria-label") or "")
    assert page.locator("#calls tr").count() == 7
    assert page.locator("#calls tr").nth(2).locator("td").nth(6).inner_text() == "in context"
    _shot(page, "session")
    page.click('#calls a[href$="/c/2"]')
    assert page.locator("h1").inner_text() == "Call #2: read (r2)"
    shown = page.locator("#shown").inner_text()
    assert shown.startswith("<path>app.py</path>\n<type>file</type>\n<content>\n… lines 1-30 unchanged since you read")
    assert "value_80 = 80" in shown
    assert page.locator("#grants tr").nth(1).locator("td").nth(2).inner_text() == "31-80"
    _shot(page, "call")
    page.click("#grants a")
    assert page.locator("h1").inner_text().endswith("app.py")
    assert page.locator("#divergences").inner_text().startswith("None:")
    assert page.locator("#side-by-side tr.differs").count() == 0
    assert page.locator("#side-by-side tr").nth(3).locator("td").nth(1).inner_text() == "value_3 = 33"
    _shot(page, "file")
    page.goto(site + "report")
    assert page.locator("h1").inner_text() == "Replay report"
    assert page.locator("svg.chart polyline").count() == 2
    assert page.locator("#traces tr").count() == 33
    _shot(page, "report")
    page.close()
