"""How fast the inspect pages are on a long session: ``leanread bench inspect``.

A session of ``calls`` real tool calls (reads of windows, re-reads, greps and edits over a
generated repository of 40 files) is recorded in a fresh SQLite ledger; then each page is
fetched ``rounds`` times through the app (Starlette's test client, no network) and the median
time is reported.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from ..ledger.sqlite_store import SQLiteLedger
from ..session import Session

FILES = 40


def _session(root: Path, ledger: SQLiteLedger, calls: int) -> Session:
    for f in range(FILES):
        (root / f"mod_{f}.py").write_text("".join(f"def fn_{f}_{i}(x):\n    return x + {i}\n\n" for i in range(200)))
    session = Session([root], ledger=ledger, id="bench-session")
    for n in range(calls):
        name = f"mod_{n % FILES}.py"
        kind = n % 10
        if kind == 8:
            session.grep(f"fn_{n % FILES}_1[0-9]\\b", name)
        elif kind == 9:
            session.edit(name, f"    return x + {n % 200}\n", f"    return x + {n % 200} + 0\n")
        else:
            session.read(name, offset=1 + (n * 37) % 500, limit=40)
    return session


def run(calls: int = 10_000, rounds: int = 5) -> dict[str, float]:
    """Median milliseconds per page, keyed by page, on a session of ``calls`` calls."""
    from starlette.testclient import TestClient

    from ..inspector.server import build_app

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "ws"
        root.mkdir()
        with SQLiteLedger(Path(folder) / "ledger.sqlite3") as ledger:
            started = time.perf_counter()
            session = _session(root, ledger, calls)
            record_ms = (time.perf_counter() - started) * 1000 / calls
            client = TestClient(build_app(ledger), base_url="http://127.0.0.1")
            real = str((root / "mod_0.py").resolve())
            pages = {
                "sessions": "/",
                "session, page 1": f"/s/{session.id}",
                "session, last page": f"/s/{session.id}?page={-(-calls // 100)}",
                "call": f"/s/{session.id}/c/{calls // 2}",
                "file": f"/s/{session.id}/file?path={real}",
            }
            out = {"call recorded (whole tool call)": record_ms}
            for name, url in pages.items():
                times = []
                for _ in range(rounds):
                    t = time.perf_counter()
                    assert client.get(url).status_code == 200
                    times.append((time.perf_counter() - t) * 1000)
                out[name] = statistics.median(times)
    return out


def main(calls: int = 10_000, rounds: int = 5) -> None:
    """Print the table of ``run``."""
    for name, ms in run(calls, rounds).items():
        print(f"{name:34} {ms:8.1f} ms")
