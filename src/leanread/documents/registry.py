"""Which extractor reads a file: decided from its leading bytes (and, for zip containers, the
members inside), the extension only for notebooks (JSON text); extraction cached per content."""

from __future__ import annotations

import io
import threading
import zipfile
from collections import OrderedDict
from collections.abc import Callable
from pathlib import PurePosixPath

from . import docx, epub, notebook, odt, pdf, rtf
from .base import DocumentError, Extracted

#: Documents larger than this are refused rather than extracted.
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024

#: Image formats sent as image content, by leading bytes.
_IMAGES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"\xff\xd8\xff", "jpeg"),
    (b"GIF87a", "gif"),
    (b"GIF89a", "gif"),
)

_EXTRACTORS: dict[str, Callable[[bytes, str], Extracted]] = {
    "notebook": notebook.extract,
    "pdf": pdf.extract,
    "docx": docx.extract,
    "epub": epub.extract,
    "odt": odt.extract,
    "rtf": rtf.extract,
}

#: What each kind is called in messages.
NAMES = {
    "notebook": "Jupyter notebook",
    "pdf": "PDF document",
    "docx": "DOCX document",
    "epub": "EPUB book",
    "odt": "ODT document",
    "rtf": "RTF document",
    "image": "image",
}

_ZIP_MIMETYPES = {
    b"application/epub+zip": "epub",
    b"application/vnd.oasis.opendocument.text": "odt",
}


def register(kind: str, extractor: Callable[[bytes, str], Extracted]) -> None:
    """Add (or replace) the extractor of ``kind``."""
    _EXTRACTORS[kind] = extractor


def document_kind(name: str, head: bytes) -> str | None:
    """The kind of document or image a file is, from its name and first bytes: ``image``,
    ``pdf``, ``rtf``, ``notebook``, ``zip`` (a container to look into with ``zip_kind``), or
    None for anything else (text, or binary that read refuses)."""
    for signature, _ in _IMAGES:
        if head.startswith(signature):
            return "image"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image"
    if head.lstrip(b"\x00\t\r\n ").startswith(b"%PDF-"):
        return "pdf"
    if head.startswith(b"{\\rtf"):
        return "rtf"
    if head.startswith(b"PK\x03\x04"):
        return "zip"
    if name.lower().endswith(".ipynb") and head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
        return "notebook"
    return None


#: Extensions of the zip-based documents, for the message when the zip itself is broken.
_ZIP_EXTENSIONS = {".docx": "docx", ".epub": "epub", ".odt": "odt"}


def zip_kind(data: bytes, name: str = "") -> str | None:
    """``docx``, ``epub`` or ``odt`` for a zip container holding one, else None.

    Raises:
        DocumentError: ``name`` ends in ``.docx``, ``.epub`` or ``.odt`` but the zip cannot be
            opened (truncated or corrupt).
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
            if "word/document.xml" in names:
                return "docx"
            if "mimetype" in names and archive.getinfo("mimetype").file_size < 200:
                return _ZIP_MIMETYPES.get(archive.read("mimetype").strip())
    except (zipfile.BadZipFile, OSError, ValueError, KeyError, RuntimeError, NotImplementedError) as exc:
        expected = _ZIP_EXTENSIONS.get(PurePosixPath(name).suffix.lower())
        if expected is None:
            return None
        raise DocumentError(
            f"{name} is not a readable {NAMES[expected]}: its zip container is corrupt or truncated ({exc})."
        ) from None
    return None


_CACHE: OrderedDict[tuple[str, str], Extracted] = OrderedDict()
_CACHE_SIZE = 32
_LOCK = threading.Lock()


def extract(kind: str, data: bytes, display: str, content_hash: str) -> Extracted:
    """The document's text, cached per (content hash, kind) for the process.

    Raises:
        DocumentError: no extractor for ``kind``, or the extractor's refusal.
    """
    key = (content_hash, kind)
    with _LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    extractor = _EXTRACTORS.get(kind)
    if extractor is None:
        raise DocumentError(f"{display} is an {NAMES.get(kind, kind)}, which leanread cannot read yet.")
    extracted = extractor(data, display)
    with _LOCK:
        _CACHE[key] = extracted
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return extracted
