"""The ``read`` request: its parameters as the model sees them, the checks that refuse a bad
call, and ``Job``, what every reader is handed."""

from __future__ import annotations

from dataclasses import dataclass

from ...config.settings import READ_MODES
from ...errors import InvalidArgument, PastEnd
from ...files.workspace import Resolved
from ...view.formats import FORMATS, Format
from ..common import ToolContext

NAME = "read"

#: Model-facing description of each parameter (MCP input schema, CLI help).
PARAMETERS: dict[str, str] = {
    "path": "Relative to the workspace root. Default: the last file read, after its last window.",
    "offset": "First line, 1-based.",
    "limit": "",
    "format": "tab, colon, catn: with line numbers; visible: with tabs and line ends shown.",
    "fresh": "true: the text even of lines you already have.",
    "char_offset": "The rest of line offset, from this 1-based character on.",
    "mode": "full: the text even of a big file (a notebook's JSON); outline: a text file's outline.",
    "symbol": 'A definition by name ("QuerySet.filter"); without path: found in the workspace.',
    "focus": "A question: only the lines relevant to it are shown.",
    "match_id": "A grep match id (m4, from the result's metadata): the lines around that match, instead of path "
    "and offset.",
    "context_before": "With match_id: lines before the match. Default: 20.",
    "context_after": "With match_id: lines after the match. Default: 20.",
}


@dataclass(frozen=True)
class ReadRequest:
    """The parameters of one ``read`` call (see ``PARAMETERS``); ``path`` is already resolved
    from the session when the caller omitted it."""

    path: str
    offset: int | None = None
    limit: int | None = None
    format: str = "plain"
    fresh: bool = False
    char_offset: int | None = None
    mode: str | None = None
    symbol: str | None = None
    focus: str | None = None
    #: A line the answer shows as text even when the model has it (a ``match_id`` read's match).
    anchor: int | None = None
    #: The window is one definition the workspace's symbol index found (``read(symbol=…)``
    #: without a path): its plain full read is the whole file's, as with ``symbol=`` and a path.
    plain_whole: bool = False

    @property
    def whole_file(self) -> bool:
        """No window asked for: the read may give the outline of a big file."""
        return self.offset is None and self.limit is None and self.char_offset is None and self.symbol is None


def check(request: ReadRequest) -> Format:
    if request.offset is not None and request.offset < 0:
        raise InvalidArgument(f"offset must be 1 or more (got {request.offset}); use offset=1 for the start.")
    if request.limit is not None and request.limit < 1:
        raise InvalidArgument(f"limit must be 1 or more (got {request.limit}); omit it to read up to the default.")
    if request.char_offset is not None and request.char_offset < 1:
        raise InvalidArgument(f"char_offset must be 1 or more (got {request.char_offset}).")
    if request.char_offset is not None and request.offset is None:
        raise InvalidArgument("char_offset needs offset: pass offset=N too to read line N from that character on.")
    if request.mode is not None and request.mode not in READ_MODES:
        raise InvalidArgument(f"mode must be one of {', '.join(READ_MODES)} (got {request.mode!r}).")
    if request.symbol is not None and (request.offset is not None or request.char_offset is not None):
        raise InvalidArgument("symbol reads a whole definition; leave out offset and char_offset.")
    if request.format not in FORMATS:
        raise InvalidArgument(f"format must be one of {', '.join(FORMATS)} (got {request.format!r}).")
    return request.format  # type: ignore[return-value]


def first_line(request: ReadRequest, display: str, total: int) -> int:
    first = max(request.offset or 1, 1)
    if total and first > total:
        raise PastEnd(
            f"offset={first} is past the end of {display}, which has {total} lines; use an offset from 1 to {total}.",
            total,
        )
    return first if total else 1


@dataclass(frozen=True)
class Job:
    """One ``read`` call as its reader gets it: the session's context, the checked request, the
    path resolved, the line format, the call's id and the kind of thing the path is
    (``pipeline.kind_of``: ``directory``, ``text``, or a document kind such as ``image``)."""

    ctx: ToolContext
    request: ReadRequest
    resolved: Resolved
    fmt: Format
    call_id: str
    kind: str = "text"
    #: the file's bytes when ``kind_of`` read all of them (a small file), so that its reader
    #: need not open it again; None otherwise.
    whole: bytes | None = None
