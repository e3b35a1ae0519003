"""The ``write`` tool: create a file, or replace one the model has seen whole, atomically."""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..editing import refuse_markers
from ..errors import Denied, FileMissing, NotAFile, OutsideWorkspace
from ..knowledge import ranges_of
from ..result import ToolResult
from ..safeopen import make_folders
from ..textfile import decode
from ..tokens import count_tokens
from ..workspace import read_regular_file
from ..writeback import encode_edit, file_lock
from .common import ToolContext, knowledge_of, record_view, reload, replace_if_unchanged, whole_lines
from .edit import EditRefused

NAME = "write"

#: Model-facing description of each parameter (MCP input schema, CLI help).
PARAMETERS: dict[str, str] = {
    "path": "File to create or replace: relative to the workspace root, or absolute inside it.",
    "content": "The whole new content of the file.",
}


@dataclass(frozen=True)
class WriteRequest:
    """The parameters of one ``write`` call (see ``PARAMETERS``)."""

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


def _replacement(ctx: ToolContext, path: str, content: str) -> tuple[str, str, bytes | None, bytes]:
    """(realpath, display, the bytes there now or None, bytes to write) for ``content`` at
    ``path``; markers are refused unless the file being replaced already holds them."""
    try:
        resolved = ctx.workspace.resolve(path)
    except FileMissing:
        refuse_markers(content, argument="content")
        real, display = _new_path(ctx, path)
        return real, display, None, content.encode("utf-8", "surrogateescape")
    if resolved.is_dir:
        raise NotAFile(f"{resolved.display} is a directory; write a file inside it.")
    original = read_regular_file(resolved)
    text_file = decode(original, resolved.display, ctx.limits.sniff_bytes)
    known = knowledge_of(ctx, resolved, text_file)
    total = len(text_file.lines)
    missing = known.missing(1, total)
    if total and (known.seen_hash is None or known.changed_since is not None or missing):
        since = "changed since you read it" if known.changed_since else "is not fully known to you"
        first = min(missing) if missing and not known.changed_since else 1
        raise EditRefused(
            f"write would replace all {total} lines of {resolved.display}, which {since}, so nothing was written; "
            f"read it first (offset={first}) or change it with edit."
        )
    old_lines = text_file.raw_lines if text_file.raw_lines is not None else text_file.lines
    old_text = "\n".join(old_lines) + ("\n" if text_file.final_newline and old_lines else "")
    refuse_markers(content, argument="content", allowed=old_text)
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


def run(ctx: ToolContext, request: WriteRequest, call_id: str) -> ToolResult:
    """Execute one ``write``; the new version counts as seen whole.

    Raises:
        LeanreadError: a bad or denied path, content carrying leanread's display markers, an
            unencodable character, or a file the model has not seen whole (``EditRefused``);
            nothing is written then.
    """
    with file_lock(_target(ctx, request.path)):
        real, display, original, data = _replacement(ctx, request.path, request.content)
        make_folders(os.path.dirname(real), display)
        replace_if_unchanged(real, display, original, data)
    created = original is None
    after, new_file = reload(ctx, real)
    lines = whole_lines(new_file) or []
    ctx.ledger.put_version(new_file.content_hash, "\n".join(lines))
    record_view(ctx, call_id, after, new_file, ranges_of(range(1, len(lines) + 1)), kind="write")
    verb = "Created" if created else "Wrote"
    noun = "line" if len(lines) == 1 else "lines"
    text = f"{verb} {display}: {len(lines)} {noun}, {len(data):,} byte{'' if len(data) == 1 else 's'}."
    metadata = {
        "call_id": call_id,
        "path": display,
        "type": "write",
        "created": created,
        "content_hash": new_file.content_hash,
        "size": new_file.size,
        "tokens": count_tokens(text),
    }
    return ToolResult(text, metadata=metadata)
