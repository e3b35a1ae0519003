"""Step 5 of ``grep``: the model-visible text around the rows: the summary line, the files-only
listing, and the page as shown without focus."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ...errors import InvalidArgument
from ...files.textfile import shown
from ...result import ToolResult
from ...tokens import count_tokens
from ...view.frame import Own, plain_or_framed
from ...view.render import byte_size
from ...view.rows import CONTEXT_CUT, ROW_PREFIX
from ..common import ToolContext, replaces_nothing
from .assemble import Focused, Shown, assemble
from .request import plural


@dataclass(frozen=True)
class Showing:
    """The page as it will be shown: its files' rows, the notes on files left out, the number of
    its last match, its summary line, why it stops early (``"bytes"``, ``"limit"`` or None); with
    a focus question the pruned rows (``focused``, None: shown whole), the ``focus`` metadata and
    the text before pruning (``unpruned``)."""

    files: list[Shown]
    notes: list[str]
    last: int
    summary: str
    truncated: str | None
    focused: Focused | None = None
    focus: dict[str, Any] | None = None
    unpruned: str | None = None

    def pruned(self, focused: Focused | None, focus: dict[str, Any], unpruned: str | None) -> Showing:
        """This page with the outcome of its focus question (``focus.prune_page``)."""
        files = focused.files if focused is not None else self.files
        return replace(self, files=files, focused=focused, focus=focus, unpruned=unpruned)


def showing(
    ctx: ToolContext,
    paged: tuple[list[Shown], list[str], int, bool],
    where: str,
    first: int,
    total: int,
    file_count: int,
) -> Showing:
    """The page ``paged`` (as ``assemble.Pager`` gives it) of ``total`` matches in ``file_count``
    files, from match ``first`` on."""
    files, notes, consumed, capped = paged
    last = first + consumed - 1
    truncated = "bytes" if capped else "limit" if last < total else None
    return Showing(files, notes, last, summary_line(where, total, file_count, first, last, capped, ctx), truncated)


def metadata_of(
    call_id: str,
    where: str,
    page: Showing,
    total: int,
    file_count: int,
    first: int,
    matches: list[dict[str, Any]],
    literal: bool,
    text: str,
) -> dict[str, Any]:
    """The result's metadata: counts, paging, the matches shown (id, path, line, column), whether
    the pattern was searched as literal text, tokens of ``text``, ``full_tokens`` (the page the
    same search shows without focus: ``focus.tokens_before`` when pruned, else ``tokens``), and
    ``focus`` when asked."""
    last = page.last
    tokens = count_tokens(text)
    before = page.focus.get("tokens_before") if page.focus is not None and page.focused is not None else None
    metadata: dict[str, Any] = {
        "call_id": call_id,
        "path": where,
        "type": "grep",
        "total_matches": total,
        "total_files": file_count,
        "offset": first,
        "last_match": last if total else None,
        "next_offset": last + 1 if last < total else None,
        "truncated": page.truncated,
        "matches": matches,
        "literal": literal,
        "tokens": tokens,
        "full_tokens": before if isinstance(before, int) else tokens,
    }
    if page.focus is not None:
        metadata["focus"] = page.focus
    return metadata


def no_matches(where: str, no_ignore: bool = False, named: bool = False) -> str:
    """The line of a search that found nothing in ``where``; ``no_ignore``: ignored files were
    searched; ``named``: ``where`` is a file, searched even when ignored or binary (a deny-listed
    one is refused before), so no reason of a folder's search applies."""
    place = "the workspace" if where == "." else shown(where)
    if named:
        return f"(No matches in {place}.)"
    if no_ignore:
        return f"(No matches in {place}; binary and deny-listed files are not searched.)"
    return f"(No matches in {place}; gitignored, binary and deny-listed files are not searched.)"


def summary_line(where: str, total: int, file_count: int, first: int, last: int, capped: bool, ctx: ToolContext) -> str:
    """The last line of a page of matches ``first``-``last`` of ``total``: the counts, and how to
    page on when ``last`` < ``total`` ("" for a whole result); ``capped``: the byte cap stopped the
    page."""
    if not total:
        return no_matches(where)
    files = plural(file_count, "file")
    if first == 1 and last == total:  # the rows say it all
        return ""
    showing = f"Showing matches {first}-{last} of {total} in {files}."
    if capped:
        showing = f"Output capped at {byte_size(ctx.limits.max_bytes)}. {showing}"
    if last < total:
        showing += f" Use offset={last + 1} to continue, or narrow the search with path, glob or type."
    return f"({showing})"


def grep_text(where: str, body: Sequence[str], notes: Sequence[str]) -> str:
    """A grep result's text: the rows (``bare_context``), then a blank line and the notes (empty
    ones left out). When a row could pass for leanread's frame (a repository's file named
    ``</content>`` or ``<system-reminder>…``; match rows start with their line number, so only
    names can), the result is sealed like a read (``frame.plain_or_framed``), so no file can pose
    as the tool."""
    tail = [Own(note) for note in notes if note]
    body = bare_context(body)
    return plain_or_framed(shown(where), "grep", [*body, "", *tail] if body and tail else [*body, *tail])


def bare_context(rows: Sequence[str]) -> list[str]:
    """``rows`` with each context row that comes right after the row of the line before it put as
    ``<TAB>text``: its number is the one before plus 1, as a read's lines go unnumbered (about 3
    tokens a row of four digits). A file's first row, a row after a gap, one after a marker row
    (``… lines 16-24 unchanged …``) and a cut one (its number is what a read of the rest needs)
    keep their number; a match's row always does."""
    out: list[str] = []
    previous = None
    for row in rows:
        found = None if isinstance(row, Own) else ROW_PREFIX.match(row)
        number = int(found.group(1)) if found and found.group(1) else None
        if found and found.group(2) and previous is not None and number == previous + 1 and not CONTEXT_CUT.search(row):
            row = row[found.end() - 1 :]
        out.append(row)
        previous = number
    return out


def page_text(shown_files: Sequence[Shown], where: str, notes: Sequence[str], summary: str) -> str:
    """The page as grep shows it without focus (``where``: the folder searched, kept for callers)."""
    count = sum(len(s.matches) for s in shown_files)
    body, _ = assemble(shown_files, [f"m{i + 1}" for i in range(count)])
    return grep_text(where, body, [*notes, summary])


def by_folder(counts: Sequence[tuple[str, int]]) -> list[str]:
    """The rows of a files-only page: ``path (N matches)`` per file (paths sorted), except that
    two or more files in a row from one folder come under its path, ``folder/``, each as
    ``  name (N matches)``: a deep folder's path is written once, not once per file."""
    rows: list[str] = []
    i = 0
    while i < len(counts):
        folder = os.path.dirname(counts[i][0])
        j = i
        while j < len(counts) and os.path.dirname(counts[j][0]) == folder:
            j += 1
        if j - i > 1 and folder:
            rows.append(shown(folder + "/"))
            rows.extend(f"  {shown(os.path.basename(p))} ({plural(n, 'match')})" for p, n in counts[i:j])
        else:
            rows.extend(f"{shown(p)} ({plural(n, 'match')})" for p, n in counts[i:j])
        i = j
    return rows


def files_only(
    ctx: ToolContext,
    call_id: str,
    where: str,
    files: Sequence[Any],
    total: int,
    first: int,
    cap: int,
    notes: Sequence[str] = (),
    no_match: str | None = None,
) -> ToolResult:
    """The files that match, ``path (N matches)`` one per line (``by_folder``: files of one folder
    under its path), paged over files, ``notes`` before the summary; ``no_match``: the summary
    when nothing matched (default ``no_matches(where)``)."""
    if total and first > len(files):
        raise InvalidArgument(
            f"offset={first} is past the last file: {plural(len(files), 'file')} match; "
            f"use an offset from 1 to {len(files)}."
        )
    page = files[first - 1 : first - 1 + cap]
    rows = by_folder([(ctx.workspace.display(f.path), f.count) for f in page])
    last = first + len(page) - 1
    if not total:
        summary = no_match or no_matches(where)
    elif last < len(files):
        summary = (
            f"(Showing files {first}-{last} of {len(files)}, {plural(total, 'match')} in all. "
            f"Use offset={last + 1} to continue.)"
        )
    else:
        summary = ""
    text = grep_text(where, rows, [*notes, summary])
    metadata: dict[str, Any] = {
        "call_id": call_id,
        "path": where,
        "type": "grep",
        "files_only": True,
        "total_matches": total,
        "total_files": len(files),
        "offset": first,
        "next_offset": last + 1 if last < len(files) else None,
        **replaces_nothing(text),
    }
    return ToolResult(text, metadata=metadata)
