"""The reader of documents (PDF, RTF, and the zip-based DOCX, ODT, EPUB, ...): the text
``documents.extract`` gets from them, served as a window of lines like a text file's."""

from __future__ import annotations

from dataclasses import replace

from ... import documents
from ...documents import registry as document_registry
from ...errors import InvalidArgument
from ...files.textfile import TextFile, content_hash
from ..common import new_instructions
from .request import Job
from .shared import Lines, load_document


def read(job: Job) -> Lines | None:
    """The document's extracted lines, to serve as a window. None: a zip that holds no document,
    or one too big to look into (read refuses it as binary).

    Raises:
        InvalidArgument: char_offset or symbol given (they apply to text files).
        NotText: the document is over ``documents.MAX_DOCUMENT_BYTES``.
        LeanreadError: the text cannot be extracted (``documents.DocumentError``).
    """
    resolved, request, kind = job.resolved, job.request, job.kind
    if kind == "zip" and resolved.size > documents.MAX_DOCUMENT_BYTES:
        return None  # too big to look into: refused as binary
    data = load_document(resolved, kind)
    if kind == "zip":
        found = document_registry.zip_kind(data, resolved.display)
        if found is None:
            return None
        kind = found
    if request.char_offset is not None or request.symbol is not None:
        raise InvalidArgument(
            f"{resolved.display} is a {document_registry.NAMES[kind]}; read its text with offset and limit "
            "(char_offset and symbol apply to text files)."
        )
    source_hash = content_hash(data)
    return extracted_lines(job, kind, data, source_hash, documents.extract(kind, data, resolved.display, source_hash))


def extracted_lines(job: Job, kind: str, data: bytes, source_hash: str, extracted: documents.Extracted) -> Lines:
    """The lines ``extracted`` from ``data`` (a document of ``kind``) as the window pipeline
    serves them. The extracted text is its own version: another path and hash in the ledger than
    the raw file, so a notebook's cells never grant edits of its JSON, nor does one stand for the
    other. A match's anchor does not apply; a focus question does not prune it."""
    text_file = TextFile(
        lines=extracted.lines,
        encoding="utf-8",
        bom=False,
        newline="\n",
        final_newline=True,
        content_hash=f"{source_hash}:{kind}",
        size=len(data),
    )
    resolved = job.resolved
    facts = {
        "document": True,
        "facts": extracted.facts,
        "content_hash": source_hash,
        "size": len(data),
        "mtime_ns": resolved.mtime_ns,
    }
    view = replace(resolved, real=f"{resolved.real}#{kind}")
    request = replace(job.request, anchor=None)
    instructions = new_instructions(job.ctx, resolved)
    return Lines(view, text_file, request, instructions, kind=kind, facts=facts, unpruned_as="document")
