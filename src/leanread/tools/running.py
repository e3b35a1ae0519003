"""Running one tool call for a session: a refusal or a failure becomes an error result (never a
traceback), the call's place is noted in the ledger so a compact or a rewind may name it, and
the call is kept in the transcript."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import replace

from ..errors import LeanreadError
from ..ledger.callwrites import CallWrites
from ..ledger.transcript import MODEL, call_record
from ..result import ToolResult
from .common import ToolContext

_log = logging.getLogger("leanread.session")  # the session's log, where it has always been


def run_numbered(
    ctx: ToolContext,
    name: str,
    arguments: dict[str, object],
    tool: Callable[[ToolContext, str], ToolResult],
    call_id: str | None,
    *,
    changes: bool = False,
    transcript: bool = True,
) -> ToolResult:
    """Run one tool with a call id (``call_id``, or the ledger's next); refusals and file-system
    failures become error results. What the call records, its place in the session (so a compact
    or a rewind may name it, whatever it showed) and its transcript row (unless ``transcript`` is
    off) are written together when it ends (``ledger.callwrites``); when that write fails, a tool
    that ``changes`` nothing answers with the store's error instead (its answer would be one the
    ledger does not know), and one that changed the workspace keeps its result (its own records
    were written as it went). The SQLite store holds that write until the process is idle
    (``ledger.behind``), so its failure is the answer of the session's next call."""
    try:
        call_id = call_id or ctx.ledger.new_call_id(ctx.session_id)
    except LeanreadError as exc:  # the store is away (Redis stopped): say so, record nothing
        return ToolResult(text=str(exc), is_error=True, metadata={})
    started = time.time()
    clock = time.perf_counter()
    writes = CallWrites(ctx.ledger, ctx.session_id, call_id, defer=not changes)
    result = _answer(replace(ctx, ledger=writes), name, tool, call_id)
    ms = (time.perf_counter() - clock) * 1000
    kept = call_record(name, arguments, result, call_id, started, ms) if transcript else None
    try:
        writes.finish(kept)
    except LeanreadError as exc:
        if not changes:  # a read's answer the store could not note would be lost to compact/rewind
            return ToolResult(text=str(exc), is_error=True, metadata={"call_id": call_id})
    except Exception:  # a failing store must not turn a done edit or write into an error
        pass
    return result


def _answer(ctx: ToolContext, name: str, tool: Callable[[ToolContext, str], ToolResult], call_id: str) -> ToolResult:
    """The tool's result, or an error result in one sentence for what it raised."""
    try:
        return tool(ctx, call_id)
    except LeanreadError as exc:
        return ToolResult(text=str(exc), is_error=True, metadata={"call_id": call_id})
    except OSError as exc:  # the file system failed mid-call (/proc, FUSE, a vanished mount)
        reason = exc.strerror or str(exc)
        return ToolResult(
            text=f"The file system refused the call ({reason}); nothing was changed, so try again or another file.",
            is_error=True,
            metadata={"call_id": call_id},
        )
    except Exception as exc:  # a bug of leanread's: the caller still gets one sentence, never a traceback
        _log.exception("leanread: %s call %s failed", name, call_id)
        return ToolResult(
            text=f"leanread failed on this {name} call ({type(exc).__name__}); try it again, or narrow it.",
            is_error=True,
            metadata={"call_id": call_id, "internal_error": f"{type(exc).__name__}: {exc}"},
        )


def run_unnumbered(
    ctx: ToolContext,
    name: str,
    given: dict[str, object],
    tool: Callable[[], ToolResult],
    *,
    caller: str = MODEL,
    transcript: bool = True,
) -> ToolResult:
    """Run a tool that takes no call id of the session (``context``); its call is kept in the
    transcript without one, as made by ``caller`` (``ledger.transcript.MODEL``, or ``HARNESS``
    for a command the harness ran itself)."""
    started, clock = time.time(), time.perf_counter()
    try:
        result = tool()
    except LeanreadError as exc:
        result = ToolResult(text=str(exc), is_error=True)
    if transcript:
        kept = call_record(name, given, result, "", started, (time.perf_counter() - clock) * 1000, caller)
        with contextlib.suppress(Exception):  # a failing store leaves the result as it is
            ctx.ledger.record_call(ctx.session_id, kept)
    return result
