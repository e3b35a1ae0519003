"""Listing a root's code files for the index: as ripgrep walks it (its ignore rules), with the
ignore files it met and the code files the deny list refuses."""

from __future__ import annotations

import os

from ..config.policy import Policy
from ..files.ripgrep import RgOptions, base_args, run_rg
from ..files.search_files import list_files
from .extract import indexed_language

#: Names of ignore files ripgrep honours; a change to one lists the root again.
IGNORE_FILES = frozenset({".gitignore", ".ignore", ".rgignore"})


def list_code(
    root: str, policy: Policy, folder: str, depth: int | None = None
) -> tuple[list[str], list[str], dict[str, str]]:
    """Code files below ``folder`` of ``root`` (relative; ``""``: the root; ``depth=1``: only
    those directly in it) as ripgrep lists them, with the ignore files met and the code files
    ``policy`` denies (path → ``deny-listed``). Paths are relative, ``/``-separated.

    Raises:
        LeanreadError: ripgrep is missing or fails.
    """
    options = RgOptions(policy=Policy(deny=(), allow=()), timeout=120.0)
    target = os.path.join(root, folder) if folder else "."
    names = list_files(target, options, cwd=root) if depth is None else _shallow(root, target, options)
    code: list[str] = []
    ignores: list[str] = []
    refused: dict[str, str] = {}
    for name in names:
        rel = os.path.relpath(os.path.join(root, name), root).replace(os.sep, "/")
        if rel.rsplit("/", 1)[-1] in IGNORE_FILES:
            ignores.append(rel)
        if indexed_language(rel) is None:
            continue
        parts = rel.split("/")
        if any(policy.denying_pattern(parts[: end + 1]) is not None for end in range(len(parts))):
            refused[rel] = "deny-listed"
        else:
            code.append(rel)
    return code, ignores, refused


def _shallow(root: str, target: str, options: RgOptions) -> list[str]:
    args = [*base_args(options), "--files", "--null", "--max-depth", "1", "--", target]
    data = run_rg(args, options, root, None) or b""
    return [os.fsdecode(name) for name in data.split(b"\0") if name]
