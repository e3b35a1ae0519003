"""Run the fuzzer: generate the tree, start ``leanread serve`` over stdio, send the calls with the
official ``mcp`` client, and check each answer (see ``check``); a dead or hung server is counted
and restarted."""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import TaskGroup, TaskStatus
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp import Client
from mcp.client._transport import TransportStreams
from mcp_types import CallToolResult

from .calls import Call, make_call
from .check import changes, explained_keys, leaked, result_problem
from .transport import ServerProcess, mark_surrogates, sdk_rejects, server_argv, spawn
from .tree import Live, Snapshot, Snapshotter, Tree, build_tree

#: The kinds of failure, in the order the summary lists them.
KINDS = ("crash", "hang", "invalid", "unexplained", "leak")


@dataclass(frozen=True)
class FuzzConfig:
    """One run.

    Attributes:
        calls: calls 1..calls are sent (ignored when ``only`` is given).
        seed: picks the tree and every call.
        only: send just these call numbers (a replay of failures).
        deadline: seconds a call may take before it counts as a hang.
        max_seconds: stop after this many seconds (None: no limit); the summary says so.
        big_bytes: size of the tree's big log file in bytes.
    """

    calls: int = 1000
    seed: int = 0
    only: tuple[int, ...] = ()
    deadline: float = 10.0
    max_seconds: float | None = None
    big_bytes: int = 3 << 20

    def indices(self) -> list[int]:
        return sorted(set(self.only)) if self.only else list(range(1, self.calls + 1))


@dataclass(frozen=True)
class Failure:
    """One failed check: its ``kind`` (one of ``KINDS``), the call and what happened."""

    kind: str
    call: Call
    detail: str


@dataclass
class Summary:
    """What a run found. Latencies are in seconds, of the calls that were answered."""

    config: FuzzConfig
    sent: int = 0
    ok: int = 0
    error_results: int = 0
    restarts: int = 0
    latencies: list[float] = field(default_factory=list)
    #: (tool, "ok" | "error") → answered calls
    outcomes: Counter[tuple[str, str]] = field(default_factory=Counter)
    failures: list[Failure] = field(default_factory=list)
    stopped_early: str = ""
    """Why the run stopped before its last call: ``--max-seconds``, ``SIGINT`` or ``SIGTERM``; empty
    when it sent them all."""
    seconds: float = 0.0

    def count(self, kind: str) -> int:
        """Calls with at least one failure of ``kind``."""
        return len({f.call.index for f in self.failures if f.kind == kind})


class _Transport:
    """The ``Transport`` the official client is given: ``transport.spawn`` as a context manager
    object, keeping the server process for the checks."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path, stderr: Path) -> None:
        self._spawn = spawn(argv, env, cwd, stderr)
        self.server: ServerProcess | None = None

    async def __aenter__(self) -> TransportStreams:
        self.server, streams = await self._spawn.__aenter__()
        return streams

    async def __aexit__(self, *exc: Any) -> bool | None:
        return await self._spawn.__aexit__(*exc)


class _Connection:
    """A server process and the official client connected to it, run in a task of their own so
    that a hung or dead pair can be cancelled as a whole; ``restart`` makes a new pair."""

    def __init__(self, tree: Tree, group: TaskGroup) -> None:
        self._tree = tree
        self._group = group
        state = tree.base / "state"
        state.mkdir(exist_ok=True)
        self._argv = server_argv(tree.root, state / "ledger.sqlite")
        self._env = {**os.environ, "XDG_STATE_HOME": str(state)}
        self._stderr = state / "server-stderr.log"
        self._scope: anyio.CancelScope | None = None
        self._done = anyio.Event()
        self._requests: MemoryObjectSendStream[Call | None] | None = None
        self._replies: MemoryObjectReceiveStream[Any] | None = None
        self._call_scope = anyio.CancelScope()
        self.server: ServerProcess | None = None

    async def start(self) -> None:
        """Start a server and connect the client; waits until the client is connected."""
        self._stderr.write_bytes(b"")
        self._done = anyio.Event()
        self.server = await self._group.start(self._serve)

    async def _serve(self, *, task_status: TaskStatus[ServerProcess]) -> None:
        requests, self._requests_out = anyio.create_memory_object_stream[Call | None](1)
        self._requests = requests
        replies_in, self._replies = anyio.create_memory_object_stream[Any](1)
        transport = _Transport(self._argv, self._env, self._tree.root, self._stderr)
        try:
            with anyio.CancelScope() as self._scope:
                async with Client(transport) as client:
                    assert transport.server is not None
                    task_status.started(transport.server)
                    async for call in self._requests_out:
                        await replies_in.send(await self._one(client, call))
        except Exception:
            pass
        finally:
            for stream in (requests, self._requests_out, replies_in, self._replies):
                stream.close()
            self._done.set()

    async def _one(self, client: Client, call: Call | None) -> Any:
        """Send one call (None: list the tools, a probe) in a scope ``call`` may cancel."""
        reply: Any = TimeoutError()
        with anyio.CancelScope() as self._call_scope:
            try:
                if call is None:
                    reply = await client.list_tools()
                else:
                    reply = await client.call_tool(mark_surrogates(call.tool), mark_surrogates(call.arguments))
            except Exception as exc:
                reply = exc
        return reply

    async def call(self, call: Call | None, deadline: float) -> Any:
        """Send ``call`` (None: a probe); its result, the exception the client raised, or
        ``TimeoutError`` when no answer came within ``deadline`` seconds (the call is cancelled)."""
        assert self._requests is not None and self._replies is not None
        try:
            await self._requests.send(call)
            with anyio.move_on_after(deadline):
                return await self._replies.receive()
            self._call_scope.cancel()
            with anyio.fail_after(5):
                await self._replies.receive()
            return TimeoutError()
        except (TimeoutError, anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            return exc

    async def responsive(self) -> bool:
        """True when the server still lists its tools within 5 s."""
        return not isinstance(await self.call(None, 5.0), BaseException)

    async def close(self) -> None:
        """Stop the client and the server (killed if it does not end by itself)."""
        if self.server is not None:
            self.server.kill()
        if self._scope is not None:
            self._scope.cancel()
        with anyio.move_on_after(10):
            await self._done.wait()

    async def restart(self) -> None:
        await self.close()
        await self.start()


#: Seconds to wait for an answer to a request the server's JSON parser cannot read.
DROPPED_WAIT = 1.0


async def _send(conn: _Connection, call: Call, deadline: float) -> tuple[CallToolResult | None, Failure | None]:
    """Send one call; the result, or the failure that stands for it (crash, hang, invalid)."""
    assert conn.server is not None
    server = conn.server
    unreadable = sdk_rejects(call.tool, call.arguments)
    reply = await conn.call(call, DROPPED_WAIT if unreadable else deadline)
    if isinstance(reply, TimeoutError):
        waited = DROPPED_WAIT if unreadable else deadline
        detail = f"no answer within {waited:g} s"
        if unreadable:
            detail += f" ({unreadable}: the request is dropped)"
        tail = server.stderr_tail()
        return None, Failure("hang", call, detail + (f"; server stderr: {tail}" if tail else ""))
    if isinstance(reply, BaseException):
        if await server.exited(1.0):
            code = server.process.returncode
            return None, Failure("crash", call, f"server exited with status {code}: {server.stderr_tail()}")
        return None, Failure("invalid", call, f"no tool result: {type(reply).__name__}: {str(reply)[:200]}")
    if await server.exited(0.0):
        code = server.process.returncode
        return reply, Failure("crash", call, f"server exited with status {code} after answering")
    return reply, None


def _check(tree: Tree, call: Call, result: CallToolResult | None) -> list[Failure]:
    if result is None:
        return []
    found: list[Failure] = []
    problem = result_problem(result)
    if problem is not None:
        found.append(Failure("invalid", call, problem))
    if leaked(tree, result):
        found.append(Failure("leak", call, "the canary of a denied or outside file is in the result"))
    return found


def _unexplained(tree: Tree, call: Call, succeeded: bool, before: Snapshot, after: Snapshot) -> list[Failure]:
    diff = changes(before, after)
    if not diff:
        return []
    allowed = explained_keys(tree, call.arguments.get("path"), before) if succeeded else set()
    return [
        Failure("unexplained", call, f"{os.fsdecode(key)!r} {what}")
        for key, what in sorted(diff.items())
        if key not in allowed
    ]


#: Called after each call with the call, its result (None when there was none) and its failures.
OnCall = Callable[[Call, CallToolResult | None, list[Failure]], None]


async def _step(
    conn: _Connection, tree: Tree, summary: Summary, call: Call
) -> tuple[list[Failure], CallToolResult | None]:
    """Send ``call``, count its answer, and give every failure it shows; a server that died or
    answers nothing any more is restarted."""
    began = time.perf_counter()
    result, failure = await _send(conn, call, summary.config.deadline)
    if result is not None:
        summary.latencies.append(time.perf_counter() - began)
        summary.ok += not result.is_error
        summary.error_results += bool(result.is_error)
        summary.outcomes[call.tool, "error" if result.is_error else "ok"] += 1
    if failure is not None and failure.kind in ("crash", "hang") and not await conn.responsive():
        if failure.kind == "hang":
            failure = Failure("hang", call, failure.detail + "; the server answers nothing any more")
        summary.restarts += 1
        await conn.restart()
    return ([failure] if failure else []) + _check(tree, call, result), result


async def _calls(conn: _Connection, tree: Tree, summary: Summary, started: float, on_call: OnCall | None) -> None:
    config = summary.config
    snapshots = Snapshotter(tree)
    before = snapshots.take()
    for index in config.indices():
        if config.max_seconds is not None and time.perf_counter() - started > config.max_seconds:
            summary.stopped_early = "--max-seconds"
        if summary.stopped_early:
            break
        call = make_call(config.seed, index, tree)
        summary.sent += 1
        found, result = await _step(conn, tree, summary, call)
        after = snapshots.take()
        succeeded = result is not None and not result.is_error and call.tool in ("edit", "write")
        found += _unexplained(tree, call, succeeded, before, after)
        before = after
        summary.failures += found
        if on_call is not None:
            on_call(call, result, found)


async def run_fuzz_async(config: FuzzConfig, on_call: OnCall | None = None, summary: Summary | None = None) -> Summary:
    """Run ``config`` (see ``run_fuzz``), counting into ``summary`` when given."""
    summary = summary if summary is not None else Summary(config)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="leanread-fuzz-") as folder:
        tree = build_tree(Path(folder), config.seed, config.big_bytes)
        live = Live(tree.root)
        live.start()
        try:
            async with anyio.create_task_group() as group:
                conn = _Connection(tree, group)
                await conn.start()
                try:
                    await _calls(conn, tree, summary, started, on_call)
                finally:
                    await conn.close()
        finally:
            live.stop()
    summary.seconds = time.perf_counter() - started
    return summary


def run_fuzz(config: FuzzConfig, on_call: OnCall | None = None) -> Summary:
    """Send the calls of ``config`` to a fresh ``leanread serve`` over stdio and check every answer.

    ``on_call`` (if given) sees each call, its result and its failures as they happen. Ctrl-C or
    SIGTERM ends the run after the call in flight; the summary then covers the calls sent.
    The tree lives in a temporary folder, removed at the end; the server's ledger and stderr too.

    Returns:
        The summary: counts, latencies and every failure with its call.

    Raises:
        OSError: the tree could not be made or the server not started.
    """
    summary = Summary(config)
    with _stopped_by_signals(summary):
        return anyio.run(run_fuzz_async, config, on_call, summary)


@contextlib.contextmanager
def _stopped_by_signals(summary: Summary) -> Iterator[None]:
    """While the run lasts, Ctrl-C or SIGTERM ends it after the call in flight (at most the
    deadline), so the summary of the calls sent so far is still printed (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(number: int, frame: object) -> None:
        summary.stopped_early = signal.Signals(number).name

    kept = {number: signal.signal(number, stop) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for number, handler in kept.items():
            signal.signal(number, handler)
