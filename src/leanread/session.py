"""A ``Session``: one agent conversation bound to a workspace and a ledger — the library's front door."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable, Sequence

from .config import Limits
from .errors import LeanreadError
from .ledger import LedgerStore, MemoryLedger
from .result import ToolResult
from .tools import read as read_tool
from .workspace import Workspace


class Session:
    """The file tools of one agent session.

    Args:
        roots: workspace roots; the first resolves relative paths. Default: the current directory.
        id: a stable session id, so a harness that resumes a conversation finds its ledger.
            Default: a new random id.
        ledger: where reads are recorded. Default: a new in-memory ledger.
        limits: caps on each result. Default: ``Limits()``.

    Raises:
        PathError: a root is not an existing directory.

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
    ) -> None:
        self.id = id or uuid.uuid4().hex
        self.workspace = Workspace(roots)
        self.ledger: LedgerStore = ledger if ledger is not None else MemoryLedger()
        self.limits = limits or Limits()

    def _context(self) -> read_tool.ToolContext:
        return read_tool.ToolContext(self.workspace, self.ledger, self.id, self.limits)

    def read(
        self,
        path: str,
        *,
        offset: int | None = None,
        limit: int | None = None,
        format: str = "plain",
        fresh: bool = False,
        call_id: str | None = None,
    ) -> ToolResult:
        """Run the ``read`` tool (see ``tools/read.txt``).

        Args:
            path: relative to the first root, or absolute inside a root.
            offset: 1-based first line; 0 or None means 1.
            limit: lines to return; None means ``limits.max_lines``.
            format: ``plain``, ``tab`` or ``colon``.
            fresh: return the text even when the model still has it.
            call_id: the harness's tool call id; default a new one (``r1``, ``r2``, …).

        Returns:
            A ``ToolResult``; refusals come back with ``is_error=True``, never as exceptions.
        """
        call_id = call_id or self.ledger.new_call_id(self.id)
        request = read_tool.ReadRequest(path, offset, limit, format, fresh)
        try:
            return read_tool.run(self._context(), request, call_id)
        except LeanreadError as exc:
            return ToolResult(text=str(exc), is_error=True, metadata={"call_id": call_id})

    def forget(self, call_ids: Iterable[str]) -> int:
        """Mark tool results as gone from the context window (compaction, rewind); they earn no
        more stubs. Returns how many visible results were marked."""
        return self.ledger.forget(self.id, call_ids)
