"""A tool result as a shell command prints it: the lines without the ``<path>``/``<content>``
envelope, numbered (``41<TAB>text``, leanread's ``tab`` form) when the command asked for numbers,
a search's files, in its rows and its notes, named as grep names them from the folder the search
runs in (after the command's ``cd``), and every hint that names a tool parameter (``offset=``,
``fresh=true``, ``include_ignored=true``) given as the shell command that does it, run where the
agent ran its own: after the same ``cd`` (``cd json && leanread grep X tool.py --offset 101``; a
stub's: the agent's own command behind ``command``).

When a line of a file's among the lines printed reads like leanread's frame, they are sealed as a
read's content is (``frame.seal``: a notice, then ``<content id="X">`` … ``</content id="X">``,
leanread's own lines ending with ``[X]``), so no file can pose as leanread's notices or markers.

Pure functions of the result; the stub, diff, markers and outline themselves are the session's.
"""

from __future__ import annotations

import os
import re
import shlex
from functools import partial

from ..files.textfile import shown
from ..result import ToolResult
from ..view.frame import Own, needs_seal, seal, unframed
from ..view.rows import ROW_PREFIX
from .asks import GrepAsk

#: A marker of lines the model has: ``… lines 40-44 unchanged since you read them …``.
_MARKER = re.compile(r"^… lines? (\d+)(?:-(\d+))? ")
#: The sentence of an unchanged stub that names ``fresh=true``.
_FRESH = re.compile(r"Use fresh=true to see (them|it) again\.")
#: The outline's sentence on how to read a part (parameters of the read tool).
_OUTLINE_HOW = re.compile(r"Read (?:a|any) part with offset and limit.*$")
#: A cut line's hint, in a notice (rows are the file's lines, never rewritten).
_CHAR_OFFSET = re.compile(r"offset=(\d+|N), char_offset=(\d+)")
#: An outline's hints to read on as an outline.
_OUTLINE_ON = re.compile(r'offset=(\d+), mode="outline"')
_OUTLINE_INSIDE = re.compile(r' with mode="outline", e\.g\. offset=(\d+)')
#: A grep row's cut: ``[line cut: match at column 2,400 of 9,000 chars; read on with offset=12, char_offset=2301]``.
_GREP_CUT = re.compile(r"read on with offset=(\d+), char_offset=(\d+)\]$")
#: A row of a files-only listing: ``path (3 matches)``.
_FILES_ROW = re.compile(r"^(.+)( \([\d,]+ match(?:es)?\))$")
#: A grep page's hint.
_GREP_MORE = re.compile(r"Use offset=(\d+) to continue")
#: A grep note's hint to search the files an ignore file leaves out.
_IGNORED = re.compile(r"include_ignored=true (searches (?:it|them))")
#: A definition row of an outline: ``24-30<TAB>app = typer.Typer(``.
_OUTLINE_RANGE = re.compile(r"^(\d+)-(\d+)\t")


def window_command(path: str, first: int, last: int | None, numbered: bool) -> str:
    """The shell command printing lines ``first..last`` of ``path`` (quoted), numbered or not."""
    if first == 1 and last is None:
        return f"nl -ba {path}" if numbered else f"cat {path}"
    end = "$" if last is None else str(last)
    if numbered:
        return f"nl -ba {path} | sed -n '{first},{end}p'"
    return f"sed -n '{first},{end}p' {path}"


def read_text(
    result: ToolResult, path: str, numbered: bool, first: int, last: int | None, again: str, lead: str
) -> str:
    """What ``sed``/``cat``/``nl`` print for a read of lines ``first..last`` (None: to the end)
    of ``path`` (as the agent wrote it, quoted), from the read's result; a stub names ``again``,
    the agent's command run as it is (``Recognised.again``), to print the lines again; every other
    command printed starts with ``lead`` (``Recognised.lead``: the agent's ``cd``)."""
    if result.is_error:
        return result.text
    meta = result.metadata
    body, after = unframed(result.text)
    rows, notices = _content_and_notices(body, meta)
    if meta.get("type") == "outline":
        rows = [Own(_outline_header(rows[0], path, rows, lead)), *rows[1:]] if rows else rows
        rows = [Own(_hints(row, path, lead)) if row.startswith("(") else row for row in rows]  # rows: N<TAB>…
    elif meta.get("mode") == "stub":
        rows = [Own(_FRESH.sub(lambda m: f"Run `{again}` to print {m.group(1)} again.", row)) for row in rows]
    elif numbered and meta.get("mode") in ("full", "elided"):
        rows = _numbered(rows, int(meta.get("offset") or first))
    kept = [Own(n) for n in (_notice(n, meta, path, numbered, last, lead) for n in notices) if n]
    return _printed_lines([*rows, *(["", *kept] if kept or after else [])], after)  # a blank row: never a file line


def _printed_lines(lines: list[str], after: str = "") -> str:
    """``lines`` as printed, then ``after`` (an instruction file's reminder, sealed on its own):
    sealed (``frame.seal``) when a line of a file's among them reads like leanread's frame."""
    shown_lines = seal("content", lines, after) if needs_seal(lines) else lines
    return "\n".join([*shown_lines, *([after] if after else [])])


def _content_and_notices(rows: list[str], meta: dict[str, object]) -> tuple[list[str], list[str]]:
    """The rows of a read's body (leanread's ``Own``, as ``frame.unframed`` gives them), split
    into the content and the notices after it. In a full or elided window the content is counted
    (each file line a row, a marker, leanread's, its lines), so a file line that looks like a
    notice or a marker stays content."""
    offset, last = meta.get("offset"), meta.get("last_line")
    if meta.get("type") == "file" and meta.get("mode") in ("full", "elided") and isinstance(offset, int):
        if not isinstance(last, int) or last < offset:
            return [], [r for r in rows if r]
        n, k = offset, 0
        while k < len(rows) and n <= last:
            marker = _MARKER.match(rows[k]) if isinstance(rows[k], Own) else None
            n = int(marker.group(2) or marker.group(1)) + 1 if marker and int(marker.group(1)) == n else n + 1
            k += 1
        return rows[:k], [r for r in rows[k:] if r]
    cut = len(rows)
    while cut >= 2 and rows[cut - 1].startswith("(") and rows[cut - 1].endswith(")"):
        cut -= 1
        if rows[cut - 1] == "":
            return rows[: cut - 1], rows[cut:]
    return rows, []


def _numbered(rows: list[str], first: int) -> list[str]:
    """``N<TAB>row`` for each file line from ``first`` on; a marker row (``Own``) keeps its text
    and moves the count past the lines it stands for."""
    out: list[str] = []
    n = first
    for row in rows:
        marker = _MARKER.match(row) if isinstance(row, Own) else None
        if marker and int(marker.group(1)) == n:
            out.append(row)
            n = int(marker.group(2) or marker.group(1)) + 1
            continue
        out.append(f"{n}\t{row}")
        n += 1
    return out


def _outline_header(header: str, path: str, rows: list[str], lead: str) -> str:
    """The outline's first notice with its how-to in shell commands."""
    ranges = [m for r in rows if (m := _OUTLINE_RANGE.match(r))]
    a, b = (ranges[0].group(1), ranges[0].group(2)) if ranges else ("1", "40")
    how = (
        f"Print a part with `{lead}sed -n '{a},{b}p' {path}` (any row's lines), "
        f"or all of it with `{lead}command cat {path}`.)"
    )
    return _OUTLINE_HOW.sub(how, header)


def _hints(notice: str, path: str, lead: str) -> str:
    """A notice with its read-tool parameters given as ``leanread read`` commands."""
    notice = _CHAR_OFFSET.sub(lambda m: _read_on(path, lead, m), notice)
    outline = f"`{lead}leanread read {path} --offset {{}} --mode outline`"
    notice = _OUTLINE_ON.sub(lambda m: outline.format(m.group(1)), notice)
    return _OUTLINE_INSIDE.sub(lambda m: ", e.g. " + outline.format(m.group(1)), notice)


def _read_on_row(path: str, lead: str, found: re.Match[str]) -> str:
    return f"read on with {_read_on(path, lead, found)}]"


def _read_on(path: str, lead: str, found: re.Match[str]) -> str:
    return f"`{lead}leanread read {path} --offset {found.group(1)} --char-offset {found.group(2)}`"


#: The notices of where a window stops, which the shell form says itself (or not at all).
_WHERE = re.compile(r"^\((Showing lines|End of file|Output capped)")


def _notice(notice: str, meta: dict[str, object], path: str, numbered: bool, last: int | None, lead: str) -> str:
    """A notice as the shell form gives it: where the window stops only when it stopped before
    the lines asked for (sed says nothing either), with the command for the rest; others with
    their hints as commands."""
    if not _WHERE.match(notice):
        return _hints(notice, path, lead)
    shown_last, following = meta.get("last_line"), meta.get("next_offset")
    if not isinstance(shown_last, int) or not isinstance(following, int):
        return ""
    if last is not None and shown_last >= last:
        return ""
    rest = window_command(path, following, last, numbered)
    return (
        f"(Showing lines {meta.get('offset')}-{shown_last} of {meta.get('total_lines')}. "
        f"Run `{lead}{rest}` for the rest.)"
    )


def grep_text(result: ToolResult, ask: GrepAsk, operand: str | None, lead: str) -> str:
    """A search of ``operand`` (a file or folder as the agent wrote it; None: none, the folder
    the command runs in) as printed: leanread's grouped rows, each file's under its path as grep
    prints it (``_printed``), the notes naming paths so too (``_renamed``); a page's hint as the
    ``leanread grep`` command of the next page, an ignored file's as the one that searches it, a
    cut row's as the ``leanread read`` of its rest, each after ``lead`` (``Recognised.lead``)."""
    if result.is_error:
        return result.text
    words = ["leanread", "grep", shlex.quote(ask.pattern), shlex.quote(operand or ".")]
    words += ["-i"] if ask.case_insensitive else []
    words += [f"-B {ask.before}"] if ask.before else []
    words += [f"-A {ask.after}"] if ask.after else []
    words += ["-l"] if ask.files_only else []
    words += [f"-g {shlex.quote(ask.glob)}"] if ask.glob else []
    words += [f"-t {ask.type}"] if ask.type else []
    command = lead + " ".join(words)
    where = shown(str(result.metadata.get("path") or "."))
    rows, _ = unframed(result.text)
    notes = _notes_start(rows, result)
    out: list[str] = []
    current = ""  # the path of the file whose rows follow, as printed
    bare = False  # the rows that follow are of the folder searched, which grep names bare
    for i, row in enumerate(rows):
        if isinstance(row, Own) or (row and i >= notes):
            out.append(Own(_note(row, where, operand, command)))
        elif not row or ROW_PREFIX.match(row):
            out.append(_GREP_CUT.sub(partial(_read_on_row, shlex.quote(current), lead), row))
        elif row.startswith("  "):  # a file of a files-only listing, below its folder's row
            out.append(row[2:] if bare else row)
        elif row.endswith("/") and not _printed(row[:-1], where, operand):
            bare = True  # grep -l names the files of the folder it searches without a folder
        else:
            current, bare = _path_row(row, where, operand), False
            out.append(current)
    return _printed_lines(out)


def _notes_start(rows: list[str], result: ToolResult) -> int:
    """The index of a grep result's first note: after the blank row that ends its rows; all of
    it when nothing matched."""
    if not (result.metadata.get("total_matches") or result.metadata.get("total_files")):
        return 0
    return rows.index("") if "" in rows else len(rows)


def _note(note: str, where: str, operand: str | None, command: str) -> str:
    """A grep note as the shell form gives it: its paths as grep prints them, its hints as the
    commands that do them (``command``: the search's own)."""
    note = _renamed(note, where, operand)
    note = _GREP_MORE.sub(lambda m: f"Run `{command} --offset {m.group(1)}` to continue", note)
    return _IGNORED.sub(lambda m: f"`{command} --include-ignored` {m.group(1)}", note)


def _renamed(note: str, where: str, operand: str | None) -> str:
    """``note`` with the paths it names at and below ``where`` (the workspace's name of the place
    searched: ``json``, ``json/tool.py``) as grep prints them for ``operand`` (``_printed``):
    ``json/tool.py`` as ``./tool.py`` after ``cd json && grep -rn X .``, the place itself as the
    operand (``.`` for none). A path below ``where`` starts a word with ``where/``; the place
    itself starts a note about a file (``(json/tool.py has CR line endings``) or ends one that
    says where nothing matched (``(No matches in json/tool.py.)``). The workspace's own paths
    (``where`` is ``.``) stay as they are."""
    if where == ".":
        return note
    name = re.escape(where)
    below = "" if operand is None else operand.rstrip("/") + "/"
    note = re.sub(rf"(?<=[(\s]){name}/", lambda _: below, note)
    return re.sub(rf"(?<=^\(){name}(?= has | changed | \()|(?<= in ){name}(?=[.;])", lambda _: operand or ".", note)


def _path_row(row: str, where: str, operand: str | None) -> str:
    """A grep result's row that names a path below ``where`` (a file's, ``path (3 matches)`` or
    a folder's ``path/`` in a files-only listing) with the path as grep prints it."""
    counted = _FILES_ROW.match(row)
    if counted:
        return _printed(counted.group(1), where, operand) + counted.group(2)
    if row.endswith("/"):
        return os.path.join(_printed(row[:-1], where, operand), "")
    return _printed(row, where, operand)


def _printed(path: str, where: str, operand: str | None) -> str:
    """``path``, at or below the ``where`` searched, as grep prints it for ``operand`` as the
    agent wrote it: the operand itself (a file), or the operand and the path below it
    (``./tool.py`` for ``.``, ``json/tool.py`` for ``json``; ``tool.py`` for no operand, and
    "" for the folder itself)."""
    below = os.path.relpath(path, where)
    if below == ".":
        return operand or ""
    return below if operand is None else os.path.join(operand, below)
