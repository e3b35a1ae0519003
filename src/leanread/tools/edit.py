"""The ``edit`` tool: replace text the model has seen, and write the file back byte-exactly."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

from ..code.diffs import hunks, window_lines
from ..code.edit_plan import EMPTY_OLD_STRING, EditPlan, plan_edit
from ..code.syntax import parse_warning_at
from ..errors import EditError, InvalidArgument, MultipleMatches, NoMatch, NotAFile, PathChanged
from ..files.names import parse_path
from ..files.protected import refuse_config_change, refuse_protected_path
from ..files.textfile import TextFile, decode, unshow_nul
from ..files.workspace import Resolved, read_regular_file
from ..files.writeback import encode_edit, file_lock
from ..ledger.knowledge import Knowledge, as_known, hunk_spans, hunks_known, know, patch_numbers, ranges_of
from ..result import ToolResult
from ..view.frame import Own, plain_or_framed
from ..view.hunks import format_hunk
from ..view.render import span
from .common import (
    ToolContext,
    decoded_for_write,
    knowledge_of,
    record_view,
    remember_written,
    replace_if_unchanged,
    replaces_nothing,
    whole_lines,
)
from .edit_result import excerpt, shown_lines, summary
from .races import Arrival, arrival, changed_lines, changes_since, current_span, refusal
from .spec import EDITS, Arguments, ToolSpec, flag, string

NAME = "edit"


class EditRefused(EditError):
    """The model has not seen (this version of) the lines it wants to change."""


class _Written(NamedTuple):
    """What one edit wrote: its plan, the file as written, the excerpt for the result, and notes."""

    plan: EditPlan
    new_file: TextFile
    excerpt: list[str]
    warning: str | None  # the file parses worse than before (``syntax.parse_warning_at``)
    note: str | None  # a step after the write failed (``remember_written``)


@dataclass(frozen=True)
class EditRequest:
    """The parameters of one ``edit`` call (see ``SPEC``)."""

    path: str
    old_string: str
    new_string: str
    replace_all: bool = False


def _logical(text_file: TextFile) -> str:
    lines = text_file.raw_lines if text_file.raw_lines is not None else text_file.lines
    return "\n".join(lines) + ("\n" if text_file.final_newline and lines else "")


def _read_hint(first: int, last: int) -> str:
    return f"offset={first}, limit={last - first + 1}"


def _changed_since(ctx: ToolContext, call_id: str, resolved: Resolved, text_file: TextFile, known: Knowledge) -> str:
    """The refusal for a file that changed since the model saw it: with the diff of what changed
    when it can be made against what the model was shown (those lines then count as seen)."""
    total = len(text_file.lines)
    if known.opcodes is not None and known.seen_text is not None and total:
        lines = window_lines(known.opcodes, known.seen_text, text_file.lines, 1, total) or []
        groups = hunks(lines, context=1)
        if groups and hunks_known(groups, known):
            shown = {line.new for g in groups for line in g if line.new is not None}
            # The diff lists every change: the model moves what it holds as the hunks say.
            patched = patch_numbers(known, hunk_spans(groups, known))
            record_view(ctx, call_id, resolved, text_file, ranges_of(shown), kind="refusal", knowledge=patched)
            said = Own(
                f"{resolved.display} changed since you read it, so nothing was edited; this is what changed "
                "(a diff against what you were shown):"
            )
            body = [row for g in groups for row in format_hunk([as_known(line, known) for line in g])]
            retry = Own("Retry the edit against the current text.")
            return plain_or_framed(resolved.display, "diff", [said, *body, retry])
    first, last = _changed_span(known, total)
    return (
        f"{resolved.display} changed since you read it, so nothing was edited; read the changed lines "
        f"({_read_hint(first, last)}) and retry."
    )


def _changed_span(known: Knowledge, total: int) -> tuple[int, int]:
    """Current lines from the first change to the last (the whole file when unknown)."""
    changes = [(j1, j2) for tag, _, _, j1, j2 in known.opcodes or [] if tag != "equal"]
    if not changes or not total:
        return 1, max(total, 1)
    first = min(j1 for j1, _ in changes) + 1
    last = max(max(j2 for _, j2 in changes), first)
    return min(first, total), min(last, total)


def _check_grant(resolved: Resolved, known: Knowledge, plan: EditPlan, lines: Sequence[str], max_chars: int) -> None:
    """Refuse unless every line the edit touches was shown to the model in this version (the
    caller has checked that it is the version the model saw last); each refusal names the read
    that fixes it."""
    first, last = plan.old_span
    if known.seen_hash is None:
        raise EditRefused(
            f"You have not read {resolved.display} in this session, so nothing was edited; read the lines "
            f"old_string spans first ({_read_hint(first, last)}) and retry."
        )
    # A line counts when the model has it under its current number (not one it had before it moved).
    touched = [n for a, b in plan.old_lines for n in range(a, b + 1)]
    missing = [n for n in touched if n not in known.lines or known.lines[n].then != n]
    long = [n for n in missing if len(lines[n - 1]) > max_chars]
    if long:
        n = long[0]
        raise EditRefused(
            f"old_string spans {span(first, last)} of {resolved.display}, and line {n} is longer than {max_chars} "
            f"characters, of which you have not read all, so nothing was edited; read the rest with offset={n}, "
            f"char_offset={max_chars + 1} (and on, as its notes say) and retry."
        )
    if missing:
        lo, hi = min(missing), max(missing)
        them = "it" if lo == hi else "them"
        raise EditRefused(
            f"old_string spans {span(first, last)} of {resolved.display}, but you have not seen {span(lo, hi)} of "
            f"its current version, so nothing was edited; read {them} first ({_read_hint(lo, hi)}) and retry."
        )


def _plan_then(ctx: ToolContext, request: EditRequest, came: Arrival) -> EditPlan | None:
    """The edit planned on the version the model had when it sent it, or None when that version
    is not kept or the edit does not apply to it either."""
    then = ctx.ledger.get_version(came.seen_hash) if came.seen_hash is not None else None
    if then is None:
        return None
    try:
        # kept versions leave out the final newline: give it back, so a last line can match
        return plan_edit(then + "\n", request.old_string, request.new_string, replace_all=request.replace_all)
    except EditError:
        return None


def _plan(
    ctx: ToolContext, request: EditRequest, resolved: Resolved, text_file: TextFile, old_text: str, came: Arrival
) -> EditPlan:
    """Plan the edit on the current text (``old_text``, the file's logical text) and refuse it when
    it would change lines another call of the session changed while this one waited (see ``races``).

    Raises:
        EditRefused: those lines changed since the model sent the edit.
        EditError: as ``plan_edit``.
    """
    raced = changes_since(ctx, came, text_file.content_hash, whole_lines(text_file))
    limit = ctx.limits.max_line_chars
    try:
        plan = plan_edit(old_text, request.old_string, request.new_string, replace_all=request.replace_all)
    except (NoMatch, MultipleMatches) as exc:
        earlier = _plan_then(ctx, request, came) if raced is not None else None
        if raced is None or earlier is None:
            raise _sealed(exc, resolved.display) from None
        # It was written against the version the model had: say what became of those lines.
        first, last = current_span(raced, *earlier.old_span)
        changed = changed_lines(raced, range(first, last + 1))  # the lines of the span that changed
        if changed:
            first, last = changed[0], changed[-1]
        raise EditRefused(refusal(resolved.display, text_file.lines, first, last, limit)) from None
    if raced is not None:
        changed = changed_lines(raced, (n for a, b in plan.old_lines for n in range(a, b + 1)))
        if changed:
            raise EditRefused(refusal(resolved.display, text_file.lines, changed[0], changed[-1], limit))
    return plan


def _sealed(refused: EditError, display: str) -> EditError:
    """``refused`` itself, or a ``NoMatch`` with its quote of the file's lines sealed as grep's
    rows are when one reads like leanread's frame (``frame.plain_or_framed``)."""
    if not isinstance(refused, NoMatch):
        return refused
    return NoMatch(plain_or_framed(display, "refusal", [Own(refused.said), *refused.quoted]))


def _nul_taken_back(request: EditRequest, text_file: TextFile, old_text: str, display: str) -> EditRequest:
    """``request`` with the ␀ that read showed for each NUL byte turned back into NUL, in a file
    that holds NULs; itself otherwise.

    Raises:
        EditError: the file holds real ␀ characters too, so a ␀ in old_string is ambiguous.
    """
    if not text_file.nul_bytes:
        return request
    old_string = unshow_nul(request.old_string, old_text, argument="old_string", display=display)
    new_string = unshow_nul(request.new_string, old_text, argument="new_string", display=display)
    return replace(request, old_string=old_string, new_string=new_string)


def _carried(ctx: ToolContext, real: str, new_file: TextFile, plan: EditPlan) -> Knowledge | None:
    """What the model knew of the file, moved onto the version it just wrote; None when the ledger
    cannot tell (the edit is done: ``remember_written`` then notes the ledger's failure)."""
    try:
        views = ctx.ledger.views_of(ctx.session_id, real)
        moved = know(views, new_file.content_hash, list(new_file.lines), ctx.ledger.get_version)
    except Exception:  # the write is done: the result must say so whatever the ledger does
        return None
    # The model made this change itself and the summary gives the shift: it moves what it holds.
    spans = [(a, b + 1, d - b) for (a, b), (_, d) in zip(plan.old_lines, plan.new_lines, strict=True)]
    return patch_numbers(moved, spans)


def _write(ctx: ToolContext, request: EditRequest, call_id: str, resolved: Resolved, came: Arrival) -> _Written:
    """Read, check, plan, write and record one edit; the caller holds the file's lock, so the
    next edit of the file sees this one recorded as the model's own.

    Raises:
        LeanreadError: as ``run``; nothing is written then. Once the file is written nothing
            raises: a step after it that fails is a note in the result.
    """
    original = read_regular_file(resolved)
    text_file = decode(original, resolved.display, ctx.limits.sniff_bytes)
    known = knowledge_of(ctx, resolved, text_file)
    if known.changed_since is not None:  # old_string was written against a version that is gone
        raise EditRefused(_changed_since(ctx, call_id, resolved, text_file, known))
    old_text = _logical(text_file)
    request = _nul_taken_back(request, text_file, old_text, resolved.display)
    plan = _plan(ctx, request, resolved, text_file, old_text, came)
    _check_grant(resolved, known, plan, text_file.lines, ctx.limits.max_line_chars)
    refuse_config_change(ctx.workspace, resolved.real, resolved.display, old_text, plan.new_text)
    data = encode_edit(
        original,
        old_text,
        plan.new_text,
        encoding=text_file.encoding,
        bom=text_file.bom,
        newline=text_file.newline,
        display=resolved.display,
    )
    new_file = decoded_for_write(ctx, data, resolved.display)
    found = parse_warning_at(resolved.display, old_text, plan.new_text, plan.new_span[0])
    warning, warning_line = found if found else (None, None)
    replace_if_unchanged(resolved.real, resolved.display, original, data)
    # written: from here on nothing raises, the result says what was done
    carried = _carried(ctx, resolved.real, new_file, plan)
    # the model wrote new_string itself: it is shown only the lines the file got otherwise than it
    # sent them, and the line a parse warning names
    numbers = shown_lines(new_file.lines, plan, warning_line)
    rows, shown = excerpt(new_file.lines, numbers, ctx.limits.max_line_chars)
    seen = ranges_of([n for a, b in (*shown, *plan.new_lines) for n in range(a, b + 1)])
    note = remember_written(ctx, call_id, resolved.real, new_file, seen, kind="edit", knowledge=carried)
    return _Written(plan, new_file, rows, warning, note)


def run(ctx: ToolContext, request: EditRequest, call_id: str) -> ToolResult:
    """Execute one ``edit``: match, check the grant, write atomically, record what the model now knows.

    Edits of one file run one at a time (``writeback.file_lock``, across sessions and processes);
    each is checked against the version the model had when it sent it (``races``).

    Raises:
        LeanreadError: a bad path or argument, no or several matches, a marker in the text, an
            unencodable character, a refused grant (``EditRefused``), or a file the tools do not
            change (``ProtectedFile``: ``.git``, leanread's configuration); nothing is written then.
    """
    if not request.old_string:  # before the lookup: a missing file gets the useful answer too
        raise InvalidArgument(EMPTY_OLD_STRING)
    resolved = ctx.workspace.resolve(request.path)
    if resolved.is_dir:
        raise NotAFile(f"{resolved.display} is a directory; edit a file inside it.")
    refuse_protected_path(ctx.workspace, resolved.real, resolved.display)
    came = arrival(ctx, resolved.real)  # before waiting: what the model had when it sent this edit
    with file_lock(resolved.real):  # another edit of this file waits for this one to be recorded
        # an edit that went before replaced the file (a new inode): look at the file as it is now
        current = ctx.workspace.resolve(request.path)
        if current.real != resolved.real:
            raise PathChanged(
                f"{resolved.display} changed while leanread was opening it (it or a folder on its path was "
                "replaced), so nothing was edited; read it again and retry."
            )
        plan, new_file, rows, warning, note = _write(ctx, request, call_id, current, came)
    said = [Own(summary(plan)), *rows, *(Own(line) for line in (warning, note) if line)]
    text = plain_or_framed(resolved.display, "edit", said)
    metadata = {
        "call_id": call_id,
        "path": resolved.display,
        "type": "edit",
        "rule": plan.rule,
        "count": plan.count,
        "old_lines": [list(r) for r in plan.old_lines],
        "new_lines": [list(r) for r in plan.new_lines],
        "content_hash": new_file.content_hash,
        "size": new_file.size,
        **replaces_nothing(text),
    }
    if warning:
        metadata["warning"] = warning
    return ToolResult(text, metadata=metadata)


def _call(ctx: ToolContext, args: Arguments, call_id: str) -> ToolResult:
    request = EditRequest(parse_path(args["path"]), args["old_string"], args["new_string"], args["replace_all"])
    return run(ctx, request, call_id)


SPEC = ToolSpec(
    NAME,
    (
        string("path", "", required=True),
        string("old_string", "Text to replace; it must occur once unless replace_all.", required=True),
        string("new_string", "", required=True),
        flag("replace_all", "true: replace every occurrence."),
    ),
    EDITS,
    _call,
)
