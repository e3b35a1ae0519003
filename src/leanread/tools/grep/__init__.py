"""The ``grep`` tool: ripgrep's hits, grouped by file, capped, with ids that ``read`` opens.

Result (with ``context=1``)::

    src/app.py
    11-<TAB>@route("/")
    12<TAB>def handler(request):
    <TAB>    return None
    src/util.py
    4<TAB>handler = make()

A match's row is ``12<TAB>text``; a context line's ``11-<TAB>text``, or ``<TAB>text`` right after
the row of the line before it (``render.bare_context``). The match ids (``m1`` …) are in the
metadata, not the text.

ripgrep finds the matching lines (``search``); the lines shown come from the file as ``read``
decodes it (``load_text``), so they are exactly the lines a plain ``read`` shows, and every line
shown whole is recorded in the ledger as seen (``kind="grep"``), so ``edit`` works on it.

The pipeline is ``pipeline.run``, one module per step:

- ``request``: the parameters, the limits they quote, the checks;
- ``search``: ripgrep's hits by file (and the first files loaded while it searches);
- ``lines``: each file's lines as ``read`` decodes them, checked against ripgrep's;
- ``assemble``: the page as rows per file within the byte cap, match ids as slots;
- ``focus``: the page pruned to a focus question;
- ``render``: the summary line, the files-only listing, the metadata.
"""

from __future__ import annotations

from ... import pruning
from ...errors import InvalidArgument
from ...files.names import parse_optional
from ...result import ToolResult
from ...view.rows import LINE_CHARS, WINDOW_CHARS, WINDOW_LEAD
from ..common import ToolContext
from ..spec import READ_ONLY, Arguments, ToolSpec, count, flag, string
from ..symbols import grep_symbol
from .pipeline import run
from .request import FACTS, FOCUS_MATCHES, MAX_RESULTS, NAME, READ_CONTEXT, GrepRequest

__all__ = [
    "FACTS",
    "FOCUS_MATCHES",
    "LINE_CHARS",
    "MAX_RESULTS",
    "NAME",
    "READ_CONTEXT",
    "SPEC",
    "WINDOW_CHARS",
    "WINDOW_LEAD",
    "GrepRequest",
    "pruning",
    "run",
]


def _call(ctx: ToolContext, args: Arguments, call_id: str) -> ToolResult:
    path, pattern, symbol = parse_optional(args["path"]), args["pattern"], args["symbol"]
    if symbol is not None and pattern:
        raise InvalidArgument("Pass either pattern or symbol, not both; symbol finds a name's uses.")
    if symbol is not None:
        return grep_symbol(ctx, symbol, path, args["max_results"], call_id)
    request = GrepRequest(
        pattern or "",
        path,
        args["glob"],
        args["type"],
        args["case_insensitive"],
        args["context"],
        args["before"],
        args["after"],
        args["max_results"],
        args["offset"],
        args["files_only"],
        args["focus"],
        args["include_ignored"],
    )
    return run(ctx, request, call_id)


SPEC = ToolSpec(
    NAME,
    (
        string("pattern", "Rust regex: no look-around or back-references.", positional=True),
        string("path", "Folder or file. Default: the root."),
        string("glob", "Glob, e.g. *.py or !*.min.js.", flags=("-g",)),
        string("type", "ripgrep file type, e.g. py.", hidden=True, flags=("-t",)),
        flag("case_insensitive", "", flags=("-i",)),
        count("context", "Lines around each match.", 0, flags=("-C",)),
        count("before", "", 0, hidden=True, flags=("-B",)),
        count("after", "", 0, hidden=True, flags=("-A",)),
        count("max_results", f"Matches to show. Default: {MAX_RESULTS}.", 1, hidden=True),
        count("offset", "First match (files_only: file) to show, 1-based.", 0, hidden=True),
        flag("files_only", "true: the matching files with their match counts.", flags=("-l",)),
        string("focus", "A question: a long result keeps the matches relevant to it."),
        flag(
            "include_ignored", "true: also files .gitignore, .ignore or .rgignore leave out (not secrets).", hidden=True
        ),
        string("symbol", 'Instead of pattern: a name\'s uses, e.g. "Store.get".'),
    ),
    READ_ONLY,
    _call,
    facts=FACTS,
)
