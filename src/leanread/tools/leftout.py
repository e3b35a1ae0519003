"""What a ``grep`` or ``ls`` of a folder left out, by rule family, as one note.

ripgrep's walk prunes what ignore files leave out (``.gitignore``, ``.ignore``, ``.rgignore``,
git's exclude files) and what leanread's deny list leaves out (given to ripgrep as an ignore file,
and checked again on every path it reports). Its ``--debug`` log names each pruned path at the top
(an ignored folder once), so the count costs no second walk (``rglog``). The note says nothing
when nothing was left out, so the usual result does not grow::

    (Not searched: build/, generated/a.py, left out by .gitignore (include_ignored=true searches
    them); 1 file on the deny list.)

(one line in the result).

A folder whose own ignore file leaves out everything in it (a rule ``*``, as virtualenvs and
tool caches write) is named once as that folder.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ..files.rglog import RgLog, parse_log, source_name
from ..files.ripgrep import ignore_file
from ..view.counts import plural
from ..view.render import BINARY_NAMES
from .common import ToolContext

__all__ = ["LeftOut", "left_out", "left_out_note"]

#: Rules of an ignore file that leave out everything in its folder.
_EVERYTHING = frozenset({"*", "/*", "**", "/**", "**/*"})


@dataclass(frozen=True)
class LeftOut:
    """What a walk left out.

    Attributes:
        ignored: the paths ignore files left out, as the model names them (folders end with
            ``/``), sorted; the first ``BINARY_NAMES``, ``ignored_count`` counts all.
        ignored_count: how many paths ignore files left out (an ignored folder counts once).
        sources: the ignore files that left them out, as ``rglog.source_name`` names them.
        denied_files, denied_folders: what the deny list left out.
    """

    ignored: tuple[str, ...] = ()
    ignored_count: int = 0
    sources: tuple[str, ...] = ()
    denied_files: int = 0
    denied_folders: int = 0

    def __bool__(self) -> bool:
        return bool(self.ignored_count or self.denied_files or self.denied_folders)


def _is_dir(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _below(path: str, folder: str) -> bool:
    return path.startswith(folder.rstrip(os.sep) + os.sep)


def _tops(log: RgLog, cwd: str, deny: str) -> tuple[dict[str, str], list[str]]:
    """The paths ignore files left out (absolute, with the ignore file), a folder whose ignore
    file leaves out everything in it standing for its entries; and the paths the deny list did."""
    ignored: dict[str, str] = {}
    denied: list[str] = []
    for entry in log.ignored:
        path = os.path.normpath(os.path.join(cwd, entry.path))
        source = os.path.normpath(os.path.join(cwd, entry.source))
        if source == deny:
            denied.append(path)
        elif entry.rule in _EVERYTHING and os.path.dirname(path) == os.path.dirname(source):
            ignored[os.path.dirname(source)] = source
        else:
            ignored[path] = source
    return ignored, denied


def left_out(
    ctx: ToolContext,
    log: bytes,
    cwd: str,
    dropped: Iterable[str] = (),
    selects: Callable[[str], bool] | None = None,
    under: str | None = None,
) -> LeftOut:
    """What the walk of a search or listing run in ``cwd`` left out, from its ``--debug`` ``log``;
    ``dropped``: paths it reported that leanread's own deny check then left out; ``selects``: a
    file it rejects is not counted, as the search would not have taken it anyway (a ``type``:
    ripgrep applies ignore files before types); ``under``: only paths below this folder count
    (the log is of a wider walk: a root's census)."""
    ignored, denied = _tops(parse_log(log), cwd, os.path.normpath(ignore_file(ctx.policy)))
    if under is not None:
        ignored = {path: source for path, source in ignored.items() if _below(path, under)}
        denied = [path for path in denied if _below(path, under)]
    if selects is not None:
        ignored = {path: source for path, source in ignored.items() if _is_dir(path) or selects(path)}
        denied = [path for path in denied if _is_dir(path) or selects(path)]
    denied.extend(dropped)
    folders = sum(1 for path in denied if _is_dir(path))
    if not ignored:
        return LeftOut(denied_files=len(denied) - folders, denied_folders=folders)
    display = ctx.workspace.display
    names = sorted(ignored)[:BINARY_NAMES]
    shown = tuple(display(path) + ("/" if _is_dir(path) else "") for path in names)
    sources = tuple(sorted({source_name(source) for source in ignored.values()}))
    return LeftOut(shown, len(ignored), sources, len(denied) - folders, folders)


def _listed(names: Sequence[str], count: int) -> str:
    more = f" and {count - len(names)} more" if count > len(names) else ""
    return ", ".join(names) + more


def _and(names: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _denied(files: int, folders: int) -> str:
    parts = [plural(files, "file")] if files else []
    parts += [plural(folders, "folder")] if folders else []
    return " and ".join(parts) + " on the deny list"


#: Per tool, how the note says what it did not do, and what ``include_ignored`` does.
_VERBS = {"grep": ("searched", "searches"), "ls": ("listed", "lists")}


def left_out_note(left: LeftOut, tool: str) -> str | None:
    """The one-line note of ``tool`` (``grep`` or ``ls``) for ``left``, None when nothing was left
    out: ``(Not searched: build/, left out by .gitignore (include_ignored=true searches it); 1 file
    on the deny list.)``."""
    if not left:
        return None
    verb, does = _VERBS[tool]
    parts: list[str] = []
    if left.ignored_count:
        them = "it" if left.ignored_count == 1 else "them"
        parts.append(
            f"{_listed(left.ignored, left.ignored_count)}, left out by {_and(left.sources)} "
            f"(include_ignored=true {does} {them})"
        )
    if left.denied_files or left.denied_folders:
        parts.append(_denied(left.denied_files, left.denied_folders))
    return f"(Not {verb}: {'; '.join(parts)}.)"
