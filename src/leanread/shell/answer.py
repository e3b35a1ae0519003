"""Answer a recognised command through a ``Session``: each read and search is a ``read`` or
``grep`` tool call, so the stub, diff, markers and outline come from the session's ledger
exactly as the tools give them; ``render`` turns each result into what the shell prints.

Before any call, every file a command names must be a text file inside the workspace (and a
plain ``grep`` must name files, not folders): otherwise the command is passed through, so its
own error or output is what the agent sees.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass

from ..documents import registry as document_registry
from ..errors import LeanreadError
from ..files.textfile import LINE_INDEXES
from ..files.workspace import Resolved, read_regular_file
from ..result import ToolResult
from ..session import Session
from .asks import Ask, GrepAsk, Passed, ReadAsk, Recognised
from .render import grep_text, read_text

#: Files up to this many bytes are counted whole for ``tail``; bigger ones through a line index.
_COUNT_WHOLE_BYTES = 8 << 20


@dataclass(frozen=True)
class Answered:
    """What a recognised command prints (``stdout``, ending with a newline unless empty), its
    exit status (a search that matched nothing: 1, as grep), and the tool results it came from."""

    stdout: str
    status: int
    results: tuple[ToolResult, ...]
    #: the text printed for each result, in order (``stdout`` joins them)
    texts: tuple[str, ...] = ()


def answer(session: Session, recognised: Recognised, cwd: str) -> Answered | Passed:
    """Run ``recognised`` (taken in ``cwd``, an absolute folder) through ``session``; ``Passed``
    when a file it names is not one leanread reads as text (the command then runs as it is)."""
    base = os.path.normpath(os.path.join(cwd, recognised.cd))
    checked: list[tuple[Ask, list[Resolved]]] = []
    for ask in recognised.asks:
        found = _servable(session, ask, base)
        if isinstance(found, Passed):
            return found
        checked.append((ask, found))
    texts: list[str] = []
    results: list[ToolResult] = []
    status = 0
    for ask, resolved in checked:
        if isinstance(ask, ReadAsk):
            result, text = _read(session, ask, resolved[0], base, recognised)
            if result is None:
                continue
            results.append(result)
        else:
            found_any, grep_results, text = _grep(session, ask, base, recognised.lead)
            results += grep_results
            status = status or (0 if found_any else 1)
        texts.append(text)
    return Answered("".join(f"{text}\n" for text in texts), status, tuple(results), tuple(texts))


def _servable(session: Session, ask: Ask, base: str) -> list[Resolved] | Passed:
    """The resolved files (or folders, for a recursive search) of ``ask``, or why not."""
    paths = ask.paths if isinstance(ask, GrepAsk) else (ask.path,)
    if isinstance(ask, GrepAsk) and not paths:
        paths = (".",)
    out: list[Resolved] = []
    for path in paths:
        try:
            resolved = session.workspace.resolve(os.path.join(base, path))
        except (LeanreadError, OSError):
            return Passed("a path outside the workspace, missing or denied")
        if resolved.is_dir:
            if isinstance(ask, ReadAsk) or ask.files_required:
                return Passed("a folder where a file was expected")
        elif _kind(session, resolved) != "text":
            return Passed("not a text file")
        out.append(resolved)
    return out


def _kind(session: Session, resolved: Resolved) -> str:
    try:
        head = read_regular_file(resolved, session.limits.sniff_bytes)
    except (LeanreadError, OSError):
        return "unreadable"
    if b"\0" in head:
        return "binary"
    return document_registry.document_kind(resolved.display, head) or "text"


def total_lines(resolved: Resolved) -> int:
    """Lines of the file as ``tail`` counts them (a last line without a newline counts)."""
    if resolved.size <= _COUNT_WHOLE_BYTES:
        data = read_regular_file(resolved)
        return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    return LINE_INDEXES.get(resolved.real, resolved.size, resolved.mtime_ns).total_lines


def _read(
    session: Session, ask: ReadAsk, resolved: Resolved, base: str, recognised: Recognised
) -> tuple[ToolResult | None, str]:
    """One read; (None, "") when its window holds no line (``sed`` prints nothing there)."""
    if ask.whole:
        first, last = 1, None
    elif ask.window.tail is not None or ask.window.last is None:
        total = total_lines(resolved)
        first, end = ask.window.resolve(total)
        last = None if ask.window.last is None and ask.window.tail is None else end
        if first > max(end, 0):
            return None, ""
    else:
        first, last = ask.window.first, ask.window.last
    limit = None if last is None else last - first + 1
    path = os.path.join(base, ask.path)
    mode = None if ask.whole else "full"
    result = session.read(path, offset=None if ask.whole else first, limit=limit, mode=mode)
    if result.is_error and result.metadata.get("type") is None and "past the end" in result.text:
        return None, ""
    shown = shlex.quote(ask.path)
    return result, read_text(result, shown, ask.numbered, first, last, recognised.again, recognised.lead)


def _grep(session: Session, ask: GrepAsk, base: str, lead: str) -> tuple[bool, list[ToolResult], str]:
    """The search of each path, taken in ``base`` (``lead``: the agent's ``cd`` to it, for the
    commands printed); (any match, results, text)."""
    results: list[ToolResult] = []
    texts: list[str] = []
    found = False
    for operand in ask.paths or (None,):
        result = session.grep(
            ask.pattern,
            os.path.join(base, operand or "."),
            glob=ask.glob,
            type=ask.type,
            case_insensitive=ask.case_insensitive,
            before=ask.before,
            after=ask.after,
            files_only=ask.files_only,
        )
        results.append(result)
        found = found or bool(result.metadata.get("total_matches") or result.metadata.get("total_files"))
        texts.append(grep_text(result, ask, operand, lead))
    return found, results, "\n".join(texts)
