"""What the remote focus backends share: one JSON POST, and the lexical floor under their replies."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from typing import Any

from .local import LocalPruner

#: Bytes of a remote reply read at most; a bigger one is refused (the pruner fails open).
MAX_REPLY_BYTES = 4 * 1024 * 1024


class RemoteError(Exception):
    """A remote backend failed or replied with something unusable; the guards fail open on it."""


def post_json(url: str, payload: Mapping[str, Any], timeout: float, headers: Mapping[str, str] | None = None) -> Any:
    """POST ``payload`` as JSON to ``url`` and return the decoded JSON reply, within ``timeout``.

    Args:
        timeout: seconds the whole exchange may take (a server trickling its reply byte by byte
            is cut off too); the request runs in a daemon thread left behind on a timeout.
        headers: extra request headers (e.g. ``Authorization``).

    Raises:
        RemoteError: the connection failed or timed out, the status was not 2xx, or the reply
            was over ``MAX_REPLY_BYTES`` or not JSON.
    """
    outcome: list[Any] = []
    worker = threading.Thread(
        target=lambda: outcome.append(_attempt(url, payload, timeout, headers)), daemon=True, name="leanread-focus"
    )
    worker.start()
    worker.join(timeout)
    if not outcome:
        raise RemoteError(f"{url} did not answer within {timeout:g} s")
    if isinstance(outcome[0], RemoteError):
        raise outcome[0]
    return outcome[0]


def _attempt(url: str, payload: Mapping[str, Any], timeout: float, headers: Mapping[str, str] | None) -> Any:
    """The reply of ``post_json``, or the ``RemoteError`` to raise (returned: it crosses a thread)."""
    try:
        return _exchange(url, payload, timeout, headers)
    except RemoteError as exc:
        return exc
    except Exception as exc:  # anything urllib or json raise: the pruner fails open on it
        return RemoteError(f"{url} failed: {type(exc).__name__}: {exc}")


def _exchange(url: str, payload: Mapping[str, Any], timeout: float, headers: Mapping[str, str] | None) -> Any:
    body = json.dumps(payload).encode()
    request = urllib.request.Request(
        url, data=body, method="POST", headers={"Content-Type": "application/json", **(headers or {})}
    )
    try:
        # the caller's deadline (``post_json``) cuts the exchange off first
        with urllib.request.urlopen(request, timeout=timeout + 1) as reply:
            raw = reply.read(MAX_REPLY_BYTES + 1)
    except urllib.error.HTTPError as exc:
        exc.close()
        hint = "; check the API key" if exc.code in (401, 403) else ""
        raise RemoteError(f"{url} answered HTTP {exc.code}{hint}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        raise RemoteError(f"{url} could not be reached: {reason}") from None
    if len(raw) > MAX_REPLY_BYTES:
        raise RemoteError(f"{url} replied with over {MAX_REPLY_BYTES} bytes")
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        raise RemoteError(f"{url} replied with something other than JSON") from None


def lexical_floor(lines: Sequence[str], question: str, language: str | None) -> list[tuple[int, int]]:
    """The lines BM25 ranks best for ``question`` (plain ``LocalPruner(expand=False)``): kept
    whatever a remote backend says, so a manipulated or wrong reply cannot hide the lines that
    literally match the question."""
    return LocalPruner(expand=False).keep(lines, question, language)
