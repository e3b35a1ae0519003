"""The ``grep`` tool: ripgrep's hits, grouped by file, capped, with ids that ``read`` opens.

Result (``<type>grep</type>``)::

    <path>src</path>
    <type>grep</type>
    <content>
    src/app.py
      m1 12: def handler(request):
      13- return None
    src/util.py
      m2 4: handler = make()

    (2 matches in 2 files.)
    </content>

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
from ..common import ToolContext
from ..spec import READ_ONLY, Arguments, ToolSpec, count, flag, string
from ..symbols import grep_symbol
from .pipeline import run
from .request import (
    FACTS,
    FOCUS_MATCHES,
    LINE_CHARS,
    MAX_RESULTS,
    NAME,
    READ_CONTEXT,
    WINDOW_CHARS,
    WINDOW_LEAD,
    GrepRequest,
)

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
        string(
            "pattern",
            "Rust regex: escape ( [ { . * + ? | to match them literally; no look-around or back-references.",
            positional=True,
        ),
        string("path", "Folder or file to search, relative to the workspace root. Default: the root."),
        string("glob", "Only paths matching this glob, e.g. *.py, src/**/*.ts, !*.min.js.", flags=("-g",)),
        string("type", "Only files of this ripgrep type, e.g. py, js, ts, rust, go.", flags=("-t",)),
        flag("case_insensitive", "true: ignore case.", flags=("-i",)),
        count("context", "Lines to show around each match.", 0, flags=("-C",)),
        count("before", "Lines to show before each match.", 0, flags=("-B",)),
        count("after", "Lines to show after each match.", 0, flags=("-A",)),
        count("max_results", f"Matches to show. Default: {MAX_RESULTS}.", 1),
        count("offset", "1-based number of the first match (with files_only: file) to show, to page on.", 0),
        flag("files_only", "true: only the matching files, with their match counts.", flags=("-l",)),
        string(
            "focus",
            'A complete question, e.g. "Where is the retry delay computed?": a long result keeps only the matches '
            "most relevant to it.",
        ),
        flag(
            "include_ignored",
            "true: also search files that .gitignore, .ignore or .rgignore rules leave out (never secrets on the deny "
            "list).",
        ),
        string("symbol", 'Instead of pattern: a name\'s uses, e.g. "Store.get".'),
    ),
    READ_ONLY,
    _call,
    facts=FACTS,
)
