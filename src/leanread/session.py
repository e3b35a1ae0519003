"""A ``Session``: one agent conversation bound to a workspace and a ledger — the library's front door."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .calls import run_call
from .config import Limits, Policy, load_settings
from .dedup import RECENT_CALLS, call_number, old_calls
from .errors import InvalidArgument, LeanreadError, PastEnd, PathError
from .harness import HARNESS_TOOLS
from .ledger import CALL, LedgerStore, ViewRecord
from .ledgers import open_ledger
from .names import parse_path
from .pruning import AuditHook, Pruner, make_pruner
from .result import ToolResult
from .resume import next_window_of, nothing_follows, window_args
from .tools import context as context_tool
from .tools import edit as edit_tool
from .tools import grep as grep_tool
from .tools import ls as ls_tool
from .tools import read as read_tool
from .tools import symbols as symbol_tool
from .tools import write as write_tool
from .tools.common import ToolContext, current_bytes
from .transcript import call_record
from .workspace import Workspace

_log = logging.getLogger(__name__)


class Session:
    """The file tools of one agent session.

    Args:
        roots: workspace roots; the first resolves relative paths. Default: the current directory.
        id: a stable session id, so a harness that resumes a conversation finds its ledger.
            Default: a new random id.
        ledger: where what the model was shown is recorded: a ``LedgerStore``, or what
            ``--ledger`` takes (``"memory"``, a SQLite file path, ``"redis://host:6379/0"``; see
            ``ledgers.open_ledger``). Default: the SQLite ledger in the user's state folder
            (``ledger_sqlite.default_ledger_path()``), shared by the process, so a session resumed
            under the same ``id`` keeps its dedup after a restart.
        limits: caps on each result. Default: from the first root's ``leanread.toml`` or
            ``[tool.leanread]`` in its ``pyproject.toml`` (see ``config.load_settings``), else
            ``Limits()``.
        policy: the deny list. Default: from the same file, else ``Policy()``.
        pruner: the backend that prunes outputs for a ``focus`` question (any object with the
            ``pruning.Pruner`` method ``keep``). Default: the one the same file names
            (``focus_backend``, see ``config.Focus``), else ``LocalPruner()``.
        focus_audit: called with a ``pruning.FocusAudit`` for every read or grep given a focus
            question: the output before pruning and the output shown, so an auditing or indexing
            plugin never sees only the pruned view. What it raises goes into the result's
            ``focus.audit_error`` metadata; the result is not affected.
        transcript: record every call (its arguments and exactly what the model was shown) in
            the ledger's transcript, for ``leanread inspect``. Default: the ``transcript``
            setting of the same file, else True.

    Paths are shown, and taken, in one form (``names.show_path``): a name's bytes that are not
    UTF-8 and its control characters are escaped (``caf\\xe9.txt``, ``a\\x0ab``), so every path a
    result shows can be passed back as it is.

    Raises:
        PathError: a root is not an existing directory.
        ConfigError: the root's configuration file is invalid.
        LeanreadError: the configured focus backend cannot be built (``hybrid`` without
            ``leanread[dense]`` installed).

    Example::

        session = Session(["/repo"])
        result = session.read("src/app.py", offset=41, limit=40)
        print(result.text, result.metadata["tokens"])
    """

    def __init__(
        self,
        roots: Sequence[str | os.PathLike[str]] | None = None,
        *,
        id: str | None = None,
        ledger: LedgerStore | str | None = None,
        limits: Limits | None = None,
        policy: Policy | None = None,
        pruner: Pruner | None = None,
        focus_audit: AuditHook | None = None,
        transcript: bool | None = None,
    ) -> None:
        self.id = id or uuid.uuid4().hex
        checked = Workspace(roots)
        if limits is None or policy is None or pruner is None or transcript is None:
            settings = load_settings(checked.primary)
            limits = limits or settings.limits
            policy = policy or settings.policy
            pruner = pruner or make_pruner(settings.focus)
            transcript = settings.transcript if transcript is None else transcript
        self.transcript = transcript
        self.limits = limits
        self.pruner = pruner
        self.focus_audit = focus_audit
        self.workspace = Workspace(checked.roots, policy=policy)
        self.ledger: LedgerStore = open_ledger(ledger) if ledger is None or isinstance(ledger, str) else ledger

    def use_roots(self, roots: Sequence[str | os.PathLike[str]]) -> None:
        """Work in ``roots`` from now on (an MCP client's roots), keeping the deny list, limits and
        ledger; what the model was shown stays recorded by real path.

        Raises:
            PathError: a root is not an existing directory; the workspace is then unchanged.
        """
        self.workspace = Workspace(roots, policy=self.workspace.policy)

    def _context(self) -> ToolContext:
        return ToolContext(
            self.workspace, self.ledger, self.id, self.limits, self.workspace.policy, self.pruner, self.focus_audit
        )

    def read(
        self,
        path: str | None = None,
        *,
        offset: int | None = None,
        limit: int | None = None,
        format: str = "plain",
        fresh: bool = False,
        char_offset: int | None = None,
        match_id: str | None = None,
        context_before: int | None = None,
        context_after: int | None = None,
        mode: str | None = None,
        symbol: str | None = None,
        focus: str | None = None,
        call_id: str | None = None,
    ) -> ToolResult:
        """Run the ``read`` tool (see ``tools/read.txt``).

        Args:
            path: relative to the first root, or absolute inside a root; None goes on with the
                file this session read last: after its last window (see ``next_window_of``) when
                no offset, char_offset, symbol or ``mode="outline"`` is given, else as they say.
            offset: 1-based first line; 0 or None means 1.
            limit: lines to return; None means ``limits.max_lines``.
            format: ``plain``, ``tab``, ``colon``, ``catn`` or ``visible`` (see ``formats``).
            fresh: return the text even when the model still has it.
            char_offset: with ``offset=N``, read line N from this 1-based character on.
            match_id: a match id from a ``grep`` result of this session (``m4``): read the lines
                around that match instead of ``path``/``offset``/``limit``.
            context_before: with ``match_id``, lines before the match; default
                ``grep.READ_CONTEXT`` (20).
            context_after: with ``match_id``, lines after the match; default 20.
            mode: ``auto`` (a whole read of a big file gives its outline), ``full`` or
                ``outline``; default ``limits.read_mode``.
            symbol: read one definition by name (``QuerySet.filter``), as the outline names it;
                without ``path``, the definitions of that name in the whole workspace (one: it is
                read; several: a ranked list; see ``tools.symbols``).
            focus: a complete, self-contained question: a full-text window of a text file is
                pruned to the lines relevant to it (see ``leanread.pruning``); None: no pruning.
            call_id: the harness's tool call id; default a new one (``r1``, ``r2``, …).

        Returns:
            A ``ToolResult``; refusals come back with ``is_error=True``, never as exceptions.
        """

        def read(ctx: ToolContext, cid: str) -> ToolResult:
            if match_id is not None:
                real, first, count, line = self._match_window(
                    match_id, path, offset, limit, context_before, context_after
                )
                request = read_tool.ReadRequest(
                    path=real,
                    offset=first,
                    limit=count,
                    format=format,
                    fresh=fresh or self._must_show(real, cid),
                    char_offset=char_offset,
                    focus=focus,
                    anchor=line,
                )
                return read_tool.run(ctx, request, cid)
            if context_before is not None or context_after is not None:
                raise InvalidArgument(
                    "context_before and context_after go with match_id; for a range of lines pass offset and limit."
                )
            if path is None and symbol is not None:  # the whole workspace's definitions
                def one(found: str, first: int, count: int) -> ToolResult:
                    shown = fresh or self._must_show(found, cid)
                    request = read_tool.ReadRequest(found, first, count, format, shown, focus=focus)
                    return read_tool.run(ctx, request, cid)

                return symbol_tool.read_symbol(ctx, symbol, cid, one)
            target = path or self.last_path
            if target is None:
                raise InvalidArgument("path is required: no file has been read in this session yet.")
            given = parse_path(target)
            shown = fresh or self._must_show(given, cid)
            goes_on = path is None and offset is None and char_offset is None and symbol is None and mode != "outline"
            place = self.ledger.next_window(self.id) if goes_on else None
            start, char = window_args(place, offset, char_offset)
            request = read_tool.ReadRequest(given, start, limit, format, shown, char, mode, symbol, focus)
            try:
                return read_tool.run(ctx, request, cid)
            except PastEnd as exc:
                if place is None:
                    raise
                raise nothing_follows(target, place[0] - 1, exc.total) from None

        given = _given(
            path=path, offset=offset, limit=limit, format=None if format == "plain" else format, fresh=fresh,
            char_offset=char_offset, match_id=match_id, context_before=context_before, context_after=context_after,
            mode=mode, symbol=symbol, focus=focus,
        )  # fmt: skip
        result = self._run("read", given, read, call_id)
        if result.metadata.get("type") in ("file", "outline") or result.metadata.get("document"):
            try:
                self.ledger.set_last_path(self.id, result.metadata["path"], next_window_of(result.metadata))
            except LeanreadError as exc:  # the store went away after the read was recorded
                return ToolResult(text=str(exc), is_error=True, metadata={"call_id": result.metadata.get("call_id")})
        return result

    def _must_show(self, path: str, call_id: str) -> bool:
        """Apply the ``dedup`` setting to a read of ``path`` (see ``leanread.dedup``): True for
        ``off`` (show the text as ``fresh=true``); for ``recent``, forget the file's results that
        are too old first. A path that does not resolve is left to the read to report."""
        if self.limits.dedup != "recent":
            return self.limits.dedup == "off"
        now = call_number(call_id)
        if now is None or now < RECENT_CALLS:  # no result can be old yet: skip the lookups
            return False
        real = self.workspace.locate(path)
        if real is None:
            return False
        old = old_calls(call_id, (r.call_id for r in self.ledger.views_of(self.id, real) if r.visible))
        if old:
            self.ledger.forget(self.id, old)
        return False

    def _require_unchanged_since_grep(self, real: str, match_id: str) -> None:
        """Refuse a match id whose file changed since the grep showed it: its line may have moved.

        Raises:
            InvalidArgument: the file's bytes differ from the version the last grep of it saw.
        """
        greps = [r for r in self.ledger.views_of(self.id, real) if r.kind == "grep"]
        if not greps:
            return
        try:
            data = current_bytes(real)
        except (OSError, PathError):
            return  # the read reports what is wrong with the file
        if data is None or hashlib.sha256(data).hexdigest() != max(greps, key=lambda r: r.seq).content_hash:
            raise InvalidArgument(
                f"The file of match {match_id} changed since the grep that found it, so its line may have moved; "
                "grep again for fresh match ids."
            )

    def _match_window(
        self,
        match_id: str,
        path: str | None,
        offset: int | None,
        limit: int | None,
        before: int | None,
        after: int | None,
    ) -> tuple[str, int, int, int]:
        """``(realpath, first line, line count, the match's line)`` of the region around a grep match.

        Raises:
            InvalidArgument: path, offset or limit given too, a negative count, or an id this
                session's grep results never gave.
        """
        if path is not None or offset is not None or limit is not None:
            raise InvalidArgument(
                "Pass either match_id or path/offset/limit, not both; match_id alone reads the lines around the match."
            )
        for name, value in (("context_before", before), ("context_after", after)):
            if value is not None and value < 0:
                raise InvalidArgument(f"{name} must be 0 or more (got {value}); it counts lines around the match.")
        found = self.ledger.get_match(self.id, match_id)
        if found is None:
            raise InvalidArgument(
                f"No grep result of this session has the match id {match_id!r}; use an id shown in a grep result "
                "(such as m1), or read by path and offset."
            )
        real, line = found
        self._require_unchanged_since_grep(real, match_id)
        lead = grep_tool.READ_CONTEXT if before is None else before
        trail = grep_tool.READ_CONTEXT if after is None else after
        first = max(1, line - lead)
        return real, first, line + trail - first + 1, line

    def grep(
        self,
        pattern: str | None = None,
        path: str | None = None,
        *,
        glob: str | None = None,
        type: str | None = None,
        case_insensitive: bool = False,
        context: int | None = None,
        before: int | None = None,
        after: int | None = None,
        max_results: int | None = None,
        offset: int | None = None,
        files_only: bool = False,
        focus: str | None = None,
        include_ignored: bool = False,
        symbol: str | None = None,
        call_id: str | None = None,
    ) -> ToolResult:
        """Run the ``grep`` tool (see ``tools/grep.txt``): ripgrep's matching lines, grouped by
        file and sorted by path and line; each match's id for ``read(match_id=…)`` is in the
        result's metadata (``matches``).

        Args:
            pattern: a ripgrep (Rust) regular expression.
            path: file or folder to search; default every workspace root.
            glob: only paths matching this ripgrep glob (``*.py``, ``!*.min.js``).
            type: only files of this ripgrep type (``py``, ``js``, …).
            case_insensitive: ignore case.
            context: lines shown before and after each match; ``before``/``after`` override it.
            max_results: matches shown at most (default ``grep.MAX_RESULTS``).
            offset: 1-based number of the first match shown (paging).
            files_only: list only the matching files with their match counts.
            focus: a complete, self-contained question: a long result keeps only the matches most
                relevant to it (see ``tools/grep.py``); omitted ones are counted per file.
            include_ignored: also search what ``.gitignore``, ``.ignore`` and ``.rgignore`` rules
                leave out (never the deny list).
            symbol: instead of a pattern, a name (``Store.get``): its uses in the workspace (under
                ``path``), each labelled ``import-resolved``, ``same-file`` or ``name-only``.
            call_id: the harness's tool call id; default a new one.

        Returns:
            A ``ToolResult``; its metadata has ``total_matches``, ``total_files``, ``offset``,
            ``last_match``, ``next_offset``, ``truncated`` (None, ``limit`` or ``bytes``) and
            ``matches`` (``id``, ``path``, ``line``, 1-based ``column``). Refusals (a bad
            pattern, glob or type, ripgrep missing) come back with ``is_error=True``.
        """
        where = _parsed(path)
        request = grep_tool.GrepRequest(
            pattern or "", where, glob, type, case_insensitive, context, before, after, max_results, offset, files_only,
            focus, include_ignored,
        )  # fmt: skip
        given = _given(
            pattern=pattern, path=path, glob=glob, type=type, case_insensitive=case_insensitive, context=context,
            before=before, after=after, max_results=max_results, offset=offset, files_only=files_only, focus=focus,
            include_ignored=include_ignored,
            symbol=symbol,
        )  # fmt: skip

        def grep(ctx: ToolContext, cid: str) -> ToolResult:
            if symbol is not None and not pattern:
                return symbol_tool.grep_symbol(ctx, symbol, where, max_results, cid)
            if symbol is not None:
                raise InvalidArgument("Pass either pattern or symbol, not both; symbol finds a name's uses.")
            return grep_tool.run(ctx, request, cid)

        return self._run("grep", given, grep, call_id)

    def ls(
        self,
        path: str | None = None,
        *,
        depth: int | None = None,
        max_entries: int | None = None,
        include_ignored: bool = False,
        call_id: str | None = None,
    ) -> ToolResult:
        """Run the ``ls`` tool (see ``tools/ls.txt``): a compact tree of a folder.

        Args:
            path: the folder; default the first root.
            depth: levels shown (default ``ls.DEPTH``); deeper folders are shown with their file count.
            max_entries: entries shown at most (default ``ls.MAX_ENTRIES``).
            include_ignored: also list what ``.gitignore``, ``.ignore`` and ``.rgignore`` rules leave out.
            call_id: the harness's tool call id; default a new one.
        """
        request = ls_tool.LsRequest(_parsed(path), depth, max_entries, include_ignored)
        given = _given(path=path, depth=depth, max_entries=max_entries, include_ignored=include_ignored)
        return self._run("ls", given, lambda ctx, cid: ls_tool.run(ctx, request, cid), call_id)

    def edit(
        self,
        path: str,
        old_string: str,
        new_string: str,
        *,
        replace_all: bool = False,
        call_id: str | None = None,
    ) -> ToolResult:
        """Run the ``edit`` tool (see ``tools/edit.txt``): replace ``old_string`` by ``new_string``
        where the model has seen it in the current version of the file.

        Returns:
            A ``ToolResult``: a short summary and excerpt, or a refusal (``is_error=True``) that
            names the read that fixes it; nothing is written on a refusal.
        """
        request = edit_tool.EditRequest(parse_path(path), old_string, new_string, replace_all)
        given = _given(path=path, old_string=old_string, new_string=new_string, replace_all=replace_all)
        return self._run("edit", given, lambda ctx, cid: edit_tool.run(ctx, request, cid), call_id, changes=True)

    def write(self, path: str, content: str, *, call_id: str | None = None) -> ToolResult:
        """Run the ``write`` tool (see ``tools/write.txt``): create ``path``, or replace a file the
        model has seen whole in its current version, keeping its encoding and line endings."""
        request = write_tool.WriteRequest(parse_path(path), content)
        given: dict[str, object] = {"path": path, "content": content}
        return self._run("write", given, lambda ctx, cid: write_tool.run(ctx, request, cid), call_id, changes=True)

    def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | str | None,
        *,
        call_id: str | None = None,
        tools: Sequence[str] = HARNESS_TOOLS,
    ) -> ToolResult:
        """Run one tool call as a harness gets it from the model: a tool name and its arguments.

        The arguments are checked as the MCP server checks them (``arguments.check_arguments``
        against ``tools.schema.accepted_schema(name)``), so a well-formed numeric string for a whole
        number (``"10"``) is taken, and ``"abc"``, ``2.5`` or ``true`` are refused in one sentence.

        Args:
            name: the tool the model called.
            arguments: the call's arguments: a dict, or the JSON text of one (OpenAI's
                ``function.arguments``); None for none.
            call_id: the harness's tool call id; default a new one.
            tools: the tools the model was given, the ``names`` passed to ``openai_tools``,
                ``anthropic_tools`` or ``leanread_toolset``; default ``harness.HARNESS_TOOLS``
                (read, grep, ls, edit, write), as those offer. A call of any other tool is
                refused as unknown, so a model cannot rewrite its own ledger with ``context``
                unless the harness opts in by offering it (``tools=tools.schema.TOOL_NAMES``, as
                the server's ``--expose-context-tool``).

        Returns:
            The result the model should see (``text``, ``images``; ``is_error`` for a refusal),
            the same as the MCP server's for the same call and the same tools offered, such as
            ``Unknown tool 'context'; the tools are read, grep, ls, edit, write.`` A refused call
            records nothing.
        """
        return run_call(self, name, arguments, call_id=call_id, tools=tools)

    def _run(
        self,
        name: str,
        arguments: dict[str, object],
        tool: Callable[[ToolContext, str], ToolResult],
        call_id: str | None,
        changes: bool = False,
    ) -> ToolResult:
        """Run one tool with a call id; refusals and file-system failures become error results.
        The call's place in the session is recorded whatever it showed, so a compact or a rewind
        may name it, and so is the call itself in the transcript (unless it is off); when the
        store fails to note its place, a tool that ``changes`` nothing answers with the store's
        error instead (its answer would be one the ledger does not know)."""
        try:
            call_id = call_id or self.ledger.new_call_id(self.id)
        except LeanreadError as exc:  # the store is away (Redis stopped): say so, record nothing
            return ToolResult(text=str(exc), is_error=True, metadata={})
        started = time.time()
        clock = time.perf_counter()
        try:
            result = tool(self._context(), call_id)
        except LeanreadError as exc:
            result = ToolResult(text=str(exc), is_error=True, metadata={"call_id": call_id})
        except OSError as exc:  # the file system failed mid-call (/proc, FUSE, a vanished mount)
            reason = exc.strerror or str(exc)
            result = ToolResult(
                text=f"The file system refused the call ({reason}); nothing was changed, so try again or another file.",
                is_error=True,
                metadata={"call_id": call_id},
            )
        except Exception as exc:  # a bug of leanread's: the caller still gets one sentence, never a traceback
            _log.exception("leanread: %s call %s failed", name, call_id)
            result = ToolResult(
                text=f"leanread failed on this {name} call ({type(exc).__name__}); try it again, or narrow it.",
                is_error=True,
                metadata={"call_id": call_id, "internal_error": f"{type(exc).__name__}: {exc}"},
            )
        try:
            self.ledger.record(self.id, ViewRecord(call_id, "", "", (), 0, 0, kind=CALL, visible=False))
        except LeanreadError as exc:
            if not changes:  # a read's answer the store could not note would be lost to compact/rewind
                return ToolResult(text=str(exc), is_error=True, metadata={"call_id": call_id})
        except Exception:  # a failing store must not turn a done edit or write into an error
            pass
        self._record_call(name, arguments, result, call_id, started, (time.perf_counter() - clock) * 1000)
        return result

    def _record_call(
        self, name: str, arguments: dict[str, object], result: ToolResult, call_id: str, started: float, ms: float
    ) -> None:
        """Keep the call in the ledger's transcript, unless the transcript is off; a failing store
        leaves the result as it is."""
        if not self.transcript:
            return
        with contextlib.suppress(Exception):
            self.ledger.record_call(self.id, call_record(name, arguments, result, call_id, started, ms))

    @property
    def last_path(self) -> str | None:
        """The file the last successful ``read`` showed (as the model knows it): ``read(None)``
        goes on with it."""
        return self.ledger.last_path(self.id)

    def forget(self, call_ids: Iterable[str] | str) -> int:
        """Mark these tool results as gone from the context window; what they showed earns no
        more stubs, diffs or edit grants. Returns how many file views were marked."""
        return self.ledger.forget(self.id, [call_ids] if isinstance(call_ids, str) else call_ids)

    def compact(self, up_to_call_id: str) -> int:
        """The history up to and including ``up_to_call_id`` was compacted (summarised away).
        Returns how many file views were marked.

        Raises:
            InvalidArgument: no result of this session has that call id.
        """
        return self.ledger.compact(self.id, up_to_call_id)

    def rewind(self, to_call_id: str) -> int:
        """The conversation went back to ``to_call_id``: every later result is gone. Returns how
        many file views were marked.

        Raises:
            InvalidArgument: no result of this session has that call id.
        """
        return self.ledger.rewind(self.id, to_call_id)

    def context(self, action: str, call_ids: Sequence[str] = (), call_id: str | None = None) -> ToolResult:
        """The ``context`` tool (see ``tools/context.txt``): ``forget``, ``compact`` or ``rewind``
        as a tool result, refusals with ``is_error=True``."""
        started, clock = time.time(), time.perf_counter()
        try:
            result = context_tool.run(self._context(), action, call_ids, call_id)
        except LeanreadError as exc:
            result = ToolResult(text=str(exc), is_error=True)
        given = _given(action=action, call_ids=list(call_ids) or None, call_id=call_id)
        # the context tool's own call has no call id: its call_id argument names another call
        self._record_call("context", given, result, "", started, (time.perf_counter() - clock) * 1000)
        return result


def _parsed(path: str | None) -> str | None:
    """A path argument in the form the tools show paths (``names.show_path``) as the OS name."""
    return None if path is None else parse_path(path)


def _given(**arguments: object) -> dict[str, object]:
    """The arguments a call was given: those left at None or False are left out."""
    return {name: value for name, value in arguments.items() if value is not None and value is not False}
