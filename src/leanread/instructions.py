"""Instruction files (AGENTS.md, CLAUDE.md, …) that govern a file: found from the file's folder up
to the workspace root, attached to a result once per session in a ``<system-reminder>``."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from .config import Policy
from .errors import PathError
from .safeopen import read_regular
from .workspace import Workspace


@dataclass(frozen=True)
class Instruction:
    """One instruction file: its realpath, the path the model knows it by, and its text."""

    real: str
    display: str
    text: str


def governing(workspace: Workspace, real_path: str, policy: Policy) -> list[str]:
    """Realpaths of the instruction files that govern ``real_path``, outermost first: those named
    in ``policy.instruction_files`` in each folder from the file's own up to its workspace root
    (the root's own only with ``policy.root_instructions``). Files outside the workspace or on
    the deny list (by name or by where they link to) are skipped."""
    root = workspace.root_of(real_path)
    if root is None:
        return []
    per_folder: list[list[str]] = []  # nearest folder first
    folder = os.path.dirname(real_path)
    while True:
        at_root = folder == root
        if not at_root or policy.root_instructions:
            here = [os.path.realpath(os.path.join(folder, name)) for name in policy.instruction_files]
            per_folder.append(
                [
                    real
                    for real in here
                    if os.path.isfile(real) and workspace.root_of(real) is not None and not workspace.is_denied(real)
                ]
            )
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
        if len(data) > max_bytes:
            text += f"\n(cut at {max_bytes:,} bytes; read {workspace.display(real)} for the rest)"
        out.append(Instruction(real, workspace.display(real), text.rstrip("\n")))
    return out


def reminder(instructions: Sequence[Instruction]) -> str:
    """The ``<system-reminder>`` block that attaches ``instructions`` after a result's content."""
    parts = [f"Instructions from {i.display}:\n{i.text}" for i in instructions]
    return "<system-reminder>\n" + "\n\n".join(parts) + "\n</system-reminder>"
