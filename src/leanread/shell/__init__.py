"""leanread for agents that only have a shell: their reading commands (``cat``, ``sed -n``,
``nl -ba | sed -n``, ``head``, ``tail``, ``grep``, ``rg``) answered through a ``Session``'s ledger,
every other command run as it is.

Example::

    from leanread import Session
    from leanread.shell import run_command

    session = Session(["/repo"], id="agent-run-1")
    done = run_command(session, "nl -ba src/app.py | sed -n '40,80p'", cwd="/repo")
    print(done.text, done.status, done.answered)

The other names import on first use, so ``recognise`` (and the Claude Code hook built on it) loads
no tokenizer or ledger.

Layer 9 of leanread (see ``docs/ARCHITECTURE.md``), beside ``mcp``, ``adapters`` and
``inspector``: imports ``session`` and everything below it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .recognise import Passed, Recognised, recognise  # light: the hook needs only these

if TYPE_CHECKING:
    from .answer import Answered
    from .run import ShellResult, run_command, try_answer

_HOMES = {
    "Answered": ".answer",
    "ShellResult": ".run",
    "run_command": ".run",
    "try_answer": ".run",
}

__all__ = ["Answered", "Passed", "Recognised", "ShellResult", "recognise", "run_command", "try_answer"]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'leanread.shell' has no attribute {name!r}")
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value
    return value
