"""``ast.parse`` safe to call from several threads at once.

CPython 3.11 keeps the recursion depth of its AST constructor in per-interpreter state, so two
threads parsing at once can fail with "AST constructor recursion depth mismatch" (CPython issue
gh-106905, fixed in 3.12). The MCP server runs tool calls in worker threads, so every parse of
Python source goes through one lock here.
"""

from __future__ import annotations

import ast
import threading

_LOCK = threading.Lock()


def parse_python(source: str) -> ast.Module:
    """``ast.parse(source)``, one thread at a time.

    Raises:
        SyntaxError, ValueError: as ``ast.parse`` (source that does not parse, a NUL byte).
    """
    with _LOCK:
        return ast.parse(source)
