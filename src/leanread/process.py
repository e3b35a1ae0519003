"""Starting Python on leanread's modules safely, and becoming another program as a shell would
start it.

``python -m`` alone puts the current folder first on the import path, and leanread's processes
start in the workspace (a client starts the server in the project's folder): a repository's own
``email/`` or ``typer/`` would be imported in place of the real one, and run. ``-P`` (Python 3.11)
leaves that folder off.

CPython ignores SIGPIPE and SIGXFSZ at start (so a write to a closed pipe raises instead of
killing it), and an ignored signal stays ignored across ``exec``. A command leanread hands over
to (``bash -c``) must get them back at their defaults, as a child from ``subprocess`` does
(``restore_signals``): else ``yes | head -1`` runs on, printing write errors, where a shell ends
it at once. ``signal`` (which imports ``enum``) is imported only on the way to ``exec``, so the
warm client's start does not pay for it.
"""

from __future__ import annotations

import os
import sys


def python_module(module: str, *args: str, python: str | None = None) -> list[str]:
    """``[python, -P, -m, module, *args]``: ``python`` (default this interpreter) running
    ``module`` with the folder it starts in kept off the import path."""
    return [python or sys.executable, "-P", "-m", module, *args]


#: The signals CPython sets to ignored at start (the ones ``subprocess`` restores).
_IGNORED_BY_PYTHON = ("SIGPIPE", "SIGXFSZ", "SIGXFZ")


def exec_program(argv: list[str]) -> None:
    """Replace this process by ``argv`` (``argv[0]`` a path), with the signals CPython ignores
    back at their defaults. Never returns.

    Raises:
        OSError: the program cannot be run (nothing is replaced then).
    """
    import signal

    for name in _IGNORED_BY_PYTHON:
        number = getattr(signal, name, None)
        if number is not None:
            signal.signal(number, signal.SIG_DFL)
    os.execv(argv[0], argv)
