"""Which ``read`` calls are certain to be small: a server runs those where the request arrived
rather than in a worker thread (``ToolSpec.quick``), which saves two thread hand-offs, a quarter
of a small read's round trip over MCP stdio on two cores."""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from typing import Any

#: The largest file whose plain read counts as quick (bytes): reading, hashing and rendering it
#: takes about a millisecond, its outline a few.
QUICK_BYTES = 64 * 1024

#: Arguments that make a read more than one small file's window: a definition looked up in an
#: index, a grep match, a question put to a pruning backend.
_SLOW_ARGUMENTS = ("symbol", "match_id", "focus")


def quick_read(root: str, arguments: Mapping[str, Any]) -> bool:
    """Whether a ``read`` with ``arguments`` (as sent) reads a regular file of at most
    ``QUICK_BYTES`` bytes (``path`` taken in ``root`` when relative) with none of
    ``_SLOW_ARGUMENTS``. Only ``stat`` is called: nothing is opened, so nothing a sandbox check
    would refuse is read; the call itself makes every check. False when unsure."""
    path = arguments.get("path")
    if not isinstance(path, str) or not path or "\x00" in path:
        return False
    if any(arguments.get(name) not in (None, "") for name in _SLOW_ARGUMENTS):
        return False
    try:
        st = os.stat(os.path.join(root, os.path.expanduser(path)))
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(st.st_mode) and st.st_size <= QUICK_BYTES
