"""What the tools share: their context, loading a file's text, and the model's knowledge of it."""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from ..config import Limits, Policy
from ..errors import EditError, FileMissing, NotAFile, PathChanged
from ..instructions import Instruction, governing, load
from ..knowledge import Knowledge, KnownLine, carry_records, know
from ..ledger import LedgerStore, LineRange, ViewRecord
from ..lineindex import LineIndexCache, StaleIndex
from ..pruning import AuditHook, FocusAudit, LocalPruner, Pruner, backend_name
from ..safeopen import read_regular
from ..textfile import IndexedLines, TextFile, decode, decode_indexed
from ..workspace import Resolved, Workspace, read_regular_file
from ..writeback import atomic_write

#: Line indexes of big files, shared by every session of the process.
_INDEXES = LineIndexCache()

#: Bytes of one instruction file attached to a result at most.
INSTRUCTION_BYTES = 16 * 1024


@dataclass(frozen=True)
class ToolContext:
    """What a tool needs from its session: the workspace, the ledger, the limits and policy, and
    the focus backend with the audit hook that sees every focused output."""

    workspace: Workspace
    ledger: LedgerStore
    session_id: str
    limits: Limits
    policy: Policy
    pruner: Pruner = field(default_factory=LocalPruner)
    audit: AuditHook | None = None


def audit_focus(
    ctx: ToolContext, tool: str, path: str, focus: dict[str, Any], full_text: str, shown_text: str, pruned: bool
) -> None:
    """Hand one focused output to ``ctx.audit`` (if any): the output before pruning and the one
    shown. What the hook raises is put in ``focus["audit_error"]`` (the result's ``focus``
    metadata, with the ``question``), never raised."""
    if ctx.audit is None:
        return
    event = FocusAudit(tool, path, focus["question"], full_text, shown_text, pruned, backend_name(ctx.pruner))
    try:
        ctx.audit(event)
    except Exception as exc:  # a plugin's failure must not cost the model its result
        focus["audit_error"] = f"{type(exc).__name__}: {exc}"


def load_text(ctx: ToolContext, resolved: Resolved, first: int = 1, limit: int | None = None) -> TextFile:
    """The file decoded whole, or for a file over ``limits.index_bytes`` the window of ``limit``
    lines from ``first`` read through the cached line index (``limit=None``: decode whole)."""
    if limit is None or resolved.size <= ctx.limits.index_bytes:
        return decode(read_regular_file(resolved), resolved.display, ctx.limits.sniff_bytes)
    head = read_regular_file(resolved, ctx.limits.sniff_bytes)
    budget = ctx.limits.max_bytes + 4 * ctx.limits.max_line_chars
    try:
        index = _INDEXES.get(
            resolved.real, resolved.size, resolved.mtime_ns, ino=resolved.ino, ctime_ns=resolved.ctime_ns
        )
    except StaleIndex:  # changed between stat and index: index what is there now
        resolved = ctx.workspace.resolve(resolved.real)
        index = _INDEXES.get(
            resolved.real, resolved.size, resolved.mtime_ns, ino=resolved.ino, ctime_ns=resolved.ctime_ns
        )
    return decode_indexed(index, resolved.real, resolved.display, head, first, limit, budget)


def reload(ctx: ToolContext, real: str, attempts: int = 5) -> tuple[Resolved, TextFile]:
    """The file at ``real`` resolved and decoded whole, as it is now: after a write, another
    program (or agent) may replace it again between the ``stat`` and the open, so that is tried
    again up to ``attempts`` times.

    Raises:
        LeanreadError: as ``Workspace.resolve`` and ``load_text`` raise; ``PathChanged`` only when
            the file kept changing for every attempt.
    """
    for _ in range(attempts - 1):
        resolved = ctx.workspace.resolve(real)
        try:
            return resolved, load_text(ctx, resolved)
        except PathChanged:
            continue
    resolved = ctx.workspace.resolve(real)
    return resolved, load_text(ctx, resolved)


def whole_lines(text_file: TextFile) -> list[str] | None:
    """All lines of the file, or None when only a window of it was loaded."""
    return None if isinstance(text_file.lines, IndexedLines) else list(text_file.lines)


def knowledge_of(ctx: ToolContext, resolved: Resolved, text_file: TextFile, *, keep_version: bool = True) -> Knowledge:
    """What the model knows of this version; keeps the version's text for later diffs unless
    ``keep_version`` is False (``grep``: a later change of a file known from grep alone is then
    shown in full rather than as a diff, and its grep lines are not carried over)."""
    lines = whole_lines(text_file)
    if lines is not None and keep_version:
        ctx.ledger.put_version(text_file.content_hash, "\n".join(lines))
    records = ctx.ledger.views_of(ctx.session_id, resolved.real)
    return know(records, text_file.content_hash, lines, ctx.ledger.get_version)


def record_view(
    ctx: ToolContext,
    call_id: str,
    resolved: Resolved,
    text_file: TextFile,
    ranges: tuple[LineRange, ...],
    *,
    kind: str,
    knowledge: Knowledge | None = None,
    renumbered: Iterable[int] = (),
    instructions: tuple[str, ...] = (),
) -> None:
    """Record what this call showed; first carry what the model knew of an older version onto
    this one (``knowledge`` of that version mapped here), so it is not lost.

    ``renumbered``: lines of this version the result placed for the model without showing them
    (a diff's unchanged lines): they are carried under their new numbers.
    """
    shown = {n for a, b in ranges for n in range(a, b + 1)}
    placed = set(renumbered)
    if knowledge is not None:
        if knowledge.changed_since is not None:  # carry all it knows onto this version
            lines = {n: KnownLine(k.call_id, n) if n in placed else k for n, k in knowledge.lines.items()}
        else:  # same version: only lines this result placed under new numbers
            lines = {n: KnownLine(k.call_id, n) for n, k in knowledge.lines.items() if n in placed and k.then != n}
        moved = replace(knowledge, lines=lines)
        for carry in carry_records(
            moved, resolved.real, text_file.content_hash, text_file.size, resolved.mtime_ns, skip=shown
        ):
            ctx.ledger.record(ctx.session_id, carry)
    ctx.ledger.record(
        ctx.session_id,
        ViewRecord(
            call_id,
            resolved.real,
            text_file.content_hash,
            ranges,
            text_file.size,
            resolved.mtime_ns,
            kind=kind,
            instructions=instructions,
        ),
    )


def new_instructions(ctx: ToolContext, resolved: Resolved) -> list[Instruction]:
    """Instruction files governing the file that the model does not have in view yet."""
    seen = ctx.ledger.visible_instructions(ctx.session_id)
    fresh = [real for real in governing(ctx.workspace, resolved.real, ctx.policy) if real not in seen]
    return load(ctx.workspace, fresh, INSTRUCTION_BYTES)


@functools.lru_cache(maxsize=16)
def _name_pattern(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    """One compiled pattern matching a lower-cased name against any of ``patterns`` (as
    ``Policy.denied`` does with ``fnmatchcase``), or None for no patterns."""
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{fnmatch.translate(p.lower())})" for p in patterns))


class DenyFilter:
    """``Workspace.is_denied`` for many paths at once (every file a search reports): each folder
    is checked once, each file name with one compiled pattern of the policy's deny and allow lists.

    Args:
        ctx: the tool's context; its workspace decides for folders, its policy for names.
    """

    def __init__(self, ctx: ToolContext) -> None:
        self._workspace = ctx.workspace
        self._deny = _name_pattern(ctx.policy.deny)
        self._allow = _name_pattern(ctx.policy.allow)
        self._folders: dict[str, bool] = {}

    def name_denied(self, name: str) -> bool:
        """``Policy.denied`` for one file name."""
        base = name.lower()
        if self._deny is None or not self._deny.match(base):
            return False
        return self._allow is None or not self._allow.match(base)

    def folder_denied(self, folder: str) -> bool:
        """``Workspace.is_denied`` for a folder, worked out from its parent's answer."""
        denied = self._folders.get(folder)
        if denied is None:
            parent, name = os.path.split(folder)
            if folder in self._workspace.roots:
                denied = False  # a root's own name never counts
            elif parent == folder or self._workspace.root_of(parent) is None:
                denied = self._workspace.is_denied(folder)
            else:
                denied = self.folder_denied(parent) or self.name_denied(name)
            self._folders[folder] = denied
        return denied

    def __call__(self, path: str) -> bool:
        """True when the absolute ``path`` (inside the workspace) must not be shown."""
        folder, name = os.path.split(path)
        return self.folder_denied(folder) or self.name_denied(name)


def current_bytes(real: str, display: str | None = None) -> bytes | None:
    """The file's bytes now, or None if nothing is there, or ``b""`` for something that is not a
    regular file; never blocks on a FIFO and never follows a link (``safeopen.read_regular``).

    Raises:
        PathError: the path, or a folder on it, is a link now, or the file cannot be read.
    """
    try:
        return read_regular(real, display if display is not None else real)
    except FileMissing:
        return None
    except NotAFile:
        return b""


def replace_if_unchanged(real: str, display: str, original: bytes | None, data: bytes) -> None:
    """Write ``data`` over ``real`` atomically if it still holds ``original`` (None: there is
    still no file); the caller holds ``writeback.file_lock``, so only a program other than
    leanread could have changed it since it was read.

    Raises:
        EditError: the file changed (or appeared) in the meantime; nothing was written.
        PathError: the write failed; the file is unchanged.
    """
    if current_bytes(real, display) != original:
        raise EditError(
            f"{display} changed while this change was being made, so nothing was written; read it again and retry."
        )
    atomic_write(real, data, display=display)
