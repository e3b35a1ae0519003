"""The ``read`` tool: a window of a text file (or a directory's entries, a document's text, an
image, an outline), capped, decorated, and deduplicated against what the model still has in its
context window.

The pipeline is ``pipeline.run`` (resolve → pick the reader for the kind) and ``pipeline.serve``
(take the window → compare with the ledger → render → prune → record → result). One module per
kind of read, each a ``read(job)`` giving a result or the lines to serve:

- ``text``: a text file's window, one definition (``symbol=``), part of a long line;
- ``outline``: the outline of a big file and the range of a symbol;
- ``document``: the text extracted from a PDF, DOCX, ODT, EPUB, RTF, ...;
- ``notebook``: a Jupyter notebook's cells;
- ``image``: an image, downscaled;
- ``directory``: a folder's entries.

And the steps they share: ``request`` (parameters and checks), ``answer`` (the comparison with
the ledger: full, stub, diff or markers), ``focus`` (pruning to a question), ``shared`` (the
envelope, the facts line, the metadata, attached instructions).
"""

from __future__ import annotations

from ...config.settings import READ_MODES
from ...view.formats import FORMATS
from ..spec import READ_ONLY, Param, ToolSpec, count, flag, string
from .call import read_call
from .focus import OUTLINE_FOCUS_NOTE
from .outline import OUTLINE_SHARE
from .pipeline import READERS, run
from .quick import quick_read
from .request import NAME, PARAMETERS, ReadRequest

__all__ = ["NAME", "OUTLINE_FOCUS_NOTE", "OUTLINE_SHARE", "PARAMETERS", "READERS", "SPEC", "ReadRequest", "run"]

_P = PARAMETERS

SPEC = ToolSpec(
    NAME,
    (
        string("path", _P["path"]),
        Param("match_id", "string", _P["match_id"], hidden=True),
        string("symbol", _P["symbol"]),
        count("offset", _P["offset"], 0),
        count("limit", _P["limit"], 1),
        Param("format", "string", _P["format"], default="plain", enum=FORMATS, hidden=True),
        flag("fresh", _P["fresh"], hidden=True),
        count("char_offset", _P["char_offset"], 1, hidden=True),
        count("context_before", _P["context_before"], 0, hidden=True),
        count("context_after", _P["context_after"], 0, hidden=True),
        Param("mode", "string", _P["mode"], enum=READ_MODES, hidden=True),
        string("focus", _P["focus"]),
    ),
    READ_ONLY,
    read_call,
    # the command lists the window first, then the match, then the rest
    cli_order=(
        "path",
        "offset",
        "limit",
        "format",
        "char_offset",
        "match_id",
        "context_before",
        "context_after",
        "mode",
        "symbol",
        "focus",
        "fresh",
    ),
    quick=quick_read,
)
