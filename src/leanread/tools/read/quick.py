"""Which ``read`` calls may be small enough to run where a request arrives (``ToolSpec.quick``):
a plain read of one file. Whether a given call is small is for the server to learn from how the
same call went (``mcp.quick``), since finding out here would touch the file system."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Arguments that make a read more than one file's window: a definition looked up in an index, a
#: grep match, a question put to a pruning backend.
_SLOW_ARGUMENTS = ("symbol", "match_id", "focus")


def quick_read(arguments: Mapping[str, Any]) -> str | None:
    """The path a ``read`` with ``arguments`` (as sent) reads when it is a plain read of one file
    (none of ``_SLOW_ARGUMENTS``), else None."""
    path = arguments.get("path")
    if not isinstance(path, str) or not path or "\x00" in path:
        return None
    if any(arguments.get(name) not in (None, "") for name in _SLOW_ARGUMENTS):
        return None
    return path
