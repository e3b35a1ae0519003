"""A ``Session``: one agent conversation bound to a workspace and a ledger — the library's front door."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterable, Sequence

from .config import Limits, Policy, load_settings
from .errors import InvalidArgument, LeanreadError
from .ledger import LedgerStore
from .ledger_sqlite import shared_ledger
from .result import ToolResult
from .tools import context as context_tool
from .tools import edit as edit_tool
from .tools import read as read_tool
from .tools import write as write_tool
from .tools.common import ToolContext
from .workspace import Workspace


class Session:
    """The file tools of one agent session.

    Args:
        roots: workspace roots; the first resolves relative paths. Default: the current directory.
        id: a stable session id, so a harness that resumes a conversation finds its ledger.
            Default: a new random id.
        ledger: where what the model was shown is recorded. Default: the SQLite ledger in the
            user's state folder (``ledger_sqlite.default_ledger_path()``), shared by the process,
            so a session resumed under the same ``id`` keeps its dedup after a restart.
        limits: caps on each result. Default: from the first root's ``leanread.toml`` or
            ``[tool.leanread]`` in its ``pyproject.toml`` (see ``config.load_settings``), else
            ``Limits()``.
        policy: the deny list. Default: from the same file, else ``Policy()``.

    Raises:
        PathError: a root is not an existing directory.
        ConfigError: the root's configuration file is invalid.

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
        ledger: LedgerStore | None = None,
        limits: Limits | None = None,
        policy: Policy | None = None,
    ) -> None:
        self.id = id or uuid.uuid4().hex
        checked = Workspace(roots)
        if limits is None or policy is None:
            settings = load_settings(checked.primary)
            limits = limits or settings.limits
            policy = policy or settings.policy
        self.limits = limits
        self.workspace = Workspace(checked.roots, policy=policy)
        self.ledger: LedgerStore = ledger if ledger is not None else shared_ledger()

    def _context(self) -> ToolContext:
        return ToolContext(self.workspace, self.ledger, self.id, self.limits, self.workspace.policy)

    def read(
        self,
        path: str | None = None,
        *,
        offset: int | None = None,
        limit: int | None = None,
        format: str = "plain",
        fresh: bool = False,
        char_offset: int | None = None,
        call_id: str | None = None,
    ) -> ToolResult:
        """Run the ``read`` tool (see ``tools/read.txt``).

        Args:
            path: relative to the first root, or absolute inside a root; None goes on with the
                file this session read last.
            offset: 1-based first line; 0 or None means 1.
            limit: lines to return; None means ``limits.max_lines``.
            format: ``plain``, ``tab``, ``colon``, ``catn`` or ``visible`` (see ``formats``).
            fresh: return the text even when the model still has it.
            char_offset: with ``offset=N``, read line N from this 1-based character on.
            call_id: the harness's tool call id; default a new one (``r1``, ``r2``, …).

        Returns:
            A ``ToolResult``; refusals come back with ``is_error=True``, never as exceptions.
        """

        def read(ctx: ToolContext, cid: str) -> ToolResult:
            target = path or self.last_path
            if target is None:
                raise InvalidArgument("path is required: no file has been read in this session yet.")
            request = read_tool.ReadRequest(target, offset, limit, format, fresh, char_offset)
            return read_tool.run(ctx, request, cid)

        result = self._run(read, call_id)
        if result.metadata.get("type") == "file":
            self.ledger.set_last_path(self.id, result.metadata["path"])
        return result

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
        request = edit_tool.EditRequest(path, old_string, new_string, replace_all)
        return self._run(lambda ctx, cid: edit_tool.run(ctx, request, cid), call_id)

    def write(self, path: str, content: str, *, call_id: str | None = None) -> ToolResult:
        """Run the ``write`` tool (see ``tools/write.txt``): create ``path``, or replace a file the
        model has seen whole in its current version, keeping its encoding and line endings."""
        request = write_tool.WriteRequest(path, content)
        return self._run(lambda ctx, cid: write_tool.run(ctx, request, cid), call_id)

    def _run(self, tool: Callable[[ToolContext, str], ToolResult], call_id: str | None) -> ToolResult:
        """Run one tool with a call id; refusals and file-system failures become error results."""
        call_id = call_id or self.ledger.new_call_id(self.id)
        try:
            return tool(self._context(), call_id)
        except LeanreadError as exc:
            return ToolResult(text=str(exc), is_error=True, metadata={"call_id": call_id})
        except OSError as exc:  # the file system failed mid-call (/proc, FUSE, a vanished mount)
            reason = exc.strerror or str(exc)
            return ToolResult(
                text=f"The file system refused the call ({reason}); nothing was changed, so try again or another file.",
                is_error=True,
                metadata={"call_id": call_id},
            )

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
        try:
            return context_tool.run(self._context(), action, call_ids, call_id)
        except LeanreadError as exc:
            return ToolResult(text=str(exc), is_error=True)
