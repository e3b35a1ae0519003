"""Requests the SDK's stdio transport cannot parse because a string holds a lone surrogate.

JSON allows the escape ``"\\ud800"``, and Python's ``json`` decodes it, but a lone surrogate is
not a character: pydantic's JSON parser refuses the whole line, and the SDK drops it without an
answer (it cannot even tell which request it was), so the client waits forever. ``MendedReads``
sits between the transport and the server: such a line is decoded with ``json``, every lone
surrogate is taken out, and a ``tools/call`` whose arguments held one has its arguments replaced
by ``INVALID_KEY`` naming the first such argument, so ``LeanreadServer.call_tool`` answers it
with one sentence. A line that still fails is passed on as the SDK's own error.
"""

from __future__ import annotations

import contextvars
import json
import re
from types import TracebackType
from typing import Any

import mcp_types as types
from mcp.shared._stream_protocols import ReadStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from ..files.names import show_path

#: The one argument of a tool call whose arguments held a lone surrogate; its value names the
#: argument (escaped as ``names.show_path`` escapes): ``path holds a lone surrogate (\\ud800)``.
INVALID_KEY = "leanread:invalid"
_SURROGATE = re.compile("[\ud800-\udfff]")


def _holds_surrogate(value: object) -> str | None:
    """The first lone surrogate in ``value`` (strings, lists and dicts, keys included), or None."""
    if isinstance(value, str):
        found = _SURROGATE.search(value)
        return found.group() if found else None
    if isinstance(value, dict):
        value = [*value.keys(), *value.values()]
    if isinstance(value, list):
        for item in value:
            if (hit := _holds_surrogate(item)) is not None:
                return hit
    return None


def _without_surrogates(value: Any) -> Any:
    """``value`` with every lone surrogate replaced by U+FFFD."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_without_surrogates(k): _without_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_surrogates(item) for item in value]
    return value


def _flag_arguments(message: dict[str, Any]) -> None:
    """Replace the arguments of a ``tools/call`` that hold a lone surrogate by ``INVALID_KEY``."""
    params = message.get("params")
    if message.get("method") != "tools/call" or not isinstance(params, dict):
        return
    arguments = params.get("arguments")
    if not isinstance(arguments, dict):
        return
    for name, value in arguments.items():
        hit = _holds_surrogate(name) or _holds_surrogate(value)
        if hit is not None:
            params["arguments"] = {INVALID_KEY: f"{show_path(name)} holds a lone surrogate ({show_path(hit)})"}
            return


def mend(error: Exception) -> SessionMessage | Exception:
    """The message of a line the transport refused for a lone surrogate, mended (see the module
    docstring); ``error`` itself for any other failure."""
    if not isinstance(error, ValidationError):
        return error
    problems = error.errors()
    line = problems[0].get("input") if problems else None
    if not isinstance(line, str) or "\\u" not in line:
        return error
    try:
        decoded = json.loads(line)
    except (ValueError, RecursionError):
        return error
    if not isinstance(decoded, dict) or _holds_surrogate(decoded) is None:
        return error
    _flag_arguments(decoded)
    try:
        message = types.jsonrpc_message_adapter.validate_python(_without_surrogates(decoded), by_name=False)
    except ValidationError:
        return error
    return SessionMessage(message)


class MendedReads:
    """A ``ReadStream`` of the transport's messages with ``mend`` applied to its errors."""

    def __init__(self, inner: ReadStream[SessionMessage | Exception]) -> None:
        self._inner = inner

    @property
    def last_context(self) -> contextvars.Context | None:
        """The sender's context of the last item (the SDK restores it), as the inner stream has it."""
        context: contextvars.Context | None = getattr(self._inner, "last_context", None)
        return context

    async def receive(self) -> SessionMessage | Exception:
        item = await self._inner.receive()
        return mend(item) if isinstance(item, Exception) else item

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> MendedReads:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        item = await self._inner.__anext__()
        return mend(item) if isinstance(item, Exception) else item

    async def __aenter__(self) -> MendedReads:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc_val: BaseException | None, exc_tb: TracebackType | None
    ) -> bool | None:
        await self.aclose()
        return None
