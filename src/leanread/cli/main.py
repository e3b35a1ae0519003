"""The ``leanread`` console script: every command registered on ``app``, refusals in one line."""

from __future__ import annotations

import sys

from ..errors import LeanreadError
from .app import app
from .tools import add_tool_commands

add_tool_commands(app)  # first, so --help lists the tools' commands first

# each registers its commands on app when imported, in this order (--help lists them so)
from . import sh  # noqa: E402, F401

# isort: split
from . import context  # noqa: E402, F401

# isort: split
from . import serve  # noqa: E402, F401

# isort: split
from . import bench  # noqa: E402, F401

__all__ = ["app", "main"]


def main() -> None:
    """Entry point of the ``leanread`` console script: refusals print one line, status 1, and so
    does a command that needs a module of an optional extra not installed (``extras``)."""
    from ..config.extras import missing_extra

    try:
        app()
    except LeanreadError as exc:
        print(exc, file=sys.stderr)
        raise SystemExit(1) from None
    except ImportError as exc:
        words = [word for word in sys.argv[1:3] if not word.startswith("-")]
        named = missing_extra(exc, " ".join(["leanread", *words[: 2 if words[:1] == ["bench"] else 1]]))
        if named is None:
            raise
        print(named, file=sys.stderr)
        raise SystemExit(1) from None
