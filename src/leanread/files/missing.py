"""What the error for a path that cannot be served says: the dangling symbolic link on the way,
up to three similar existing names, a root gone, or a path that goes on past a file."""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterator, Sequence
from typing import Protocol

from ..errors import PathError
from .names import show_path


class Roots(Protocol):
    """What these messages ask of ``workspace.Workspace``."""

    roots: tuple[str, ...]

    @property
    def primary(self) -> str: ...

    def root_of(self, real: str) -> str | None: ...

    def display(self, real: str) -> str: ...

    def is_denied(self, path: str) -> bool: ...


#: At most this many suggestions follow "File not found".
MAX_SUGGESTIONS = 3
#: Names of one folder compared for suggestions; a bigger folder is sampled in listing order.
_MAX_SCANNED_NAMES = 10_000


def _prefixes(workspace: Roots, path: str) -> Iterator[tuple[str, str, bool]]:
    """``(as written, joined to the first root, is the last name)`` for each leading part of
    ``path`` that ends in a name (``a``, ``a/b``, ... of ``a/b/``)."""
    parts = split_parts(os.path.expanduser(path))
    last = max((i for i, part in enumerate(parts) if part), default=-1)
    for i, part in enumerate(parts):
        if part:
            written = "/".join(parts[: i + 1])
            yield written, os.path.join(workspace.primary, written), i == last


def through_file(workspace: Roots, path: str) -> PathError:
    """The error for a path that goes on past a regular file as if it were a folder."""
    for written, joined, _ in _prefixes(workspace, path):
        if os.path.isfile(joined) and workspace.root_of(os.path.realpath(joined)) is not None:
            rest = split_parts(os.path.expanduser(path))[len(split_parts(written)) :]
            if all(part in ("", ".") for part in rest):
                return PathError(f"{show_path(path)} is a file, not a folder; drop the trailing slash.")
            past = f"{show_path(path)} goes on past {show_path(written)}"
            return PathError(f"{past}, which is a file, not a folder; fix the path.")
    return PathError(f"Cannot resolve {show_path(path)}: a part of it is a file, not a folder; fix the path.")


def root_gone(workspace: Roots, path: str, joined: str) -> PathError | None:
    """The error for a path under a root deleted or moved while the server ran: a
    ``PathError``, not ``FileMissing``, so that ``write`` does not make the root again."""
    for root in workspace.roots:
        if (joined + "/").startswith(root.rstrip("/") + "/") and not os.path.isdir(root):
            return PathError(
                f"The workspace root {show_path(root)} no longer exists (deleted or moved), so {show_path(path)} "
                "cannot be served; ask the user to restore it or restart leanread with a root that exists."
            )
    return None


def missing_message(workspace: Roots, path: str, joined: str) -> str:
    """ "File not found" for ``path`` (``joined`` to the first root): the dangling link on the way,
    or up to ``MAX_SUGGESTIONS`` close existing names, or how to see what exists."""
    dangling = _dangling_message(workspace, path)
    if dangling is not None:
        return dangling
    suggestions = _suggest(workspace, joined)
    if suggestions:
        return f"File not found: {show_path(path)}. Did you mean {', '.join(suggestions)}?"
    return f"File not found: {show_path(path)}. Check the spelling, or list its folder to see what exists."


def _dangling_message(workspace: Roots, path: str) -> str | None:
    """The error for a missing path that is, or goes through, a symbolic link to nothing.

    Only a link inside the workspace whose target would be inside it too is named, so the
    message reveals nothing about folders outside.
    """
    for written, joined, is_last in _prefixes(workspace, path):
        if not os.path.lexists(joined):
            return None
        if not os.path.islink(joined) or os.path.exists(joined):
            continue
        target = os.path.realpath(joined)
        if workspace.root_of(os.path.realpath(os.path.dirname(joined))) is None or workspace.root_of(target) is None:
            return None
        link = (
            f"a symbolic link to {workspace.display(target)}, which does not exist; "
            "fix the link or read its target's real path."
        )
        if is_last:
            return f"{show_path(path)} is {link}"
        return f"{show_path(path)} is inside {show_path(written)}, {link}"
    return None


def _suggest(workspace: Roots, joined: str) -> list[str]:
    """Up to ``MAX_SUGGESTIONS`` existing paths close to the missing ``joined``, in display form.

    The names of the missing file's folder are compared with its name; when that folder is
    missing too, the closest existing ancestor's names are compared with the first missing
    component, and a match is completed with the rest of the path when that exists. Only
    names inside the workspace that exist and are not denied are suggested.
    """
    folder = os.path.realpath(os.path.dirname(joined.rstrip(os.sep)) or os.sep)
    wanted = os.path.basename(joined.rstrip(os.sep))
    rest: list[str] = []
    while not os.path.isdir(folder):
        parent = os.path.dirname(folder)
        if parent == folder:
            return []
        rest.insert(0, wanted)
        folder, wanted = parent, os.path.basename(folder)
    if {wanted, *rest} & {"", ".", ".."} or workspace.root_of(folder) is None:
        return []
    try:
        with os.scandir(folder) as entries:
            names = [entry.name for _, entry in zip(range(_MAX_SCANNED_NAMES), entries, strict=False)]
    except OSError:
        return []
    ranked = _close_names(wanted, names)
    found: list[str] = []
    for name in ranked:
        candidate = os.path.join(folder, name)
        if rest and _servable(workspace, full := os.path.join(candidate, *rest)):
            found.append(workspace.display(full))
        elif _servable(workspace, candidate):
            found.append(workspace.display(candidate))
        if len(found) == MAX_SUGGESTIONS:
            break
    return found


def _servable(workspace: Roots, candidate: str) -> bool:
    """True when ``candidate`` exists, resolves inside the workspace and is not denied."""
    return (
        os.path.exists(candidate)
        and workspace.root_of(os.path.realpath(candidate)) is not None
        and not workspace.is_denied(candidate)
    )


def split_parts(path: str) -> list[str]:
    """The parts of ``path`` between separators, empty and dot parts kept (``a/./b/`` gives
    ``a``, ``.``, ``b``, ``""``; a leading ``/`` gives a first ``""``)."""
    if os.altsep:
        path = path.replace(os.altsep, os.sep)
    return path.split(os.sep)


def _similarity_key(name: str, other_ext: str) -> str:
    stem, ext = os.path.splitext(name.lower())
    return stem if ext and ext == other_ext else name.lower()


def _close_names(wanted: str, names: Sequence[str], cutoff: float = 0.6) -> list[str]:
    """``names`` close to ``wanted``, best first, as ``difflib.get_close_matches`` ranks them.

    Unlike a plain ``get_close_matches``, case is ignored and a shared extension is left out of
    the comparison, so ``nope.py`` is not "close" to ``app.py`` just because both end in ``.py``
    while ``ap.py`` still finds ``app.py`` and ``README.MD`` finds ``README.md``.
    """
    wanted_ext = os.path.splitext(wanted.lower())[1]
    matcher = difflib.SequenceMatcher()
    scored: list[tuple[float, str]] = []
    for name in names:
        ext = os.path.splitext(name.lower())[1]
        matcher.set_seqs(_similarity_key(name, wanted_ext), _similarity_key(wanted, ext))
        if (
            matcher.real_quick_ratio() >= cutoff
            and matcher.quick_ratio() >= cutoff
            and (score := matcher.ratio()) >= cutoff
        ):
            scored.append((score, name))
    return [name for _, name in sorted(scored, reverse=True)]
