"""Load the agent traces of ``shared/traces`` (schema in that folder's README.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import LeanreadError


@dataclass(frozen=True)
class Trace:
    """One trajectory: its header and its file operations in the order the agent made them.

    Attributes:
        name: the file name without ``.jsonl``.
        header: line 1 of the file (``instance_id``, ``repo``, ``version``, ``agent``, …).
        ops: every later line, each a dict with at least ``op``.
    """

    name: str
    header: dict[str, Any]
    ops: tuple[dict[str, Any], ...]

    @property
    def package(self) -> str:
        """The PyPI name of the traced repository (``pytest-dev/pytest`` → ``pytest``)."""
        return str(self.header["repo"]).split("/")[-1]

    @property
    def version(self) -> str:
        """The release the trace's repository version corresponds to."""
        return str(self.header["version"])


def load_trace(path: Path) -> Trace:
    """Parse one ``.jsonl`` trace.

    Raises:
        ValueError: the file is empty or its first line has no ``repo``/``version``.
    """
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    if not rows or "repo" not in rows[0] or "version" not in rows[0]:
        raise ValueError(f"{path} is not a trace: its first line must be a header with repo and version.")
    return Trace(name=path.stem, header=rows[0], ops=tuple(rows[1:]))


def find_traces_dir(given: Path | None) -> Path:
    """``given``, else ``../shared/traces`` from the current folder or from the checkout.

    Raises:
        LeanreadError: none of them is a folder.
    """
    if given is not None:
        return given
    checkout = Path(__file__).resolve().parents[3]
    for candidate in (Path.cwd() / "../shared/traces", checkout / "../shared/traces"):
        if candidate.is_dir():
            return candidate.resolve()
    raise LeanreadError("No traces folder found; pass --traces DIR (see shared/traces/README.md).")
