"""``leanread bench load``: concurrent MCP sessions over HTTP against ``leanread serve --http``,
loopback only, bounded in calls and in time (it stops by itself).

Each session makes ``calls`` mixed calls (windows, whole reads and outlines, grep, ls, an edit of
its own scratch file after reading it, a write of a new file), spread round-robin over the
servers. Configurations: one server (SQLite ledger), then two servers sharing one Redis. Faults
(``fault``): ``kill`` kill -9s the second server half-way (calls go on on the first: the same
sessions, their dedup and grants in Redis); ``redis`` stops Redis half-way for a few seconds and
starts it again (persistence on: calls meanwhile fail with the store's one-sentence error, then
recover; every session's records are checked afterwards).
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import tempfile
import time
from collections.abc import Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from .http_serve import HttpServer, http_client, start_http_server
from .redis_local import LocalRedis

#: A tool error caused by the Redis ledger being unreachable begins with this.
REDIS_DOWN = "The Redis ledger at "


@dataclass
class Tally:
    """What the clients saw: latencies of good calls, errors by their first line."""

    latencies: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    outage_errors: int = 0
    failovers: int = 0
    calls: int = 0
    call_ids: dict[str, list[str]] = field(default_factory=dict)
    tools: dict[str, str] = field(default_factory=dict)  # "session call_id" → the tool called

    def error(self, text: str) -> None:
        key = text.splitlines()[0][:160] if text else "(empty)"
        self.errors[key] = self.errors.get(key, 0) + 1


def _tree(root: Path, sessions: int) -> list[str]:
    """Copy leanread's own source into ``root/src`` and make each session's scratch file; returns
    the relative paths of the ``.py`` files."""
    package = Path(__file__).resolve().parents[1]
    shutil.copytree(package, root / "src", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "scratch").mkdir()
    (root / "out").mkdir()
    for k in range(sessions):
        (root / "scratch" / f"s{k}.py").write_text(
            f"# session {k}\nvalue = 0\n" + "".join(f"x{i} = {i}\n" for i in range(40))
        )
    files = sorted(p for p in (root / "src").rglob("*.py") if p.read_bytes().count(b"\n") >= 200)
    return [str(p.relative_to(root)) for p in files]


def _call(k: int, i: int, files: Sequence[str], state: dict[str, int]) -> tuple[str, dict[str, Any]]:
    """Call ``i`` of session ``k``: the tool and its arguments."""
    name = files[(k * 7 + i) % len(files)]
    step = i % 10
    if step in (0, 1, 8):
        return "read", {"path": name, "offset": 1 + (i * 13) % 120, "limit": 40}
    if step == 3:
        return "read", {"path": name}
    if step == 4:
        return "grep", {"pattern": r"def \w+\(", "path": str(Path(name).parent), "max_results": 20}
    if step == 5:
        return "ls", {"path": str(Path(name).parent)}
    if step == 6:
        return "read", {"path": f"scratch/s{k}.py"}
    if step == 7:
        value = state["value"]
        return "edit", {
            "path": f"scratch/s{k}.py",
            "old_string": f"value = {value}",
            "new_string": f"value = {value + 1}",
        }
    return "write", {"path": f"out/s{k}-{i}.txt", "content": f"session {k} call {i}\n"}


async def _session(
    k: int, servers: list[HttpServer], calls: int, files: Sequence[str], tally: Tally, deadline: float
) -> None:
    """Session ``k``'s calls, round-robin over the live servers. A killed server breaks its client
    (and cancels what runs under it), so the clients are opened afresh without it and the call in
    flight is sent again to the next server."""
    state = {"value": 0, "next": 0, "resync": 0}
    name = f"load-{k}-{os.getpid()}"
    while state["next"] < calls and time.monotonic() < deadline:
        live = [s for s in servers if s.process.poll() is None]
        if not live:
            return
        try:
            async with AsyncExitStack() as stack:
                clients = [await stack.enter_async_context(http_client(s.url, name)) for s in live]
                await _calls(k, clients, calls, files, tally, deadline, state)
        except Exception:
            tally.failovers += 1
            state["resync"] = 1
            await anyio.sleep(0.05)


async def _calls(
    k: int,
    clients: list[Any],
    calls: int,
    files: Sequence[str],
    tally: Tally,
    deadline: float,
    state: dict[str, int],
) -> None:
    while state["next"] < calls and time.monotonic() < deadline:
        if state["resync"]:
            await _resync(k, clients[0], state)
            if state["resync"]:  # the ledger is still away
                await anyio.sleep(0.2)
                continue
        i = state["next"]
        tool, arguments = _call(k, i, files, state)
        start = time.perf_counter()
        result = await clients[i % len(clients)].call_tool(tool, arguments)
        tally.calls += 1
        state["next"] += 1
        text = "".join(getattr(block, "text", "") for block in result.content)
        if not result.is_error:
            tally.latencies.append(time.perf_counter() - start)
            state["value"] += tool == "edit"
            call_id = str((result.meta or {})["leanread"]["call_id"])
            tally.call_ids.setdefault(f"load-{k}-{os.getpid()}", []).append(call_id)
            tally.tools[f"load-{k}-{os.getpid()} {call_id}"] = tool
        elif text.startswith(REDIS_DOWN):
            tally.outage_errors += 1
            state["next"] -= 1  # the ledger was away: send the call again
            state["resync"] = int(tool == "edit")  # after reading the file: the edit may have been made
            await anyio.sleep(0.2)
        else:
            tally.error(f"{tool}: {text}")


async def _resync(k: int, client: Any, state: dict[str, int]) -> None:
    """After a server died mid-call: read the scratch file afresh, as an agent would, since the
    edit in flight may or may not have been made (its answer was lost); skip it if it was."""
    result = await client.call_tool("read", {"path": f"scratch/s{k}.py", "fresh": True})
    text = "".join(getattr(block, "text", "") for block in result.content)
    if result.is_error:
        return  # the ledger is still away: try again before the next call
    state["resync"] = 0
    found = re.search(r"^value = (\d+)$", text, re.M)
    if found is not None and int(found.group(1)) != state["value"]:
        state["value"] = int(found.group(1))
        state["next"] += state["next"] % 10 == 7  # the edit in flight was made


def _lost(url: str, tally: Tally) -> dict[str, int]:
    """Tool → how many of its calls a client was answered for that the Redis ledger no longer
    knows (each session's records are read back whole, so a damaged one raises)."""
    from ..ledger.redis_store import RedisLedger

    ledger = RedisLedger(url)
    lost: dict[str, int] = {}
    try:
        for name, ids in tally.call_ids.items():
            for call_id in set(ids) - set(ledger.call_states(name)):
                tool = tally.tools[f"{name} {call_id}"]
                lost[tool] = lost.get(tool, 0) + 1
    finally:
        ledger.close()
    return lost


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _peak_rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


async def _drive(
    servers: list[HttpServer],
    sessions: int,
    calls: int,
    files: Sequence[str],
    max_seconds: float,
    fault: str | None,
    redis: LocalRedis | None,
) -> tuple[Tally, float]:
    tally = Tally()
    deadline = time.monotonic() + max_seconds
    total = sessions * calls
    for server in servers:  # warm each server up (imports, tokenizer) outside the figures
        async with http_client(server.url, f"warm-{os.getpid()}") as client:
            await client.call_tool("read", {"path": files[0], "limit": 5})
    start = time.perf_counter()
    async with anyio.create_task_group() as group:
        for k in range(sessions):
            group.start_soon(_session, k, servers, calls, files, tally, deadline)
        if fault is not None:
            group.start_soon(_fault, fault, servers, redis, tally, total)
    return tally, time.perf_counter() - start


async def _fault(fault: str, servers: list[HttpServer], redis: LocalRedis | None, tally: Tally, total: int) -> None:
    while tally.calls < total // 2:
        await anyio.sleep(0.05)
    if fault == "kill":
        servers[-1].kill()
    elif fault == "redis" and redis is not None:
        redis.stop()
        await anyio.sleep(3)
        redis.start()


def run_load(
    sessions: int = 50,
    calls: int = 1000,
    servers: int = 1,
    fault: str | None = None,
    max_seconds: float = 900.0,
    redis: LocalRedis | None = None,
) -> dict[str, Any]:
    """One configuration: ``servers`` HTTP servers (1: a SQLite ledger; more: ``redis``), ``sessions``
    concurrent sessions of ``calls`` calls each, stopped after ``max_seconds``.

    Returns:
        ``{servers, sessions, calls, planned, fault, errors, outage_errors, failovers, lost_records, p50_ms, p99_ms,
        calls_per_s, cpu_ms_per_call, peak_mb}`` (peak resident memory per server, MB).
    """
    with tempfile.TemporaryDirectory(prefix="leanread-load-") as tmp:
        root = Path(tmp) / "tree"
        root.mkdir()
        files = _tree(root, sessions)
        ledger = redis.url if redis is not None else str(Path(tmp) / "ledger.sqlite3")
        started = [start_http_server(root, ledger) for _ in range(servers)]
        try:
            cpu0 = [_cpu_seconds(s.process.pid) for s in started]
            tally, wall = anyio.run(_drive, started, sessions, calls, files, max_seconds, fault, redis)
            lost = _lost(redis.url, tally) if redis is not None else {}
            live = [s for s in started if s.process.poll() is None]
            cpu = sum(_cpu_seconds(s.process.pid) - cpu0[started.index(s)] for s in live)
            peak = max((_peak_rss_mb(s.process.pid) for s in live), default=0.0)
        finally:
            for s in started:
                s.stop()
    good = sorted(tally.latencies)
    return {
        "servers": servers,
        "sessions": sessions,
        "calls": tally.calls,
        "planned": sessions * calls,
        "fault": fault,
        "errors": dict(tally.errors),
        "outage_errors": tally.outage_errors,
        "failovers": tally.failovers,
        "lost_records": lost,
        "p50_ms": statistics.median(good) * 1000 if good else 0.0,
        "p99_ms": good[int(len(good) * 0.99) - 1] * 1000 if good else 0.0,
        "calls_per_s": tally.calls / wall if wall else 0.0,
        "cpu_ms_per_call": cpu * 1000 / tally.calls if tally.calls else 0.0,
        "peak_mb": peak,
    }


def bench_load(
    sessions: int = 50, calls: int = 1000, max_seconds: float = 900.0, faults: bool = True
) -> list[dict[str, Any]]:
    """``run_load`` for one server, two servers sharing a Redis, and (``faults``) the same two with
    the second one killed half-way and with Redis stopped half-way; Redis runs persisted on loopback.

    Raises:
        LeanreadError: ``redis-server`` is missing, or a server did not start.
    """
    from .redis_local import local_redis

    rows = [run_load(sessions, calls, 1, None, max_seconds)]
    with local_redis(persist=True) as redis:
        rows.append(run_load(sessions, calls, 2, None, max_seconds, redis))
        if faults:
            rows.append(run_load(sessions, calls, 2, "kill", max_seconds, redis))
            rows.append(run_load(sessions, calls, 2, "redis", max_seconds, redis))
    return rows


def _counted(counts: dict[str, int]) -> str:
    return str(sum(counts.values())) + "".join(f" ({n} {tool})" for tool, n in sorted(counts.items()) if n)


def load_report(rows: list[dict[str, Any]], command: str) -> str:
    """A Markdown section for BENCHMARKS.md from ``bench_load`` rows."""
    what = {None: "", "kill": "; kill -9 of server 2 half-way", "redis": "; Redis stopped 3 s half-way"}
    lines = "\n".join(
        f"| {r['servers']} ({'Redis' if r['servers'] > 1 else 'SQLite'}){what[r['fault']]} | {r['calls']:,} of "
        f"{r['planned']:,} | {sum(r['errors'].values())} | {r['outage_errors']} | {r['failovers']} | "
        f"{_counted(r['lost_records'])} | {r['p50_ms']:.1f} | {r['p99_ms']:.1f} | {r['calls_per_s']:.0f} | "
        f"{r['cpu_ms_per_call']:.2f} | {r['peak_mb']:.0f} |"
        for r in rows
    )
    errors = sorted({e for r in rows for e in r["errors"]})
    listed = "".join(f"\n- {e}" for e in errors) or "\n- none"
    return f"""## Load: concurrent sessions over HTTP (`leanread serve --http`, loopback)

Command: `{command}`

{rows[0]["sessions"]} concurrent MCP sessions (official client, streamable HTTP, one process), each
making mixed calls (40-line windows, whole reads and outlines, grep, ls, a read and an edit of its
own scratch file, a write) spread round-robin over the servers. Latency of answered calls; CPU
(user + system) of the server processes per call; peak resident memory of one server.

| servers | calls | errors | Redis away | failovers | lost | p50 ms | p99 ms | calls/s | CPU ms/call | peak MB |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
{lines}

"Redis away": calls answered, while Redis was stopped, with the store's sentence (`The
Redis ledger at … did not answer (…); check that the server is running, then retry the call.`);
the client sent them again. "Failovers": a session's client to a killed server broke and its
calls went on to the other server. "Lost records": call ids a client was answered with that the
Redis ledger did not hold afterwards ("lost"). Errors:{listed}
"""
