"""The calls a replay hands each strategy: a read window, a search with its hits, a listing, a
change. The engine builds them once per trace op from the scratch copy, so every strategy answers
the same request about the same bytes."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import NotText
from ...files.textfile import decode


@dataclass(frozen=True)
class FileSnapshot:
    """One version of a file as the tools decode it.

    Attributes:
        path: the path as the trace names it (relative to the repository root).
        lines: the lines without line endings.
        final_newline: the last line ends with a line ending.
        mtime_ns, size: what ``stat`` says (anchors key their stubs on them).
        digest: a hash of the bytes (``content_hash`` of ``textfile``).
    """

    path: str
    lines: tuple[str, ...]
    final_newline: bool
    mtime_ns: int
    size: int
    digest: str

    @property
    def total(self) -> int:
        return len(self.lines)


#: Op fields that may carry the agent's focus question: leanread's parameter, and the field the
#: SWE-Pruner integrations of OpenHands and mini-swe-agent add to a command.
FOCUS_FIELDS = ("focus", "context_focus_question")


def focus_question(op: dict[str, Any]) -> str | None:
    """The focus question a trace op carries, or None (the shared traces carry none)."""
    for name in FOCUS_FIELDS:
        value = op.get(name)
        if isinstance(value, str) and value.strip():
            return value
    return None


def snapshot(root: Path, path: str) -> FileSnapshot | None:
    """The file at ``root / path`` decoded as ``read`` decodes it, or None when it is missing, not
    a regular file, or not text."""
    target = root / path
    try:
        if not target.is_file():
            return None
        data = target.read_bytes()
        st = os.stat(target)
    except OSError:
        return None
    try:
        decoded = decode(data, path)
    except NotText:
        return None
    lines = tuple(decoded.lines)
    return FileSnapshot(path, lines, decoded.final_newline, st.st_mtime_ns, st.st_size, decoded.content_hash)


@dataclass(frozen=True)
class ReadCall:
    """A ``read`` op: the window asked for and the file as it is now.

    ``offset``/``limit`` are the trace's (1-based offset or None; lines or None); a ``tail`` op
    already has its offset worked out.
    """

    path: str
    offset: int | None
    limit: int | None
    file: FileSnapshot
    step: int = 0
    #: the agent's focus question for this read, when the trace gives one (``focus_question``)
    focus: str | None = None
    #: the shell command a bash-only agent read with (``nl -ba f | sed -n '5,9p'``), when the trace has it
    cmd: str = ""

    @property
    def whole(self) -> bool:
        """A read of the whole file (no offset past 1, no limit)."""
        return (self.offset or 1) == 1 and self.limit is None


@dataclass(frozen=True)
class Hit:
    """A line a search shows: a match, or a context line around one."""

    path: str
    line: int
    text: str
    match: bool


@dataclass(frozen=True)
class GrepCall:
    """A ``grep`` op and what GNU grep finds for it in the scratch copy.

    Attributes:
        patterns: the trace's pattern(s), in grep's syntax (basic regular expressions unless
            ``extended``).
        paths: what is searched (files or folders, relative to the root).
        before, after: context lines asked for (``-B``/``-A``/``-C``).
        ignore_case, files_only, count, extended, fixed: ``-i``, ``-l``, ``-c``, ``-E``, ``-F``.
        name_filter: a ``find -name`` filter in front of the grep, or None.
        hits: GNU grep's lines, in its order (files as it walked them, lines ascending).
        files: the files with a match, in GNU grep's order.
        failed: why GNU grep could not run the search, else "".
    """

    patterns: tuple[str, ...]
    paths: tuple[str, ...]
    before: int = 0
    after: int = 0
    ignore_case: bool = False
    files_only: bool = False
    count: bool = False
    extended: bool = False
    fixed: bool = False
    name_filter: str | None = None
    hits: tuple[Hit, ...] = ()
    files: tuple[str, ...] = ()
    failed: str = ""
    step: int = 0
    focus: str | None = None
    #: the shell command a bash-only agent searched with, when the trace has it
    cmd: str = ""

    @property
    def matches(self) -> int:
        return sum(1 for h in self.hits if h.match)

    @property
    def path(self) -> str:
        return self.paths[0] if len(self.paths) == 1 else "."


@dataclass(frozen=True)
class ListCall:
    """A ``list`` (``ls``, ``tree``, a folder view) or ``glob`` (``find``) op.

    Attributes:
        kind: ``list`` or ``glob``.
        path: the folder, relative to the root.
        depth: levels shown (1 for ``ls``, 2 for an OpenHands folder view, None for ``ls -R``).
        pattern: the ``glob`` name pattern, or None.
        entries: what the command lists, relative to ``path``: folders end with ``/``.
    """

    kind: str
    path: str
    depth: int | None
    pattern: str | None
    entries: tuple[str, ...]
    step: int = 0


@dataclass(frozen=True)
class ChangeCall:
    """A change the agent made (``edit``, ``insert``, ``write``, ``undo_edit``, a mutating
    ``shell`` command) and its effect on one file: ``before``/``after`` are None where the file did
    not exist (or is not text)."""

    kind: str
    path: str
    op: dict[str, Any]
    before: FileSnapshot | None
    after: FileSnapshot | None
    outcome: str
    step: int = 0


@dataclass
class Outcome:
    """What one strategy spent on one call: the text the model sees, and notes for the report."""

    text: str
    notes: list[str] = field(default_factory=list)
