"""Instruction files (AGENTS.md, CLAUDE.md, …) that govern a file: found from the file's folder up
to the workspace root, attached to a result once per session in a ``<system-reminder>``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..config.settings import Policy
from ..errors import PathError
from ..files.safeopen import read_regular
from ..files.workspace import Workspace
from ..view.frame import Own, one_line, wrap


@dataclass(frozen=True)
class Instruction:
    """One instruction file: its realpath, the path the model knows it by, its text, and the
    byte count it was cut at (None: whole)."""

    real: str
    display: str
    text: str
    cut_at: int | None = None


#: Folders that hold other projects' code (installed dependencies, virtualenvs, VCS data): an
#: instruction file in or below one speaks for that code's authors, not for this workspace, and
#: is never attached.
DEPENDENCY_FOLDERS = frozenset(
    {
        "node_modules",
        "bower_components",
        "jspm_packages",
        "vendor",
        "site-packages",
        "dist-packages",
        "__pypackages__",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        ".git",
        ".hg",
        ".svn",
    }
)


def governing(workspace: Workspace, real_path: str, policy: Policy) -> list[str]:
    """Realpaths of the instruction files that govern ``real_path``, outermost first: those named
    in ``policy.instruction_files`` in each folder from the file's own up to its workspace root
    (the root's own only with ``policy.root_instructions``). Files outside the workspace, on the
    deny list, or in or below a dependency folder (``DEPENDENCY_FOLDERS``), by where they sit or
    where they link to, are skipped (``Workspace.files_up``)."""
    names = policy.instruction_files
    return workspace.files_up(real_path, names, skip=DEPENDENCY_FOLDERS, with_root=policy.root_instructions)


def load(workspace: Workspace, reals: Sequence[str], max_bytes: int) -> list[Instruction]:
    """The files' texts (UTF-8, undecodable bytes replaced), each cut to ``max_bytes``."""
    out: list[Instruction] = []
    for real in reals:
        try:
            data = read_regular(real, workspace.display(real), limit=max_bytes + 1)
        except PathError:  # gone, replaced or not a regular file since it was found
            continue
        text = data[:max_bytes].decode("utf-8", "replace")
        cut_at = max_bytes if len(data) > max_bytes else None
        out.append(Instruction(real, workspace.display(real), text.rstrip("\n"), cut_at))
    return out


def reminder(instructions: Sequence[Instruction]) -> str:
    """The ``<system-reminder>`` block that attaches ``instructions`` after a result's content:
    ``Instructions from AGENTS.md:`` then the file's lines, a blank line between files. Sealed
    (see ``frame.wrap``) when a line of a file reads like the frame, so that an instruction file
    cannot end the reminder early and go on as if it were something else."""
    body: list[str] = []
    for i in instructions:
        body.extend([*([""] if body else []), Own(f"Instructions from {one_line(i.display)}:")])
        body.extend(i.text.split("\n"))
        if i.cut_at is not None:
            body.append(Own(f"(cut at {i.cut_at} bytes; read {one_line(i.display)} for the rest)"))
    return "\n".join(wrap("system-reminder", body))
