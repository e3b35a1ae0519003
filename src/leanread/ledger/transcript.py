"""The transcript: every tool call of a session as the model saw it, for ``leanread inspect``.

A store that keeps a transcript (the memory and SQLite stores; the Redis store adds the same
``TranscriptStore`` methods) holds one ``CallRecord`` per tool call: the tool, its arguments,
exactly the text (and images) the model was shown, whether it was an error, its tokens and the
tokens of the plain full read it replaces, when it ran, and who made it: the model (``MODEL``: a
tool call, through the MCP server, ``Session.call``, a ``Session`` tool method or a CLI tool
command) or the harness (``HARNESS``: a ``context`` command it ran itself, ``leanread context`` or
``Session.context``), whose result the model never saw. ``Session`` records one per call unless
the ``transcript`` setting is off (see ``config.settings.load_settings``).

Arguments and metadata are kept as JSON, so what a store gives back is what
``normalized`` makes of a record: tuples come back as lists, values JSON cannot hold as their
``str()``.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ..result import ImageData, ToolResult
from ..tokens import count_tokens

__all__ = [
    "HARNESS",
    "MODEL",
    "CallRecord",
    "SessionSummary",
    "TranscriptStore",
    "call_record",
    "decode_body",
    "encode_body",
    "normalized",
    "plain_cost",
    "summarise",
]

#: ``CallRecord.caller`` of a tool call the model made (and of every call recorded before callers were).
MODEL = "model"
#: ``CallRecord.caller`` of a ``context`` command the harness ran itself.
HARNESS = "harness"


@dataclass(frozen=True)
class CallRecord:
    """One tool call of a session.

    Attributes:
        call_id: the tool call id (``r7`` or the harness's own).
        tool: ``read``, ``grep``, ``ls``, ``edit``, ``write`` or ``context``.
        arguments: the arguments given (those left at their defaults are left out).
        text: exactly what the model was shown.
        is_error: the call was refused.
        metadata: the result's metadata (``ToolResult.metadata``).
        images: the images sent next to ``text``, base64 as sent.
        tokens: o200k_base tokens of ``text``.
        full_tokens: tokens of the plain full read it replaces (``tokens`` when nothing is replaced;
            see ``plain_cost``); None: not known (a read recorded before every read said it).
        started: when the call began, in seconds since the epoch.
        duration_ms: how long it ran, in milliseconds.
        number: its place in the session (1, 2, …), given by the store.
        caller: who made it: ``MODEL`` or ``HARNESS``.
    """

    call_id: str
    tool: str
    arguments: dict[str, Any]
    text: str
    is_error: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)
    images: tuple[ImageData, ...] = ()
    tokens: int = 0
    full_tokens: int | None = 0
    started: float = 0.0
    duration_ms: float = 0.0
    number: int = 0
    caller: str = MODEL


@dataclass(frozen=True)
class SessionSummary:
    """The totals of one session's transcript: the model's calls, and apart from them the
    harness's ``context`` commands, whose results the model never saw.

    Attributes:
        session: the session id.
        calls: tool calls the model made.
        tokens: tokens the model was shown in all, by those calls.
        full_tokens: what the plain full reads would have cost, over the model's calls whose cost
            is known.
        first, last: when the first and the last call (the harness's too) began, in seconds since
            the epoch.
        unknown: the model's calls whose plain full read's cost is not known
            (``CallRecord.full_tokens`` None).
        unknown_tokens: the tokens those calls showed.
        harness: the harness's own commands recorded (``CallRecord.caller`` ``HARNESS``).
        harness_tokens: the tokens of their results, which the model was not shown.
    """

    session: str
    calls: int
    tokens: int
    full_tokens: int
    first: float
    last: float
    unknown: int = 0
    unknown_tokens: int = 0
    harness: int = 0
    harness_tokens: int = 0

    @property
    def known_tokens(self) -> int:
        """Tokens shown by the calls whose plain full read's cost is known."""
        return self.tokens - self.unknown_tokens

    @property
    def saved(self) -> float | None:
        """The share of ``full_tokens`` not spent by the calls whose cost is known (below 0 when
        they cost more, as a numbered format does); None when no call's cost is known."""
        if self.unknown >= self.calls:
            return None
        return 1 - self.known_tokens / self.full_tokens if self.full_tokens else 0.0


class TranscriptStore(Protocol):
    """The transcript part of a ledger store. Safe to call from several threads."""

    def record_call(self, session_id: str, call: CallRecord) -> CallRecord:
        """Append ``call`` to the session's transcript; returns it with its ``number`` set and
        its arguments and metadata ``normalized``."""
        ...

    def calls(
        self, session_id: str, first: int = 1, limit: int | None = None, *, bodies: bool = True
    ) -> list[CallRecord]:
        """The session's calls numbered ``first`` on (1-based), at most ``limit`` of them, in
        order. ``bodies=False`` leaves out ``arguments``, ``text``, ``metadata`` and ``images``
        (empty), for lists and charts of long sessions."""
        ...

    def find_call(self, session_id: str, call_id: str) -> CallRecord | None:
        """The last call of the session with ``call_id``, or None."""
        ...

    def sessions(self) -> list[SessionSummary]:
        """Every session with a transcript, the most recently active first."""
        ...

    def session_paths(self, session_id: str) -> list[str]:
        """The files (realpaths) the session showed lines of, in the order first shown."""
        ...


def call_record(
    tool: str,
    arguments: dict[str, object],
    result: ToolResult,
    call_id: str,
    started: float,
    duration_ms: float,
    caller: str = MODEL,
) -> CallRecord:
    """The transcript record of one call made by ``caller`` (``MODEL`` or ``HARNESS``):
    ``result``'s text, images and metadata, its tokens from the metadata (counted when the result
    has none, as an error has not), its plain full read's tokens as ``plain_cost`` finds them."""
    tokens = result.metadata.get("tokens")
    tokens = tokens if isinstance(tokens, int) else count_tokens(result.text)
    full = plain_cost(tool, result.is_error, result.metadata, tokens)
    return CallRecord(
        call_id, tool, dict(arguments), result.text, result.is_error, dict(result.metadata), result.images,
        tokens, full, started, duration_ms, caller=caller,
    )  # fmt: skip


#: Tools whose answer stands for no longer plain answer: their plain cost is what they showed.
REPLACE_NOTHING = frozenset({"ls", "edit", "write", "context"})


def plain_cost(tool: str, is_error: bool, metadata: dict[str, Any], tokens: int) -> int | None:
    """Tokens of the plain full answer a call's result stands for, from its metadata:
    ``full_tokens`` when the result says it (every read, grep, ls, edit and write does); else
    ``tokens`` for a refusal and for a tool that replaces nothing (ls, edit, write, context);
    a grep pruned to a focus question, its ``focus.tokens_before``, an unpruned one ``tokens``;
    None (not known) for a read that does not say it (transcripts written before every read
    said it hold outlines, their stubs and images so)."""
    full = metadata.get("full_tokens")
    if isinstance(full, int) and not isinstance(full, bool):
        return full
    if is_error or tool in REPLACE_NOTHING:
        return tokens
    if tool == "grep":
        focus = metadata.get("focus")
        before = focus.get("tokens_before") if isinstance(focus, dict) and "kept_matches" in focus else None
        return before if isinstance(before, int) else tokens
    return None


def summarise(session_id: str, calls: list[CallRecord]) -> SessionSummary:
    """The totals of a session's ``calls`` (at least one): the model's, and the harness's apart."""
    model = [c for c in calls if c.caller != HARNESS]
    harness = [c for c in calls if c.caller == HARNESS]
    unknown = [c for c in model if c.full_tokens is None]
    return SessionSummary(
        session_id,
        len(model),
        sum(c.tokens for c in model),
        sum(c.full_tokens or 0 for c in model),
        min(c.started for c in calls),
        max(c.started for c in calls),
        len(unknown),
        sum(c.tokens for c in unknown),
        len(harness),
        sum(c.tokens for c in harness),
    )


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def normalized(call: CallRecord) -> CallRecord:
    """``call`` as a store gives it back: arguments and metadata through JSON."""
    return replace(call, arguments=_plain(call.arguments), metadata=_plain(call.metadata))


def encode_body(call: CallRecord) -> bytes:
    """The zlib-compressed JSON of ``call``'s arguments, text, metadata and images."""
    body = {
        "a": call.arguments,
        "t": call.text,
        "m": call.metadata,
        "i": [[image.mime_type, image.width, image.height, image.data] for image in call.images],
    }
    # level 1: a 100 KB result compresses in a quarter of the default's time, to about 1.2x its size
    return zlib.compress(json.dumps(body, separators=(",", ":"), default=str).encode("ascii"), 1)


def decode_body(call: CallRecord, blob: bytes) -> CallRecord:
    """``call`` with the arguments, text, metadata and images of ``encode_body``'s ``blob``.

    Raises:
        ValueError: the blob is damaged (zlib or JSON).
    """
    try:
        body = json.loads(zlib.decompress(blob))
    except (zlib.error, UnicodeDecodeError) as exc:
        raise ValueError(str(exc)) from exc
    images = tuple(ImageData(data, mime, int(width), int(height)) for mime, width, height, data in body["i"])
    return replace(call, arguments=body["a"], text=body["t"], metadata=body["m"], images=images)
