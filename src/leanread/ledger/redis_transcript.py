"""The transcript of the Redis ledger (``TranscriptStore``): each session's calls in order, their
bodies compressed, the session's totals, and the index of sessions by their last call.

A call's head is the JSON list ``[call_id, tool, is_error, tokens, full_tokens, started,
duration_ms, caller]`` (a head written before callers were has no ``caller``: the model's). The
totals hash counts the model's calls (``calls``, ``tokens``, ``full_tokens``, ``unknown``,
``unknown_tokens``) and the harness's apart (``harness``, ``harness_tokens``)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import cast

from ..errors import LeanreadError
from .redis_base import RedisBase, as_bytes, as_text
from .transcript import HARNESS, MODEL, CallRecord, SessionSummary, decode_body, encode_body, normalized

_RECORD_CALL = f"""
local number = redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], number, ARGV[2])
redis.call('HSET', KEYS[3], ARGV[3], number)
if ARGV[9] == '{HARNESS}' then
  redis.call('HINCRBY', KEYS[4], 'harness', 1)
  redis.call('HINCRBY', KEYS[4], 'harness_tokens', ARGV[4])
else
  redis.call('HINCRBY', KEYS[4], 'calls', 1)
  redis.call('HINCRBY', KEYS[4], 'tokens', ARGV[4])
  if ARGV[5] == '' then
    redis.call('HINCRBY', KEYS[4], 'unknown', 1)
    redis.call('HINCRBY', KEYS[4], 'unknown_tokens', ARGV[4])
  else
    redis.call('HINCRBY', KEYS[4], 'full_tokens', ARGV[5])
  end
end
redis.call('HSETNX', KEYS[4], 'first', ARGV[6])
redis.call('HSET', KEYS[4], 'last', ARGV[6])
for i = 1, 4 do redis.call('EXPIRE', KEYS[i], ARGV[7]) end
redis.call('ZADD', KEYS[5], ARGV[6], ARGV[8])
return number
"""


class RedisTranscript(RedisBase):
    """The transcript half of ``RedisLedger``."""

    def __init__(self, url: str, *, prefix: str, idle_seconds: int) -> None:
        super().__init__(url, prefix=prefix, idle_seconds=idle_seconds)
        self._record_call = self._redis.register_script(_RECORD_CALL)

    def record_call(self, session_id: str, call: CallRecord) -> CallRecord:
        """Append ``call`` to the session's transcript in one atomic step; returns it numbered."""
        stored = normalized(call)
        keys = [
            self._key(session_id, "tx"),
            self._key(session_id, "txb"),
            self._key(session_id, "txid"),
            self._key(session_id, "txsum"),
            as_bytes(f"{self.prefix}:sessions"),
        ]
        args = [
            _head(stored), encode_body(stored), as_bytes(stored.call_id), stored.tokens,
            "" if stored.full_tokens is None else stored.full_tokens,
            repr(stored.started), self.idle_seconds, as_bytes(session_id), stored.caller,
        ]  # fmt: skip
        number = self._call(self._record_call, keys=keys, args=args)
        return replace(stored, number=int(number))

    def calls(
        self, session_id: str, first: int = 1, limit: int | None = None, *, bodies: bool = True
    ) -> list[CallRecord]:
        """The session's calls numbered ``first`` on, at most ``limit`` of them, in order."""
        start = max(first, 1) - 1
        if limit is not None and limit <= 0:
            return []
        stop = -1 if limit is None else start + limit - 1
        heads = cast("list[bytes]", self._call(self._redis.lrange, self._key(session_id, "tx"), start, stop))
        found = [_from_head(start + i + 1, head) for i, head in enumerate(heads)]
        if not bodies or not found:
            return found
        numbers = [c.number for c in found]
        blobs = cast("list[bytes | None]", self._call(self._redis.hmget, self._key(session_id, "txb"), numbers))
        return [self._with_body(c, blob) for c, blob in zip(found, blobs, strict=True)]

    def _with_body(self, call: CallRecord, blob: bytes | None) -> CallRecord:
        if blob is None:
            return call
        try:
            return decode_body(call, blob)
        except ValueError as exc:
            raise LeanreadError(
                f"The Redis ledger holds a tool call's text damaged ({exc}); delete the session's keys and go on."
            ) from None

    def find_call(self, session_id: str, call_id: str) -> CallRecord | None:
        """The last call of the session with ``call_id``, or None."""
        number = self._call(self._redis.hget, self._key(session_id, "txid"), as_bytes(call_id))
        if number is None:
            return None
        found = self.calls(session_id, int(number), 1)
        return found[0] if found else None

    def sessions(self) -> list[SessionSummary]:
        """Every session with a transcript, the most recently active first; expired ones are
        dropped from the index."""
        index = as_bytes(f"{self.prefix}:sessions")
        names = [as_text(name) for name in cast("list[bytes]", self._call(self._redis.zrevrange, index, 0, -1))]
        pipe = self._redis.pipeline(transaction=False)
        for name in names:
            pipe.hgetall(self._key(name, "txsum"))
        totals = self._call(pipe.execute)
        out: list[SessionSummary] = []
        for name, total in zip(names, totals, strict=True):
            if not total:
                self._call(self._redis.zrem, index, as_bytes(name))
                continue
            t = {k.decode(): v.decode() for k, v in total.items()}
            calls, tokens, full = (int(t.get(key, 0)) for key in ("calls", "tokens", "full_tokens"))
            apart = (int(t.get(key, 0)) for key in ("unknown", "unknown_tokens", "harness", "harness_tokens"))
            out.append(SessionSummary(name, calls, tokens, full, float(t["first"]), float(t["last"]), *apart))
        return sorted(out, key=lambda summary: (-summary.last, summary.session))


def _head(call: CallRecord) -> bytes:
    """A call without its body, as the transcript list keeps it."""
    fields = [call.call_id, call.tool, call.is_error, call.tokens, call.full_tokens, call.started, call.duration_ms]
    return json.dumps([*fields, call.caller], separators=(",", ":")).encode()


def _from_head(number: int, data: bytes) -> CallRecord:
    call_id, tool, is_error, tokens, full_tokens, started, duration_ms, *caller = json.loads(data)
    return CallRecord(
        call_id, tool, {}, "", bool(is_error), tokens=int(tokens),
        full_tokens=None if full_tokens is None else int(full_tokens),
        started=float(started), duration_ms=float(duration_ms), number=number,
        caller=str(caller[0]) if caller else MODEL,
    )  # fmt: skip
