"""A ``Session``: one agent conversation bound to a workspace and a ledger — the library's front door.

Layer 8 of leanread (see ``docs/ARCHITECTURE.md``): imports ``tools`` and what is below it; the
shells (``mcp``, ``adapters``, ``cli``) import it. Each tool method runs the tool's ``ToolSpec``
(``tools.registry``) under a call id, with the call kept in the transcript.
"""

from __future__ import annotations

import logging
import os
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .config.settings import Limits, Policy, load_settings
from .files.workspace import Workspace
from .ledger.open import open_ledger
from .ledger.store import LedgerStore
from .ledger.transcript import HARNESS, MODEL
from .pruning import AuditHook, Pruner, make_pruner
from .result import ToolResult
from .tools.calls import checked_call
from .tools.common import ToolContext
from .tools.registry import HARNESS_TOOLS, spec_of
from .tools.running import run_numbered, run_unnumbered

_log = logging.getLogger(__name__)


class Session:
    """The file tools of one agent session.

    Args:
        roots: workspace roots; the first resolves relative paths. Default: the current directory.
        id: a stable session id, so a harness that resumes a conversation finds its ledger.
            Default: a new random id.
        ledger: where what the model was shown is recorded: a ``LedgerStore``, or what
            ``--ledger`` takes (``"memory"``, a SQLite file path, ``"redis://host:6379/0"``; see
            ``ledger.open.open_ledger``). Default: the SQLite ledger in the user's state folder
            (``ledger.sqlite_store.default_ledger_path()``), shared by the process, so a session resumed
            under the same ``id`` keeps its dedup after a restart.
        limits: caps on each result. Default: from the first root's ``leanread.toml`` or
            ``[tool.leanread]`` in its ``pyproject.toml`` (see ``config.settings.load_settings``), else
            ``Limits()``.
        policy: the deny list. Default: from the same file, else ``Policy()``.
        pruner: the backend that prunes outputs for a ``focus`` question (any object with the
            ``pruning.Pruner`` method ``keep``). Default: the one the same file names
            (``focus_backend``, see ``config.settings.Focus``), else ``LocalPruner()``.
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
        return self._tool("read", locals())

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
                relevant to it (see ``tools/grep``); omitted ones are counted per file.
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
        return self._tool("grep", locals())

    def ls(
        self,
        path: str | None = None,
        *,
        depth: int | None = None,
        glob: str | None = None,
        max_entries: int | None = None,
        include_ignored: bool = False,
        call_id: str | None = None,
    ) -> ToolResult:
        """Run the ``ls`` tool (see ``tools/ls.txt``): a compact tree of a folder.

        Args:
            path: the folder; default the first root.
            depth: levels shown (default ``ls.DEPTH``, every level with a ``glob``); deeper folders
                are shown with their file count.
            glob: only the files it matches (ripgrep's glob: ``*test*.py``, ``src/**/*.ts``), at
                any depth.
            max_entries: entries shown at most (default ``ls.MAX_ENTRIES``).
            include_ignored: also list what ``.gitignore``, ``.ignore`` and ``.rgignore`` rules leave out.
            call_id: the harness's tool call id; default a new one.
        """
        return self._tool("ls", locals())

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
        return self._tool("edit", locals())

    def write(self, path: str, content: str, *, call_id: str | None = None) -> ToolResult:
        """Run the ``write`` tool (see ``tools/write.txt``): create ``path``, or replace a file the
        model has seen whole in its current version, keeping its encoding and line endings."""
        return self._tool("write", locals())

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
        against ``tools.registry.accepted_schema(name)``), so a well-formed numeric string for a whole
        number (``"10"``) is taken, and ``"abc"``, ``2.5`` or ``true`` are refused in one sentence.

        Args:
            name: the tool the model called.
            arguments: the call's arguments: a dict, or the JSON text of one (OpenAI's
                ``function.arguments``); None for none.
            call_id: the harness's tool call id; default a new one.
            tools: the tools the model was given, the ``names`` passed to ``openai_tools``,
                ``anthropic_tools`` or ``leanread_toolset``; default ``tools.registry.HARNESS_TOOLS``
                (read, grep, ls, edit, write), as those offer. A call of any other tool is
                refused as unknown, so a model cannot rewrite its own ledger with ``context``
                unless the harness opts in by offering it (``tools=tools.registry.TOOL_NAMES``, as
                the server's ``--expose-context-tool``).

        Returns:
            The result the model should see (``text``, ``images``; ``is_error`` for a refusal),
            the same as the MCP server's for the same call and the same tools offered, such as
            ``Unknown tool 'context'; the tools are read, grep, ls, edit, write.`` A refused call
            records nothing.
        """
        checked = checked_call(name, arguments, tools)
        if isinstance(checked, ToolResult):
            return checked
        return self.run_tool(name, checked, call_id=call_id)

    def run_tool(
        self, name: str, arguments: Mapping[str, Any], *, call_id: str | None = None, caller: str = MODEL
    ) -> ToolResult:
        """Run the tool ``name`` (any tool of ``tools.registry``) with ``arguments`` as its
        ``Session`` method would: unchecked, by parameter name, those left out at their defaults.
        ``caller``: who made the call, as the transcript keeps it (``ledger.transcript.MODEL``, or
        ``HARNESS`` for a ``context`` command the harness ran itself, as ``context`` does).

        Raises:
            KeyError: no tool of that name is registered.
            TypeError: an argument the tool does not have, or a required one missing.
        """
        spec = spec_of(name)
        args = spec.arguments(arguments)
        given = spec.given(args)
        ctx = self._context()
        if not spec.numbered:  # context: its call_id argument names another call; it has none itself
            return run_unnumbered(
                ctx, name, given, lambda: spec.run(ctx, args, ""), caller=caller, transcript=self.transcript
            )
        changes = not spec.effects.read_only

        def tool(ctx: ToolContext, numbered: str) -> ToolResult:
            return spec.run(ctx, args, numbered)

        return run_numbered(ctx, name, given, tool, call_id, changes=changes, transcript=self.transcript)

    def _tool(self, name: str, local: dict[str, Any]) -> ToolResult:
        """Run the tool ``name`` with the arguments of the method that called (its ``locals()``):
        its parameters by name, and ``call_id`` when the tool has no parameter of that name."""
        spec = spec_of(name)
        names = {p.name for p in spec.params}
        call_id = None if "call_id" in names else local.get("call_id")
        return self.run_tool(name, {k: v for k, v in local.items() if k in names}, call_id=call_id)

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
        """The ``context`` tool (see ``tools/context.txt``) run by the harness itself (``leanread
        context`` too): ``forget``, ``compact`` or ``rewind`` as a tool result, refusals with
        ``is_error=True``; the transcript keeps it as the harness's (``ledger.transcript.HARNESS``),
        not as a call of the model's, whose are those of ``call``."""
        arguments = {"action": action, "call_ids": list(call_ids) or None, "call_id": call_id}
        return self.run_tool("context", arguments, caller=HARNESS)
