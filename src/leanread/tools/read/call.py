"""One ``read`` call, from its arguments to the ``ReadRequest`` that ``pipeline.run`` serves.

The arguments name a window in one of three ways: ``match_id`` (the lines around a grep match),
a ``path`` with ``offset``/``limit``/``char_offset``/``symbol``/``mode``, or nothing (go on after
the last window of the file read last, ``ledger.resume``). The ``dedup`` setting decides first
whether the text must be shown even when the model has it (``ledger.dedup``). After the read, the
file it showed becomes the one a read without a path goes on with.
"""

from __future__ import annotations

import hashlib
from functools import partial

from ...errors import InvalidArgument, PastEnd, PathError
from ...files.names import parse_path
from ...ledger.dedup import RECENT_CALLS, call_number, old_calls
from ...ledger.resume import next_window_of, nothing_follows, window_args
from ...result import ToolResult
from ..common import ToolContext, current_bytes
from ..grep import READ_CONTEXT
from ..spec import Arguments
from ..symbols import read_symbol
from .pipeline import run
from .request import ReadRequest
from .shared import file_tokens


def read_call(ctx: ToolContext, args: Arguments, call_id: str) -> ToolResult:
    """Run one ``read`` with ``args`` (every parameter of ``SPEC``) under ``call_id``.

    Returns:
        The result; a file, an outline or a document it showed is kept as the session's last
        path with where the next read goes on (``LedgerStore.set_last_path``).

    Raises:
        LeanreadError: a refusal (see ``pipeline.run``), ``match_id`` given with a window, an
            unknown or stale match id, no path and no file read before, nothing after the last
            window; the store failing to keep the last path.
    """
    result = _path_read(ctx, args, call_id) if args["match_id"] is None else _match_read(ctx, args, call_id)
    if result.metadata.get("type") in ("file", "outline") or result.metadata.get("document"):
        ctx.ledger.set_last_path(ctx.session_id, result.metadata["path"], next_window_of(result.metadata))
    return result


def _path_read(ctx: ToolContext, args: Arguments, call_id: str) -> ToolResult:
    """A read by path, or without one after the last window of the file read last; a read past
    the end of what follows that window says so (``nothing_follows``)."""
    if args["context_before"] is not None or args["context_after"] is not None:
        raise InvalidArgument(
            "context_before and context_after go with match_id; for a range of lines pass offset and limit."
        )
    path, offset, char_offset = args["path"], args["offset"], args["char_offset"]
    mode, symbol = args["mode"], args["symbol"]
    if symbol is not None:
        read, whole = partial(_symbol_read, ctx, args, call_id), partial(file_tokens, ctx)
        if path is None:  # the whole workspace's definitions
            return read_symbol(ctx, symbol, call_id, read, whole)
        if (folder := ctx.workspace.resolve(path)).is_dir:  # that folder's
            return read_symbol(ctx, symbol, call_id, read, whole, folder.real)
    target = path or ctx.ledger.last_path(ctx.session_id)
    if target is None:
        raise InvalidArgument("path is required: no file has been read in this session yet.")
    given = parse_path(target)
    shown = args["fresh"] or _must_show(ctx, given, call_id)
    goes_on = path is None and offset is None and char_offset is None and symbol is None and mode != "outline"
    place = ctx.ledger.next_window(ctx.session_id) if goes_on else None
    start, char = window_args(place, offset, char_offset)
    request = ReadRequest(given, start, args["limit"], args["format"], shown, char, mode, symbol, args["focus"])
    try:
        return run(ctx, request, call_id)
    except PastEnd as exc:
        if place is None:
            raise
        raise nothing_follows(target, place[0] - 1, exc.total) from None


def _symbol_read(ctx: ToolContext, args: Arguments, call_id: str, found: str, first: int, count: int) -> ToolResult:
    """The read of one definition the workspace's symbol index found: ``count`` lines of ``found``
    from line ``first``; its ``full_tokens`` are the whole file's (``ReadRequest.plain_whole``)."""
    shown = args["fresh"] or _must_show(ctx, found, call_id)
    request = ReadRequest(found, first, count, args["format"], shown, focus=args["focus"], plain_whole=True)
    return run(ctx, request, call_id)


def _match_read(ctx: ToolContext, args: Arguments, call_id: str) -> ToolResult:
    """The read of the lines around a grep match (``match_id``)."""
    real, first, count, line = _match_window(ctx, args)
    request = ReadRequest(
        path=real,
        offset=first,
        limit=count,
        format=args["format"],
        fresh=args["fresh"] or _must_show(ctx, real, call_id),
        char_offset=args["char_offset"],
        focus=args["focus"],
        anchor=line,
    )
    return run(ctx, request, call_id)


def _must_show(ctx: ToolContext, path: str, call_id: str) -> bool:
    """Apply the ``dedup`` setting to a read of ``path`` (see ``ledger.dedup``): True for ``off``
    (show the text as ``fresh=true``); for ``recent``, forget the file's results that are too old
    first. A path that does not resolve is left to the read to report."""
    if ctx.limits.dedup != "recent":
        return ctx.limits.dedup == "off"
    now = call_number(call_id)
    if now is None or now < RECENT_CALLS:  # no result can be old yet: skip the lookups
        return False
    real = ctx.workspace.locate(path)
    if real is None:
        return False
    old = old_calls(call_id, (r.call_id for r in ctx.ledger.views_of(ctx.session_id, real) if r.visible))
    if old:
        ctx.ledger.forget(ctx.session_id, old)
    return False


def _require_unchanged_since_grep(ctx: ToolContext, real: str, match_id: str) -> None:
    """Refuse a match id whose file changed since the grep showed it: its line may have moved.

    Raises:
        InvalidArgument: the file's bytes differ from the version the last grep of it saw.
    """
    greps = [r for r in ctx.ledger.views_of(ctx.session_id, real) if r.kind == "grep"]
    if not greps:
        return
    try:
        data = current_bytes(real)
    except (OSError, PathError):
        return  # the read reports what is wrong with the file
    if data is None or hashlib.sha256(data).hexdigest() != max(greps, key=lambda r: r.seq).content_hash:
        raise InvalidArgument(
            f"The file of match {match_id} changed since the grep that found it, so its line may have moved; "
            "grep again for fresh match ids."
        )


def _match_window(ctx: ToolContext, args: Arguments) -> tuple[str, int, int, int]:
    """``(realpath, first line, line count, the match's line)`` of the region around a grep match.

    Raises:
        InvalidArgument: path, offset or limit given too, a negative count, or an id this
            session's grep results never gave.
    """
    match_id, before, after = args["match_id"], args["context_before"], args["context_after"]
    if args["path"] is not None or args["offset"] is not None or args["limit"] is not None:
        raise InvalidArgument(
            "Pass either match_id or path/offset/limit, not both; match_id alone reads the lines around the match."
        )
    for name, value in (("context_before", before), ("context_after", after)):
        if value is not None and value < 0:
            raise InvalidArgument(f"{name} must be 0 or more (got {value}); it counts lines around the match.")
    found = ctx.ledger.get_match(ctx.session_id, match_id)
    if found is None:
        raise InvalidArgument(
            f"No grep result of this session has the match id {match_id!r}; use an id shown in a grep result "
            "(such as m1), or read by path and offset."
        )
    real, line = found
    _require_unchanged_since_grep(ctx, real, match_id)
    lead = READ_CONTEXT if before is None else before
    trail = READ_CONTEXT if after is None else after
    first = max(1, line - lead)
    return real, first, line + trail - first + 1, line
