"""EPUB with ebooklib: the chapters in reading (spine) order, each under ``[section N: name]``."""

from __future__ import annotations

import io
import warnings

from .base import DocumentError, Extracted, open_zip, require
from .html import html_lines


def extract(data: bytes, display: str) -> Extracted:
    """The text of every chapter in spine order.

    Raises:
        DocumentError: ebooklib is missing, the EPUB would unpack too far, or it is corrupt.
    """
    epub = require("ebooklib.epub", "EPUB files")
    open_zip(data, display, "EPUB book").close()
    lines: list[str] = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            book = epub.read_epub(io.BytesIO(data), {"ignore_ncx": True})
            spine = [book.get_item_with_id(entry[0]) for entry in book.spine]
            sections = [item for item in spine if item is not None]
            for number, item in enumerate(sections, start=1):
                body = html_lines(item.get_content().decode("utf-8", "replace"))
                if lines:
                    lines.append("")
                lines.append(f"[section {number} of {len(sections)}: {item.get_name()}]")
                lines.extend(body)
    except Exception as exc:  # ebooklib raises EpubException, KeyError, lxml errors
        raise DocumentError(f"{display} is not a readable EPUB book ({type(exc).__name__}: {exc}).") from None
    title = book.get_metadata("DC", "title")
    facts = f"{len(sections)} sections" + (f", {title[0][0]}" if title else "")
    return Extracted("epub", tuple(lines), facts)
