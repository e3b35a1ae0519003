"""Run one shell command for an agent: answered through the session when it is a read or search
leanread recognises (``recognise``, ``answer``), else run as it is by ``bash -c`` with its exact
output and exit status. Nothing is remembered here: a command that changes files is caught by
the ledger's content hashes at the next read (a diff or the full text, never a stub)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass

from ..result import ToolResult
from ..session import Session
from .answer import Answered, answer
from .recognise import Passed, recognise


@dataclass(frozen=True)
class ShellResult:
    """One command's outcome.

    Attributes:
        stdout, stderr: the bytes printed (an answered command prints UTF-8 text, nothing on stderr).
        status: the exit status.
        answered: leanread answered it; False: it ran as it is.
        why: for a command run as it is, why leanread did not answer it (a short phrase).
        results: the tool results an answered command came from.
    """

    stdout: bytes
    stderr: bytes
    status: int
    answered: bool
    why: str = ""
    results: tuple[ToolResult, ...] = ()

    @property
    def text(self) -> str:
        """``stdout`` as text (invalid UTF-8 replaced)."""
        return self.stdout.decode("utf-8", "replace")


def try_answer(session: Session, command: str, cwd: str | None = None) -> Answered | Passed:
    """The answer to ``command`` run in ``cwd`` (default the current folder) when leanread
    recognises it, else ``Passed`` with why: for a harness that runs the other commands itself."""
    found = recognise(command)
    if isinstance(found, Passed):
        return found
    return answer(session, found, os.path.abspath(cwd or os.getcwd()))


def run_command(
    session: Session,
    command: str,
    cwd: str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
) -> ShellResult:
    """Run ``command`` as an agent's shell would (``bash -c``, in ``cwd``), reads and searches
    answered through ``session``.

    Raises:
        subprocess.TimeoutExpired: a command run as it is took longer than ``timeout`` seconds.
    """
    found = try_answer(session, command, cwd)
    if isinstance(found, Answered):
        return ShellResult(found.stdout.encode("utf-8"), b"", found.status, True, results=found.results)
    done = subprocess.run(
        [shell(), "-c", command],
        cwd=cwd,
        env=None if env is None else dict(env),
        capture_output=True,
        timeout=timeout,
        check=False,
    )
    return ShellResult(done.stdout, done.stderr, done.returncode, False, found.why)


def shell() -> str:
    """The shell commands run in: bash, else ``/bin/sh``."""
    return shutil.which("bash") or "/bin/sh"
