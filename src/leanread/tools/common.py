"""What the tools share: their context, the instruction files a result brings, and the model's
knowledge of a file."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from ..config.settings import Limits, Policy
from ..errors import EditError, FileMissing, LeanreadError, NotAFile, NotText
from ..files.safeopen import read_regular
from ..files.textfile import IndexedLines, TextFile, binary_kind, decode
from ..files.walk import note_written
from ..files.workspace import Resolved, Workspace
from ..files.writeback import atomic_write
from ..ledger.knowledge import Knowledge, KnownLine, carry_records, know
from ..ledger.store import LedgerStore, LineRange, ViewRecord
from ..pruning import AuditHook, FocusAudit, LocalPruner, Pruner, backend_name
from ..tokens import count_tokens
from .instructions import Instruction, governing, load

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


def replaces_nothing(text: str) -> dict[str, int]:
    """``tokens`` and ``full_tokens`` of a result that stands for no longer plain answer (``ls``,
    ``edit``, ``write``, a grep not pruned): both the o200k_base tokens of ``text``, so the call
    counts as shown and saves nothing."""
    tokens = count_tokens(text)
    return {"tokens": tokens, "full_tokens": tokens}


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
    placed = set(renumbered)
    if knowledge is not None and (knowledge.changed_since is not None or placed):
        shown = {n for a, b in ranges for n in range(a, b + 1)}
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
    """Instruction files governing the file that the model does not have in view yet (the
    ledger is asked only when some govern it)."""
    found = governing(ctx.workspace, resolved.real, ctx.policy)
    if not found:
        return []
    seen = ctx.ledger.visible_instructions(ctx.session_id)
    fresh = [real for real in found if real not in seen]
    return load(ctx.workspace, fresh, INSTRUCTION_BYTES)


class DenyFilter:
    """``Workspace.is_denied`` for many paths at once (every file a search reports): each folder
    is checked once (its names below the root kept), each file against the policy's compiled
    deny and allow patterns.

    Args:
        ctx: the tool's context; its workspace decides for folders outside the roots, its
            policy for names.
    """

    def __init__(self, ctx: ToolContext) -> None:
        self._workspace = ctx.workspace
        self._policy = ctx.policy
        #: folder -> (denied, its names below its root)
        self._folders: dict[str, tuple[bool, tuple[str, ...]]] = {}

    def _folder(self, folder: str) -> tuple[bool, tuple[str, ...]]:
        known = self._folders.get(folder)
        if known is None:
            parent, name = os.path.split(folder)
            if folder in self._workspace.roots:
                known = (False, ())  # a root's own name never counts
            elif parent == folder or self._workspace.root_of(parent) is None:
                known = (self._workspace.is_denied(folder), (name,))
            else:
                denied, names = self._folder(parent)
                names = (*names, name)
                known = (denied or self._policy.denying_pattern(names) is not None, names)
            self._folders[folder] = known
        return known

    def __call__(self, path: str) -> bool:
        """True when the absolute ``path`` (inside the workspace) must not be shown."""
        folder, name = os.path.split(path)
        denied, names = self._folder(folder)
        return denied or self._policy.denying_pattern((*names, name)) is not None


def decoded_for_write(ctx: ToolContext, data: bytes, display: str) -> TextFile:
    """``data``, about to be written to ``display``, decoded as ``read`` will decode it, so that
    nothing is written that leanread could not show (and no step after the write can fail on it).

    Raises:
        EditError: ``data`` would be binary, or in no encoding leanread detects; nothing was written.
    """
    try:
        return decode(data, display, ctx.limits.sniff_bytes)
    except NotText:
        kind = binary_kind(data[: ctx.limits.sniff_bytes])
        what = f"be {kind}" if kind is not None else "be in no text encoding leanread can detect"
        raise EditError(
            f"The new content of {display} would {what}, not text, so nothing was written; write text (a few NUL "
            "bytes are fine: read shows each as \u2400), or ask the user to create binary files."
        ) from None


def remember_written(
    ctx: ToolContext,
    call_id: str,
    real: str,
    new_file: TextFile,
    ranges: tuple[LineRange, ...],
    *,
    kind: str,
    knowledge: Knowledge | None = None,
) -> str | None:
    """Record that the model has ``ranges`` of the version it just wrote (``new_file``, decoded
    from the bytes written); called after the write, so it never raises: what went wrong comes
    back as a note for the result (None when all went well)."""
    try:
        after = ctx.workspace.resolve(real)
    except LeanreadError:
        return "(It was changed or removed right after the write; read it before you change it again.)"
    try:
        ctx.ledger.put_version(new_file.content_hash, "\n".join(new_file.lines))
        record_view(ctx, call_id, after, new_file, ranges, kind=kind, knowledge=knowledge)
    except Exception as exc:  # the write is done: the result must say so whatever the ledger does
        return f"(The session could not record it ({type(exc).__name__}); read it before you change it again.)"
    return None


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
    note_written(real)  # grep's census stats it next time, whatever its folder's stat says
