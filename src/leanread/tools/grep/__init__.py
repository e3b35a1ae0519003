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
from .pipeline import run
from .request import (
    FACTS,
    FOCUS_MATCHES,
    LINE_CHARS,
    MAX_RESULTS,
    NAME,
    PARAMETERS,
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
    "PARAMETERS",
    "READ_CONTEXT",
    "WINDOW_CHARS",
    "WINDOW_LEAD",
    "GrepRequest",
    "pruning",
    "run",
]
