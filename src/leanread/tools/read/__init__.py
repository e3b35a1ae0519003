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

from .focus import OUTLINE_FOCUS_NOTE
from .outline import OUTLINE_SHARE
from .pipeline import READERS, run
from .request import NAME, PARAMETERS, ReadRequest

__all__ = ["NAME", "OUTLINE_FOCUS_NOTE", "OUTLINE_SHARE", "PARAMETERS", "READERS", "ReadRequest", "run"]
