"""``read(symbol=…)`` without a path and ``grep(symbol=…)``: the workspace's symbol index
(``leanread.symbols``) behind the two tools.

- read: one definition found → that definition, read as ``read(path, offset, limit)`` reads it
  (recorded in the ledger, edit grants included), after one line that says where it was found;
  a class (interface, namespace) over ``MAP_LINES`` lines → its map: each member's lines and
  signature, with the read calls (agents read a part of a big class, not all of it);
  several → the ranked list with the exact ``read`` call of each; none → one sentence with the
  next step.
- grep: the uses of the name, labelled and grouped (``symbols.render.references_rows``),
  narrowed to ``path`` when given.

A list, a map and the uses show the files' paths, signatures and lines among leanread's own
rows: sealed in a read's envelope as grep is (``frame.plain_or_framed``, ``<type>symbols</type>``
or ``references``, the folder looked in as its path) when a file's text reads like the frame.

``full_tokens`` (what the plain full answer costs, ``ToolResult``): an answer that is one
definition of one file, read or as its map, stands for the plain full read of that whole file
(as ``read(path, symbol=…)`` does); a list of definitions, the sentence that there is none and
the uses stand for no read (an agent without them searches; which files it then reads is not
known), so theirs is their own ``tokens``.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import replace

from ..errors import InvalidArgument, LeanreadError
from ..files.names import parse_path
from ..files.textfile import load_text
from ..result import ToolResult
from ..symbols import Answer, Found, find_likely, find_references
from ..symbols.render import (
    MAX_REFERENCES,
    definitions_rows,
    likely_note,
    members_rows,
    no_definition_text,
    others_line,
    references_rows,
    skipped_note,
    targets_note,
)
from ..tokens import count_tokens
from ..view.frame import Own, plain_or_framed
from .common import ToolContext, replaces_nothing

#: A class, interface or namespace longer than this (lines) comes as its members' map, not whole.
MAP_LINES = 30


def _answer(find: Callable[..., Answer], ctx: ToolContext, symbol: str) -> Answer:
    """``find``'s answer; an index that cannot be opened or written is one sentence."""
    try:
        return find(ctx.workspace, ctx.policy, symbol)
    except sqlite3.Error as exc:
        raise LeanreadError(
            f"The symbol index beside the ledger cannot be used ({exc}); check that its folder is writable, "
            "or search with grep(pattern=…)."
        ) from None


def _index_metadata(answer: Answer) -> dict[str, object]:
    return {
        "definitions_found": answer.total,
        "indexed_files": answer.files,
        "skipped_files": answer.skipped,
        "index_read": sum(r.read for r in answer.refreshes),
        "index_seconds": round(sum(r.seconds for r in answer.refreshes), 4),
    }


def _rows_text(where: str, kind: str, rows: Sequence[str], note: str) -> str:
    """``rows`` and the last line ``note`` ("" for none) as the answer's text (``where``: the
    folder looked in, as shown; ``kind``: ``symbols`` or ``references``), sealed when a file's
    text among them reads like the frame."""
    return plain_or_framed(where, kind, [*rows, *([Own(note)] if note else [])])


def _plain(text: str, call_id: str, answer: Answer, kind: str) -> ToolResult:
    metadata = {"call_id": call_id, "type": kind, **replaces_nothing(text), **_index_metadata(answer)}
    return ToolResult(text, metadata=metadata)


def _near(ctx: ToolContext) -> tuple[str | None, str]:
    """The file the session read last (realpath, and as shown), when there is one: a name is
    looked up as that file sees it."""
    shown = ctx.ledger.last_path(ctx.session_id)
    real = ctx.workspace.locate(shown) if shown else None
    return (real, shown or "") if real is not None and os.path.isfile(real) else (None, "")


def read_symbol(
    ctx: ToolContext,
    symbol: str,
    call_id: str,
    read: Callable[[str, int, int], ToolResult],
    whole: Callable[[str], int],
    within: str | None = None,
) -> ToolResult:
    """The answer to ``read(symbol=symbol)`` without a path (as the file read last sees the
    name), or with the folder ``within`` (a realpath: that folder's definitions, ranked);
    ``read(path, offset, limit)`` reads one definition as the read tool does, its ``full_tokens``
    the whole file's; ``whole(path)`` gives the tokens of the plain full read of a file (a big
    class's map stands for it). See the module docstring for ``full_tokens``.

    Raises:
        InvalidArgument: the name is empty.
        LeanreadError: ripgrep is missing while a root is listed, the read refuses, or the file
            of a big class's map cannot be read.
    """
    if not symbol.strip():
        raise InvalidArgument('symbol is empty; pass a name such as "Store.get", or a path to read.')
    near, near_shown = _near(ctx) if within is None else (None, "")
    answer = _answer(lambda w, p, q: find_likely(w, p, q, near, within), ctx, symbol)
    found = answer.definitions
    where = "." if within is None else ctx.workspace.display(within)
    if not found:
        text = no_definition_text(symbol, answer.files, skipped_note(answer.skipped))
        return _plain(text, call_id, answer, "symbols")
    if len(found) > 1:
        rows = definitions_rows(symbol, found, str, answer.total, answer.resolved_from, near_shown)
        result = _plain(_rows_text(where, "symbols", rows, ""), call_id, answer, "symbols")
        result.metadata["definitions"] = [_row(f) for f in found]
        return result
    definition = found[0].definition
    if found[0].members and definition.last - definition.first + 1 > MAP_LINES:
        rows = members_rows(symbol, found[0], str)
        text = _rows_text(where, "symbols", rows, others_line(symbol, answer.total - 1))
        result = _plain(text, call_id, answer, "symbols")
        result.metadata.update(definitions=[_row(found[0])], full_tokens=whole(parse_path(found[0].path)))
        return result
    shown = read(parse_path(found[0].path), definition.first, definition.last - definition.first + 1)
    if shown.is_error:
        return shown
    note = likely_note(symbol, found[0], answer.total, answer.resolved_from, str) + "\n"
    metadata = {**shown.metadata, **_index_metadata(answer), "definitions": [_row(found[0])]}
    metadata["tokens"] = count_tokens(note + shown.text)
    return replace(shown, text=note + shown.text, metadata=metadata)


def _via(found: Found) -> str:
    return f", {found.via}" if found.via else ""


def _row(found: Found) -> dict[str, object]:
    d = found.definition
    return {"path": found.path, "name": d.name, "kind": d.kind, "first": d.first, "last": d.last, "line": d.line}


def _line_reader(ctx: ToolContext) -> Callable[[str, int], str]:
    """``line_text(path, n)``: line ``n`` of the file ``path`` (as the index shows it:
    ``names.show_path``) as ``read`` decodes it (each file loaded once), ``""`` when the file
    cannot be read as text or has no such line."""
    files: dict[str, Sequence[str]] = {}

    def line_text(path: str, n: int) -> str:
        if path not in files:
            try:
                files[path] = load_text(ctx.workspace.resolve(parse_path(path)), ctx.limits).lines
            except (LeanreadError, OSError):
                files[path] = ()
        lines = files[path]
        return lines[n - 1] if 0 < n <= len(lines) else ""

    return line_text


def grep_symbol(ctx: ToolContext, symbol: str, path: str | None, limit: int | None, call_id: str) -> ToolResult:
    """The answer to ``grep(symbol=symbol)``: the uses, narrowed to the file or folder ``path``.

    Raises:
        InvalidArgument: the name is empty.
        LeanreadError: ``path`` is outside the workspace or denied; ripgrep is missing.
    """
    if not symbol.strip():
        raise InvalidArgument('symbol is empty; pass a name such as "Store.get", or a pattern.')
    near, _ = _near(ctx)
    answer = _answer(lambda w, p, q: find_references(w, p, q, near), ctx, symbol)
    if not answer.definitions:
        text = no_definition_text(symbol, answer.files, skipped_note(answer.skipped))
        return _plain(text, call_id, answer, "references")
    uses = answer.references
    where = "." if path is None else ctx.workspace.resolve(path).display
    if where != ".":
        inside = where.rstrip("/") + "/"
        uses = [u for u in uses if u.path == where or u.path.startswith(inside)]
    rows = references_rows(symbol, answer.definitions, uses, str, _line_reader(ctx), limit or MAX_REFERENCES)
    note = targets_note(symbol, len(answer.definitions), answer.total, answer.resolved_from, str)
    result = _plain(_rows_text(where, "references", rows, note), call_id, answer, "references")
    result.metadata["references"] = [
        {"path": u.path, "line": u.line, "label": u.label, "enclosing": u.enclosing} for u in uses
    ]
    return result
