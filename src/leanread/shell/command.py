"""``leanread sh -c COMMAND`` in process: a recognised read or search answered through the
session's ledger, anything else replaced by ``bash -c COMMAND`` (``exec``: its exact output,
streams and exit status)."""

from __future__ import annotations

import os
import sys

from ..process import exec_program
from ..session import Session
from .answer import Answered
from .run import shell, try_answer


def answer_or_exec(session: Session, command: str) -> int:
    """Print the answer to ``command`` and return its exit status, or become ``bash -c COMMAND``
    (this function then never returns)."""
    found = try_answer(session, command, os.getcwd())
    if isinstance(found, Answered):
        sys.stdout.write(found.stdout)
        sys.stdout.flush()
        return found.status
    run_as_is(command)
    return 127  # not reached


def run_as_is(command: str) -> None:
    """Replace this process by ``bash -c COMMAND`` (``/bin/sh`` without bash)."""
    sys.stdout.flush()
    sys.stderr.flush()
    program = shell()
    exec_program([program, "-c", command])
