"""Listing a root's code files for the index: as ripgrep walks it (its ignore rules), with the
ignore files it met, the code files the deny list refuses, and the folders the walk enters (so a
file created in a folder that holds no code file is seen: the store stats them all)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..config.policy import Policy
from ..files.rglog import ignored_lines
from ..files.ripgrep import RgOptions
from ..files.search_files import list_files
from ..files.walk import IGNORE_FILES, folders_below, subfolders
from .extract import indexed_language

__all__ = ["Listed", "list_code"]


@dataclass(frozen=True)
class Listed:
    """What one listing found, paths relative to the root and ``/``-separated: the code files;
    the ignore files met; the code files the deny list refuses (path → ``deny-listed``); the
    folders the walk enters (the folder listed first, ``""`` for the root; one level below it
    for a listing of one level, all for a whole one)."""

    code: list[str]
    ignores: list[str]
    refused: dict[str, str]
    folders: list[str]


def list_code(root: str, policy: Policy, folder: str, depth: int | None = None) -> Listed:
    """The code files below ``folder`` of ``root`` (relative; ``""``: the root; ``depth=1``:
    only those directly in it) as ripgrep lists them, with what ``Listed`` holds besides.

    Raises:
        LeanreadError: ripgrep is missing or fails.
    """
    options = RgOptions(policy=Policy(deny=(), allow=()), timeout=120.0)
    target = os.path.join(root, folder) if folder else root
    log = bytearray()
    names = list_files(target, options, cwd=root, log=log, depth=depth)
    ignored = ignored_lines(bytes(log))
    entered = (
        folders_below(target, options, ignored) if depth is None else [target, *subfolders(target, options, ignored)]
    )
    code: list[str] = []
    ignores: list[str] = []
    refused: dict[str, str] = {}
    for name in names:
        rel = _relative(root, name)
        if rel.rsplit("/", 1)[-1] in IGNORE_FILES:
            ignores.append(rel)
        if indexed_language(rel) is None:
            continue
        parts = rel.split("/")
        if any(policy.denying_pattern(parts[: end + 1]) is not None for end in range(len(parts))):
            refused[rel] = "deny-listed"
        else:
            code.append(rel)
    return Listed(code, ignores, refused, [_relative(root, path) for path in entered])


def _relative(root: str, path: str) -> str:
    """``path`` (absolute, or from ``root``) relative to ``root``, ``/``-separated; ``""`` for the root."""
    rel = os.path.relpath(os.path.join(root, path), root).replace(os.sep, "/")
    return "" if rel == "." else rel
