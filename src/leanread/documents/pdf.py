"""PDF with pypdf: the text of each page under a ``[page N]`` marker."""

from __future__ import annotations

import io
import logging
import warnings

from .base import DocumentError, Extracted, lines_of, require, squeeze


def extract(data: bytes, display: str) -> Extracted:
    """The text of every page, each under ``[page N of M]``.

    Raises:
        DocumentError: pypdf is missing, the PDF is encrypted with a password, or it is corrupt.
    """
    pypdf = require("pypdf", "PDF files")
    errors = pypdf.errors
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    lines: list[str] = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reader = pypdf.PdfReader(io.BytesIO(data))
            if reader.is_encrypted:
                try:
                    opened = reader.decrypt("")
                except (errors.PdfReadError, errors.DependencyError, NotImplementedError):
                    opened = 0
                if not opened:
                    raise DocumentError(
                        f"{display} is an encrypted PDF that needs a password; leanread cannot read it."
                    )
            total = len(reader.pages)
            for number, page in enumerate(reader.pages, start=1):
                if lines:
                    lines.append("")
                lines.append(f"[page {number} of {total}]")
                text = squeeze(lines_of(page.extract_text() or ""))
                lines.extend(text or ["(no text on this page: it is a drawing or a scanned image)"])
    except DocumentError:
        raise
    except Exception as exc:  # pypdf raises many kinds on broken files
        raise DocumentError(f"{display} is not a readable PDF ({type(exc).__name__}: {exc}).") from None
    return Extracted("pdf", tuple(lines), f"{total} pages")
