"""``leanread bench speed --peer``: leanread's ``read`` against the reference MCP filesystem server
(npm ``@modelcontextprotocol/server-filesystem``, ``read_text_file``), side by side in one run,
both over MCP stdio with the official Python client, leanread both with the memory ledger and with
a SQLite ledger (what ``leanread serve`` uses by default); and the p50 of one call as a session
grows (calls 10, 1,000 and 10,000), for the memory, SQLite and Redis ledgers.

The reference server is installed with ``npm install --prefix`` into the cache
(``~/.cache/leanread/reference-mcp``) on first use.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio

from ..errors import LeanreadError
from .sources import default_cache

#: The reference server's npm package and the version measured.
REFERENCE = "@modelcontextprotocol/server-filesystem@2026.8.31"


def reference_server(cache: Path | None = None) -> Path:
    """The reference server's entry script, installed into ``cache/reference-mcp`` if absent.

    Raises:
        LeanreadError: npm is missing or the install failed.
    """
    prefix = (cache or default_cache()) / "reference-mcp"
    script = prefix / "node_modules" / "@modelcontextprotocol" / "server-filesystem" / "dist" / "index.js"
    if script.is_file():
        return script
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        raise LeanreadError("node and npm are needed for the reference server; install them (apt-get install npm).")
    prefix.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([npm, "install", "--prefix", str(prefix), REFERENCE], capture_output=True, text=True)
    if done.returncode != 0 or not script.is_file():
        raise LeanreadError(f"npm install {REFERENCE} failed: {done.stderr.strip()[-300:]}")
    return script


def peer_files() -> list[Path]:
    """The files measured: leanread's ``tools/read/pipeline.py`` (6 KB) and ``code/outline.py`` (37 KB),
    the stdlib's ``pathlib.py`` (48 KB, in place of issue 18's 40 KB ``tools/read.py``, now a
    package of small modules) and ``argparse.py`` (100 KB)."""
    package = Path(__file__).resolve().parents[1]
    return [
        package / "tools" / "read" / "pipeline.py",
        package / "code" / "outline.py",
        Path(pathlib.__file__),
        Path(argparse.__file__),
    ]


#: Calls each server answers before timing starts (imports, caches and the ledger's first writes).
WARM_UP = 20


async def _interleaved(calls: dict[str, Callable[[], Awaitable[object]]], runs: int) -> dict[str, float]:
    """The median seconds of each call in ``calls``, timed in turn (one of each, ``runs`` times)
    after ``WARM_UP`` untimed calls of each: the machine's drift during the run falls on all of
    them alike, which timing one server's block of calls after the other's does not. Each run
    takes the calls in another order (shuffled, seed 0): in a fixed order a call that follows one
    to the same server finds that process awake, and every other call wakes an idle one."""
    for call in calls.values():
        for _ in range(WARM_UP):
            await call()
    times: dict[str, list[float]] = {name: [] for name in calls}
    order = list(calls)
    shuffle = random.Random(0).shuffle
    for _ in range(runs):
        shuffle(order)
        for name in order:
            call = calls[name]
            start = time.perf_counter()
            await call()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(taken) for name, taken in times.items()}


async def _side_by_side(
    root: Path, names: list[str], copies: list[str], runs: int, script: Path
) -> list[dict[str, Any]]:
    from mcp import Client, StdioServerParameters

    def lean(ledger: str) -> StdioServerParameters:
        args = ["-m", "leanread", "serve", "--root", str(root), "--ledger", ledger]
        return StdioServerParameters(command=sys.executable, args=args, env=dict(os.environ))

    ref = StdioServerParameters(command="node", args=[str(script), str(root)], env=dict(os.environ))
    with tempfile.TemporaryDirectory(prefix="leanread-peer-ledger-") as folder:
        sqlite = lean(str(Path(folder) / "ledger.sqlite3"))
        async with (
            Client(lean("memory")) as oc,
            Client(lean("memory")) as lc,
            Client(sqlite) as sc,
            Client(ref) as rc,
        ):
            return await _rows(oc, lc, sc, rc, root, names, copies, runs)


async def _rows(
    oc: Any, lc: Any, sc: Any, rc: Any, root: Path, names: list[str], copies: list[str], runs: int
) -> list[dict[str, Any]]:
    """The rows of ``_side_by_side``: leanread's default mode (``oc``) and ``mode="full"`` (``lc``)
    with the memory ledger, ``mode="full"`` with a SQLite one (``sc``), the reference server
    (``rc``). Each column has a server process of its own, called once a run as the reference
    is: a server that answered two columns would be awake for one call in three and keep both
    columns' reads in one session."""
    rows: list[dict[str, Any]] = []
    for name in names:
        size = (root / name).stat().st_size

        async def reference(name: str = name) -> object:
            return await rc.call_tool("read_text_file", {"path": str(root / name)})

        async def outline(name: str = name) -> object:
            return await oc.call_tool("read", {"path": name, "fresh": True})

        async def full(name: str = name) -> object:
            return await lc.call_tool("read", {"path": name, "fresh": True, "mode": "full"})

        async def full_sqlite(name: str = name) -> object:
            return await sc.call_tool("read", {"path": name, "fresh": True, "mode": "full"})

        p50 = await _interleaved(
            {"reference_s": reference, "outline_s": outline, "full_s": full, "sqlite_s": full_sqlite}, runs
        )
        rows.append({"file": name, "bytes": size, **p50})
    first_lean: list[float] = []
    first_sqlite: list[float] = []
    first_ref: list[float] = []
    for copy in copies:  # each copy is a file this session has not seen
        start = time.perf_counter()
        await rc.call_tool("read_text_file", {"path": str(root / copy)})
        first_ref.append(time.perf_counter() - start)
        start = time.perf_counter()
        await lc.call_tool("read", {"path": copy, "mode": "full"})
        first_lean.append(time.perf_counter() - start)
        start = time.perf_counter()
        await sc.call_tool("read", {"path": copy, "mode": "full"})
        first_sqlite.append(time.perf_counter() - start)
    rows.append(
        {
            "file": f"first read of {len(copies)} unseen copies",
            "bytes": 0,
            "reference_s": statistics.median(first_ref),
            "outline_s": None,
            "full_s": statistics.median(first_lean),
            "sqlite_s": statistics.median(first_sqlite),
        }
    )
    return rows


def bench_peer(runs: int = 30, copies: int = 30, cache: Path | None = None) -> list[dict[str, Any]]:
    """Rows ``{file, bytes, reference_s, outline_s, full_s, sqlite_s}``: p50 of ``runs`` calls each,
    interleaved (``_interleaved``), of the reference's ``read_text_file`` and of leanread's
    ``read`` (``fresh=true``; the default mode, an outline for big files, and ``mode="full"``, with
    the memory ledger; and ``mode="full"`` with a SQLite ledger, ``sqlite_s``); a last row for
    first reads of files not seen before (distinct copies of the files, one line added to each).

    Raises:
        LeanreadError: the reference server cannot be installed.
    """
    script = reference_server(cache)
    with tempfile.TemporaryDirectory(prefix="leanread-peer-") as tmp:
        root = Path(tmp)
        names = []
        made = []
        for path in peer_files():
            data = path.read_bytes()
            (root / path.name).write_bytes(data)
            names.append(path.name)
            for k in range(copies // 3 + 1):
                copy = f"copy{k}-{path.name}"
                (root / copy).write_bytes(data + f"# copy {k}\n".encode())
                made.append(copy)
        return anyio.run(_side_by_side, root, names, made[:copies], runs, script)


def _ms(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds * 1000:.1f} ms"


def _ratio(lean: float | None, base: float) -> str:
    return "—" if lean is None else f"{lean / base:.2f}x"


def peer_report(rows: list[dict[str, Any]], growth: list[dict[str, Any]], command: str) -> str:
    """A Markdown section for BENCHMARKS.md from ``bench_peer`` rows and ``growth.growth_rows``."""
    table = "\n".join(
        f"| {r['file']} | {r['bytes'] or '—'} | {_ms(r['reference_s'])} | {_ms(r['outline_s'])} "
        f"({_ratio(r['outline_s'], r['reference_s'])}) | {_ms(r['full_s'])} ({_ratio(r['full_s'], r['reference_s'])}) "
        f"| {_ms(r['sqlite_s'])} ({_ratio(r['sqlite_s'], r['reference_s'])}) |"
        for r in rows
    )
    marks = sorted({m for g in growth for m in g["p50"]})
    head = " | ".join(f"call {m:,}" for m in marks)
    grown = "\n".join(f"| {g['store']} | " + " | ".join(_ms(g["p50"].get(m)) for m in marks) + " |" for g in growth)
    return f"""## Speed against the reference MCP filesystem server

Command: `{command}`

Both servers over MCP stdio, the official Python client, side by side in one run: after {WARM_UP}
untimed calls each, one call of each in turn per run (`--runs`), in a shuffled order; p50 of each.
Reference: `{REFERENCE}` (`read_text_file`); leanread: `read` with `fresh=true`, with the memory
ledger and (last column) a SQLite ledger, what `leanread serve` uses by default; each column is a
server process of its own.

| file | bytes | reference | leanread (default mode) | leanread `mode="full"` | `mode="full"`, SQLite ledger |
|---|---:|---:|---:|---:|---:|
{table}

Per-call latency as one session grows (in process; the probe is a `fresh=true` full read of
`tools/read/pipeline.py` amid windows, whole reads and `ls` over leanread's source):

| ledger | {head} |
|---|{"---:|" * len(marks)}
{grown}
"""
