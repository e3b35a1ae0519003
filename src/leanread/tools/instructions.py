"""Instruction files (AGENTS.md, CLAUDE.md, …) that govern a file: found from the file's folder up
to the workspace root, attached to a result once per session in a ``<system-reminder>``."""

from __future__ import annotations

import os
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


def in_dependency(root: str, real: str) -> bool:
    """Whether ``real`` (a realpath below ``root``) lies in or below a ``DEPENDENCY_FOLDERS`` folder."""
    parts = os.path.relpath(real, root).split(os.sep)[:-1]
    return any(part in DEPENDENCY_FOLDERS for part in parts)


def _attachable(workspace: Workspace, real: str) -> bool:
    """A regular file inside the workspace, not denied, not in a dependency folder (by where it
    sits and by where it links to)."""
    root = workspace.root_of(real)
    return os.path.isfile(real) and root is not None and not workspace.is_denied(real) and not in_dependency(root, real)


def governing(workspace: Workspace, real_path: str, policy: Policy) -> list[str]:
    """Realpaths of the instruction files that govern ``real_path``, outermost first: those named
    in ``policy.instruction_files`` in each folder from the file's own up to its workspace root
    (the root's own only with ``policy.root_instructions``). Files outside the workspace, on the
    deny list, or in or below a dependency folder (``DEPENDENCY_FOLDERS``), by where they sit or
    where they link to, are skipped."""
    root = workspace.root_of(real_path)
    if root is None:
        return []
    per_folder: list[list[str]] = []  # nearest folder first
    folder = os.path.dirname(real_path)
    while True:
        at_root = folder == root
        wanted = not at_root or policy.root_instructions
        if wanted and not in_dependency(root, os.path.join(folder, "x")):
            here = [os.path.realpath(os.path.join(folder, name)) for name in policy.instruction_files]
            per_folder.append([real for real in here if _attachable(workspace, real)])
        if at_root or len(folder) <= len(root):
            break
        folder = os.path.dirname(folder)
    return list(dict.fromkeys(real for found in reversed(per_folder) for real in found))


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
