"""RTF with striprtf."""

from __future__ import annotations

from .base import DocumentError, Extracted, lines_of, require, squeeze


def extract(data: bytes, display: str) -> Extracted:
    """The text of the document (RTF is 7-bit text; ``\\'xx`` escapes decode as windows-1252).

    Raises:
        DocumentError: striprtf is missing, or the RTF cannot be parsed.
    """
    striprtf = require("striprtf.striprtf", "RTF files")
    try:
        text = striprtf.rtf_to_text(data.decode("latin-1"), encoding="cp1252", errors="replace")
    except Exception as exc:  # striprtf raises on malformed control words
        raise DocumentError(f"{display} is not a readable RTF document ({type(exc).__name__}: {exc}).") from None
    return Extracted("rtf", tuple(squeeze(lines_of(text))), "")
