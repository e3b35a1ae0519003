"""Where a name is defined and where it is used, across the workspace, without a language server.

An index per workspace root (``store``) holds what each code file says about names (``facts``:
definitions, imports and re-exports, uses), read with tree-sitter (``python``, ``script``,
``generic``), kept on disk beside the ledger and refreshed from file stats and hashes before every
answer. ``find`` answers the two questions and labels each use by how sure it is; ``likely`` picks
the definitions a question means (as the file read last sees the name, else the nearest);
``render`` makes the text. This package sits below ``tools``: it imports ``outline``, ``search``, ``policy``,
``workspace`` and the ledger's default path, nothing above.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, replace
from pathlib import Path

from ..config.policy import Policy
from ..files.workspace import Workspace
from .find import LABELS, Found, Reference, definitions, references
from .likely import likely_definitions
from .store import Refresh, SymbolStore

__all__ = [
    "LABELS",
    "Answer",
    "Found",
    "Reference",
    "SymbolStore",
    "drop_store",
    "find_definitions",
    "find_likely",
    "find_references",
    "store_for",
    "use_store",
]

_STORES: dict[tuple[str, tuple[str, ...], tuple[str, ...], str], SymbolStore] = {}
_LOCK = threading.Lock()


def store_for(root: str, policy: Policy) -> SymbolStore:
    """The index of ``root`` for ``policy``, one per process (built on first use, on disk beside
    the ledger's default file, under ``XDG_STATE_HOME`` when set)."""
    from .store import store_path

    real = os.path.realpath(root)
    key = (real, policy.deny, policy.allow, str(store_path(real)))
    with _LOCK:
        store = _STORES.get(key)
        if store is None:
            store = SymbolStore(real, policy)
            _STORES[key] = store
        return store


def use_store(root: str, policy: Policy, path: Path) -> SymbolStore:
    """Keep the index of ``root`` for ``policy`` in the file ``path`` for this process instead of
    beside the ledger (a benchmark's scratch copy); returns it."""
    from .store import store_path

    real = os.path.realpath(root)
    store = SymbolStore(real, policy, path=path)
    with _LOCK:
        _STORES[(real, policy.deny, policy.allow, str(store_path(real)))] = store
    return store


def drop_store(store: SymbolStore) -> None:
    """Close ``store`` and forget it, so the next lookup of its root opens the default index."""
    with _LOCK:
        for key in [k for k, v in _STORES.items() if v is store]:
            del _STORES[key]
    store.close()


@dataclass(frozen=True)
class Answer:
    """What a lookup found over every root.

    Attributes:
        definitions: ranked; paths as the workspace shows them.
        references: uses, paths as the workspace shows them (empty for a definitions lookup).
        files: files indexed over every root.
        skipped: code files left out, by reason (``deny-listed``, ``over 2 MiB``, ``binary``…).
        refreshes: what bringing each root's index up to date did.
        total: definitions found in all (``definitions`` is the likely part of them).
        resolved_from: the file, as the workspace shows it, whose own names and imports led to
            ``definitions``; empty when they are a ranked cut.
    """

    definitions: list[Found]
    references: list[Reference]
    files: int
    skipped: dict[str, int]
    refreshes: list[Refresh]
    total: int = 0
    resolved_from: str = ""


def _stores(workspace: Workspace, policy: Policy) -> list[tuple[str, SymbolStore, Refresh]]:
    result = []
    for root in workspace.roots:
        store = store_for(root, policy)
        result.append((root, store, store.refresh()))
    return result


def _shown(workspace: Workspace, root: str, path: str) -> str:
    return workspace.display(os.path.join(root, path))


def _totals(stores: list[tuple[str, SymbolStore, Refresh]]) -> tuple[int, dict[str, int]]:
    files = sum(store.file_count() for _, store, _ in stores)
    skipped: dict[str, int] = {}
    for _, store, _ in stores:
        for reason, count in store.skipped().counts.items():
            skipped[reason] = skipped.get(reason, 0) + count
    return files, skipped


def find_definitions(workspace: Workspace, policy: Policy, query: str) -> Answer:
    """Every definition of ``query`` (``Store.get``, ``get``, ``pkg.mod.Store``, an alias) in
    every root, ranked; each root's index is brought up to date first.

    Raises:
        LeanreadError: ripgrep is missing or fails while a root is listed.
    """
    stores = _stores(workspace, policy)
    found: list[Found] = []
    for root, store, _ in stores:
        found += [replace(f, path=_shown(workspace, root, f.path)) for f in definitions(store, query)]
    files, skipped = _totals(stores)
    return Answer(found, [], files, skipped, [r for _, _, r in stores], len(found))


def find_likely(workspace: Workspace, policy: Policy, query: str, near: str | None, within: str | None) -> Answer:
    """The definitions of ``query`` the question likely means (``likely``): as the file ``near``
    sees the name, else those nearest it, else the best ranked; narrowed to the folder ``within``.
    ``near`` and ``within`` are realpaths or None; ``total`` counts every definition found.

    Raises:
        LeanreadError: ripgrep is missing or fails while a root is listed.
    """
    stores = _stores(workspace, policy)
    resolved: list[Found] = []
    ranked: list[tuple[bool, Found]] = []
    total, resolved_from = 0, ""
    for root, store, _ in stores:
        folder = _relative(root, within) if within is not None else None
        if within is not None and folder is None and not _is_under(root, within):
            continue
        rel_near = _relative(root, near) if near is not None else None
        likely = likely_definitions(store, query, rel_near, folder or None)
        total += likely.total
        shown = [replace(f, path=_shown(workspace, root, f.path)) for f in likely.shown]
        if likely.resolved_from:
            resolved += shown
            resolved_from = _shown(workspace, root, likely.resolved_from)
        else:
            ranked += [(rel_near is None, f) for f in shown]
    chosen = resolved or [f for _, f in sorted(ranked, key=lambda pair: pair[0])]  # the near root's first
    files, skipped = _totals(stores)
    return Answer(chosen, [], files, skipped, [r for _, _, r in stores], total, resolved_from)


def _relative(root: str, real: str) -> str | None:
    """``real`` relative to ``root`` (``""`` for the root itself), or None when outside it."""
    if real == root:
        return ""
    if real.startswith(root.rstrip(os.sep) + os.sep):
        return os.path.relpath(real, root).replace(os.sep, "/")
    return None


def _is_under(root: str, folder: str) -> bool:
    return root.startswith(folder.rstrip(os.sep) + os.sep)


def find_references(workspace: Workspace, policy: Policy, query: str, near: str | None = None) -> Answer:
    """The uses of ``query``'s likely definitions (``find_likely``: as the file ``near``, a
    realpath, sees the name; else the nearest) in every root, labelled (see ``find``);
    ``definitions`` holds the definitions they were matched against, ``total`` all of them.

    Raises:
        LeanreadError: as ``find_definitions``.
    """
    stores = _stores(workspace, policy)
    targets: list[Found] = []
    uses: list[Reference] = []
    total, resolved_from = 0, ""
    for root, store, _ in stores:
        rel_near = _relative(root, near) if near is not None else None
        likely = likely_definitions(store, query, rel_near, None)
        total += likely.total
        resolved_from = resolved_from or (_shown(workspace, root, likely.resolved_from) if likely.resolved_from else "")
        answer = references(store, query, likely.shown)
        targets += [replace(f, path=_shown(workspace, root, f.path)) for f in answer.targets]
        uses += [replace(r, path=_shown(workspace, root, r.path)) for r in answer.found]
    files, skipped = _totals(stores)
    return Answer(targets, uses, files, skipped, [r for _, _, r in stores], total, resolved_from)
