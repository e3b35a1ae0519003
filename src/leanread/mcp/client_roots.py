"""The client's roots as workspace roots: a server started without ``--root`` asks a client that
declares the roots capability for them (``roots/list``) and follows its
``notifications/roots/list_changed``.

Roots are part of the handshake-era protocol (2025-11-25 and older; SEP-2577 deprecates them for
2026-07-28), so only such connections are asked. Each connection's roots are fetched before its
first tool call and again after each change notification, never on every call.
"""

from __future__ import annotations

import os
import warnings
from typing import Any
from urllib.parse import unquote, urlparse

from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import ListRootsResult, NotificationParams
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

#: ``Connection.state`` key: False once the connection's roots were fetched; True (or absent)
#: when they must be fetched before the next tool call.
STALE = "leanread.roots_stale"
#: The notification a client sends when its roots change.
LIST_CHANGED = "notifications/roots/list_changed"


def root_paths(result: ListRootsResult) -> list[str]:
    """The folders of a ``roots/list`` answer: each ``file://`` root that is an existing
    directory, as a local path, in the client's order; other schemes and hosts are left out."""
    paths = []
    for root in result.roots:
        url = urlparse(str(root.uri))
        if url.scheme != "file" or url.netloc not in ("", "localhost"):
            continue
        path = unquote(url.path)
        if os.path.isdir(path) and path not in paths:
            paths.append(path)
    return paths


async def fetch_roots(session: Any) -> list[str] | None:
    """The client's roots when its connection must (re)fetch them, else None (nothing to change).

    Args:
        session: the request's ``ServerSession`` (a tool ``Context``'s ``session``).

    Returns:
        The folders ``root_paths`` finds (possibly none), or None: the client has no roots
        capability, speaks the stateless protocol, its roots are already current, or it did
        not answer ``roots/list`` (the workspace then stays as it is).
    """
    connection = session._connection  # the SDK (2.3.0) offers no public path to a request's Connection
    if connection.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return None
    capabilities = connection.client_capabilities
    if capabilities is None or capabilities.roots is None or connection.state.get(STALE) is False:
        return None
    connection.state[STALE] = False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            result = await session.list_roots()
    except Exception:  # a client that declared roots but cannot list them: keep the workspace
        return None
    return root_paths(result)


async def on_list_changed(ctx: ServerRequestContext[Any, Any], params: NotificationParams) -> None:
    """``notifications/roots/list_changed``: fetch the roots again before the next tool call."""
    ctx.session._connection.state[STALE] = True


__all__ = ["LIST_CHANGED", "STALE", "fetch_roots", "on_list_changed", "root_paths"]
