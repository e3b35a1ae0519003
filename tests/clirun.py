"""Running the real ``leanread`` command in a subprocess, as a user's shell would."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def leanread(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -m leanread ARGS`` in ``cwd``, its output captured as text (60 s at most)."""
    return subprocess.run(
        [sys.executable, "-m", "leanread", *args], cwd=cwd, capture_output=True, text=True, timeout=60
    )
