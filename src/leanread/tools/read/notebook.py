"""The reader of Jupyter notebooks: their cells as lines (``documents.notebook``), served as a
window like a text file's; asked for with ``mode="full"`` (or char_offset, symbol), or not valid
notebook JSON, a notebook is read as the text file it is, to edit it."""

from __future__ import annotations

from ... import documents
from ...files.textfile import content_hash
from .document import extracted_lines
from .request import Job
from .shared import Lines, load_document


def read(job: Job) -> Lines | None:
    """The notebook's cells as lines, to serve as a window; None: read its JSON as text.

    Raises:
        NotText: the notebook is over ``documents.MAX_DOCUMENT_BYTES``.
    """
    request = job.request
    if request.mode == "full" or request.char_offset is not None or request.symbol:
        return None  # the notebook's JSON as text, to edit it
    data = load_document(job.resolved, "notebook")
    source_hash = content_hash(data)
    try:
        extracted = documents.extract("notebook", data, job.resolved.display, source_hash)
    except documents.DocumentError:
        return None  # not valid notebook JSON (a merge conflict, a half-written file): show the text
    return extracted_lines(job, "notebook", data, source_hash, extracted)
