"""The reader of directories: the sorted entries, folders ending with ``/``, FIFOs, sockets and
devices saying what they are, as one window."""

from __future__ import annotations

import os

from ...errors import InvalidArgument, PathError
from ...files.names import show_path
from ...files.workspace import unopened
from ...result import ToolResult
from ...tokens import count_tokens
from ...view.render import render_window, select_window
from .focus import unfocused
from .request import Job, first_line
from .shared import window_metadata


def _entry_name(entry: os.DirEntry[str]) -> str:
    """The listed name: folders end with ``/``; a FIFO, socket or device says what it is and that
    read does not open it (``pipe (a FIFO (named pipe); read does not open it)``, as ``ls`` shows
    it; never opened); a link that cannot be followed (a loop, a missing target) is listed as it
    is; the name is escaped as every path is (``names.show_path``)."""
    try:
        is_dir = entry.is_dir()
    except OSError:
        is_dir = False
    return show_path(entry.name) + ("/" if is_dir else _unopened(entry))


def _unopened(entry: os.DirEntry[str]) -> str:
    """What follows the name of an entry that is no folder: its mark when it is a FIFO, socket or
    device itself (``workspace.unopened``; a link is listed as it is), else nothing."""
    try:
        if entry.is_symlink() or entry.is_file(follow_symlinks=False):
            return ""
        return unopened(entry.stat(follow_symlinks=False).st_mode) or ""
    except OSError:
        return ""


def read(job: Job) -> ToolResult:
    """The directory's entries as a window (offset and limit count entries); never pruned by focus.

    Raises:
        InvalidArgument: char_offset given, or offset past the last entry.
        PathError: the directory cannot be listed.
    """
    ctx, request, resolved = job.ctx, job.request, job.resolved
    if request.char_offset is not None:
        raise InvalidArgument(f"{resolved.display} is a directory; char_offset applies to file lines only.")
    try:
        with os.scandir(resolved.real) as entries:
            names = sorted(_entry_name(entry) for entry in entries)
    except OSError as exc:
        raise PathError(f"Cannot list {resolved.display}: {exc.strerror}.") from None
    first = first_line(request, resolved.display, len(names))
    window = select_window(names, first, request.limit or ctx.limits.max_lines, ctx.limits, "plain")
    text = render_window(resolved.display, window, "plain", ctx.limits, final_newline=True, kind="directory")
    metadata = window_metadata(job.call_id, resolved.display, "directory", window, count_tokens(text))
    return unfocused(ctx, ToolResult(text, metadata=metadata), request.focus, "directory")
