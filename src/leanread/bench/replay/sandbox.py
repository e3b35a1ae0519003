"""Re-run a trace's file-changing shell commands inside the scratch copy, and nowhere else.

Each command runs under ``unshare`` in new user, mount and network namespaces: every mount is
remounted read-only except the scratch copy, there is no network (only a loopback that is down),
the environment is emptied (``env -i`` with a minimal ``PATH`` that has ``python``/``python3``
pointing at this interpreter), the working folder is the scratch copy, ``timeout`` stops it after
``SHELL_TIMEOUT`` seconds, and the agent's repository root (``/testbed``,
``/workspace/<repo>__<version>``) is rewritten to the scratch path. A command that writes
anywhere else fails there, and is counted as failed. Without ``unshare`` no command is run.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

#: Seconds one command may run.
SHELL_TIMEOUT = 20

#: Runs inside the namespaces: bind the scratch copy onto itself, make every other mount
#: read-only, then run the command with an empty environment.
_INSIDE = r"""
set -e
scratch="$1"; bin="$2"; limit="$3"; shift 3
mount --bind "$scratch" "$scratch"
awk '{print $5}' /proc/self/mountinfo | sort -ur | while read -r point; do
  point=$(printf '%b' "$point")
  case "$point" in "$scratch"|/proc|/proc/*|/dev|/dev/*|/sys|/sys/*) continue;; esac
  mount -o remount,bind,ro "$point" 2>/dev/null || true
done
mkdir -p "$scratch/.tmp"
cd "$scratch"
exec env -i PATH="$bin:/usr/local/bin:/usr/bin:/bin" HOME="$scratch" TMPDIR="$scratch/.tmp" LANG=C.UTF-8 \
  PYTHONDONTWRITEBYTECODE=1 timeout -k 2 "$limit" bash -c "$1"
"""


@dataclass(frozen=True)
class ShellRun:
    """The outcome of one command: its exit status (124 on timeout, None when not run) and the
    last line of its error output."""

    status: int | None
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.status == 0


@functools.lru_cache(maxsize=1)
def available() -> bool:
    """Whether this machine lets an unprivileged process make the namespaces (checked once)."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return False
    with tempfile.TemporaryDirectory() as tmp:
        probe = run_confined("true", Path(tmp), roots=(), check_available=False)
    return probe.ok


def _python_bin(folder: Path) -> str:
    """``folder`` with ``python`` and ``python3`` linked to this interpreter."""
    for name in ("python", "python3"):
        (folder / name).symlink_to(sys.executable)
    return str(folder)


def rewrite(cmd: str, roots: tuple[str, ...], scratch: Path) -> str:
    """``cmd`` with the agent's repository root(s) replaced by the scratch path (longest first)."""
    for root in sorted((r.rstrip("/") for r in roots if r and r != "/"), key=len, reverse=True):
        cmd = cmd.replace(root, str(scratch))
    return cmd


def run_confined(
    cmd: str, scratch: Path, roots: tuple[str, ...] = (), *, timeout: int = SHELL_TIMEOUT, check_available: bool = True
) -> ShellRun:
    """Run ``cmd`` with ``bash -c`` confined to ``scratch`` (see the module docstring)."""
    if check_available and not available():
        return ShellRun(None, "not run: unshare is not available")
    scratch = scratch.resolve()
    command = rewrite(cmd, roots, scratch)
    args = ["unshare", "--user", "--map-root-user", "--mount", "--net", "--", "sh", "-c", _INSIDE, "sandbox"]
    with tempfile.TemporaryDirectory(prefix="leanread-sandbox-bin-") as bin_dir:
        args += [str(scratch), _python_bin(Path(bin_dir)), str(timeout), command]
        try:
            done = subprocess.run(
                args,
                capture_output=True,
                timeout=timeout + 10,
                check=False,
                stdin=subprocess.DEVNULL,
                env={"PATH": os.defpath},
            )
        except subprocess.TimeoutExpired:
            return ShellRun(124, f"took longer than {timeout} s")
    error = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return ShellRun(done.returncode, error[-1][:200] if error and done.returncode else "")


def git_snapshot(scratch: Path) -> bool:
    """Make the scratch copy a git repository with its files committed, so that an agent's
    ``git checkout FILE``/``git diff``/``git stash`` work as in its checkout. Returns success."""
    env = {
        "PATH": os.defpath,
        "HOME": str(scratch),
        "GIT_AUTHOR_NAME": "replay",
        "GIT_AUTHOR_EMAIL": "replay@localhost",
        "GIT_COMMITTER_NAME": "replay",
        "GIT_COMMITTER_EMAIL": "replay@localhost",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    steps = (["git", "init", "-q"], ["git", "add", "-A", "-f"], ["git", "commit", "-q", "-m", "release", "--no-verify"])
    for step in steps:
        done = subprocess.run(step, cwd=scratch, env=env, capture_output=True, timeout=300, check=False)
        if done.returncode != 0:
            return False
    return True
