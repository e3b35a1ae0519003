"""The ``write`` tool: create a file, or replace one the model has seen whole, atomically."""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..code.edit_plan import refuse_markers
from ..errors import Denied, FileMissing, NotAFile, OutsideWorkspace
from ..files.names import parse_path
from ..files.protected import refuse_config_change, refuse_protected_path
from ..files.safeopen import make_folders
from ..files.textfile import decode, unshow_nul
from ..files.workspace import read_regular_file
from ..files.writeback import encode_edit, file_lock
from ..ledger.knowledge import ranges_of
from ..result import ToolResult
from ..view.counts import plural
from .common import (
    ToolContext,
    decoded_for_write,
    knowledge_of,
    remember_written,
    replace_if_unchanged,
    replaces_nothing,
)
from .edit import EditRefused
from .races import Arrival, arrival, write_refusal
from .spec import WRITES, Arguments, ToolSpec, string

NAME = "write"


@dataclass(frozen=True)
class WriteRequest:
    """The parameters of one ``write`` call (see ``SPEC``)."""

    path: str
    content: str


def _new_path(ctx: ToolContext, path: str) -> tuple[str, str]:
    """Realpath and display path for a file that does not exist yet; its folder may not either.

    Raises:
        OutsideWorkspace: the path (or a link on its way) leads outside every root.
        Denied: a name on the way is on the deny list.
    """
    joined = os.path.join(ctx.workspace.primary, os.path.expanduser(path))
    real = os.path.realpath(joined)
    if ctx.workspace.root_of(real) is None:
        raise OutsideWorkspace(f"{path} resolves outside the workspace; write inside it.")
    if ctx.workspace.is_denied(real):
        raise Denied(f"{path} is on leanread's deny list; ask the user to create it.")
    return real, ctx.workspace.display(real)


def _target(ctx: ToolContext, path: str) -> str:
    """The realpath ``path`` writes to (checked again, under the lock, by ``_replacement``)."""
    try:
        return ctx.workspace.resolve(path).real
    except FileMissing:
        return _new_path(ctx, path)[0]


def _replacement(ctx: ToolContext, path: str, content: str, came: Arrival) -> tuple[str, str, bytes | None, bytes]:
    """(realpath, display, the bytes there now or None, bytes to write) for ``content`` at
    ``path``; markers are refused unless the file being replaced already holds them, and so is a
    file another call changed or created while this write waited (``came``: before it waited)."""
    try:
        resolved = ctx.workspace.resolve(path)
    except FileMissing:
        refuse_markers(content, argument="content")
        real, display = _new_path(ctx, path)
        refuse_protected_path(ctx.workspace, real, display)
        refuse_config_change(ctx.workspace, real, display, None, content)
        return real, display, None, content.encode("utf-8", "surrogateescape")
    if resolved.is_dir:
        raise NotAFile(f"{resolved.display} is a directory; write a file inside it.")
    refuse_protected_path(ctx.workspace, resolved.real, resolved.display)
    original = read_regular_file(resolved)
    text_file = decode(original, resolved.display, ctx.limits.sniff_bytes)
    known = knowledge_of(ctx, resolved, text_file)
    mine = known.seen_hash is not None and known.changed_since is None  # the session has this version
    if mine and (not came.existed or came.seen_hash not in (None, text_file.content_hash)):
        raise EditRefused(write_refusal(resolved.display, came))
    total = len(text_file.lines)
    missing = known.missing(1, total)
    old_lines = text_file.raw_lines if text_file.raw_lines is not None else text_file.lines
    old_text = "\n".join(old_lines) + ("\n" if text_file.final_newline and old_lines else "")
    # A write of the text the file holds loses nothing (a call sent again after its answer was lost).
    unknown = known.seen_hash is None or known.changed_since is not None or missing
    if total and unknown and content.replace("\r\n", "\n") != old_text:
        since = "changed since you read it" if known.changed_since else "is not fully known to you"
        first = min(missing) if missing and not known.changed_since else 1
        raise EditRefused(
            f"write would replace all {total} lines of {resolved.display}, which {since}, so nothing was written; "
            f"read it first (offset={first}) or change it with edit."
        )
    refuse_markers(content, argument="content", allowed=old_text)
    if text_file.nul_bytes:  # read showed each NUL as NUL_SHOWN
        content = unshow_nul(content, old_text, argument="content", display=resolved.display)
    refuse_config_change(ctx.workspace, resolved.real, resolved.display, old_text, content.replace("\r\n", "\n"))
    data = encode_edit(
        original,
        old_text,
        content.replace("\r\n", "\n"),
        encoding=text_file.encoding,
        bom=text_file.bom,
        newline=text_file.newline,
        display=resolved.display,
    )
    return resolved.real, resolved.display, original, data


def _summary(created: bool, lines: int, nuls: int, same: bool = False) -> str:
    """``Created 2 lines.`` (``Wrote`` over a file that was there), naming NUL bytes and how read
    shows them, and a file that already held the text (``same``). Not the path, which the call
    named, nor the bytes, which the model sent."""
    verb = "Created" if created else "Wrote"
    text = f"{verb} {plural(lines, 'line')}"
    if nuls:
        text += f"; it holds {nuls} NUL byte{'' if nuls == 1 else 's'}, which read shows as \u2400"
    if same:
        text += "; the file already held this text"
    return text + "."


def run(ctx: ToolContext, request: WriteRequest, call_id: str) -> ToolResult:
    """Execute one ``write``; the new version counts as seen whole.

    Raises:
        LeanreadError: a bad or denied path, content carrying leanread's display markers, an
            unencodable character, content that would not be text (binary), a file the model
            has not seen whole (``EditRefused``), or a file the tools do not change
            (``ProtectedFile``: ``.git``, leanread's configuration); nothing is written then. Once
            the file is written nothing raises: a step after it that fails is a note in the result.
    """
    target = _target(ctx, request.path)
    came = arrival(ctx, target)  # before waiting: what the model had when it sent this write
    with file_lock(target):  # the next edit or write of the file waits until this one is recorded
        real, display, original, data = _replacement(ctx, request.path, request.content, came)
        new_file = decoded_for_write(ctx, data, display)
        make_folders(os.path.dirname(real), display)
        replace_if_unchanged(real, display, original, data)
        # written: from here on nothing raises, the result says what was done
        total = len(new_file.lines)
        note = remember_written(ctx, call_id, real, new_file, ranges_of(range(1, total + 1)), kind="write")
    created = original is None
    text = _summary(created, total, new_file.nul_bytes, same=original == data)
    if note:
        text = f"{text}\n{note}"
    metadata = {
        "call_id": call_id,
        "path": display,
        "type": "write",
        "created": created,
        "content_hash": new_file.content_hash,
        "size": new_file.size,
        **replaces_nothing(text),
    }
    return ToolResult(text, metadata=metadata)


def _call(ctx: ToolContext, args: Arguments, call_id: str) -> ToolResult:
    return run(ctx, WriteRequest(parse_path(args["path"]), args["content"]), call_id)


SPEC = ToolSpec(
    NAME,
    (
        string("path", "", required=True),
        string("content", "", required=True),
    ),
    WRITES,
    _call,
)
