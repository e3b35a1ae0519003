"""DOCX with python-docx: paragraphs and tables in document order; headings as ``#``."""

from __future__ import annotations

import io
from typing import Any

from .base import DocumentError, Extracted, open_zip, require, squeeze, table_row


def _heading_level(paragraph: Any) -> int:
    name = str(getattr(paragraph.style, "name", "") or "")
    if name == "Title":
        return 1
    if name.startswith("Heading "):
        level = name.removeprefix("Heading ")
        return int(level) if level.isdigit() else 0
    return 0


def extract(data: bytes, display: str) -> Extracted:
    """Paragraphs (headings as Markdown ``#``, list items with ``- ``) and tables (``| a | b |``,
    as ``table_row`` writes them) in the order they stand in the body.

    Raises:
        DocumentError: python-docx is missing, or the file is not a valid DOCX.
    """
    docx = require("docx", "DOCX files")
    open_zip(data, display, "DOCX file").close()
    try:
        document = docx.Document(io.BytesIO(data))
        lines: list[str] = []
        tables = 0
        for block in document.iter_inner_content():
            if isinstance(block, docx.table.Table):
                tables += 1
                lines.append("")
                lines.extend(table_row([cell.text for cell in row.cells]) for row in block.rows)
                lines.append("")
                continue
            text = block.text
            level = _heading_level(block)
            style = str(getattr(block.style, "name", "") or "")
            if level:
                lines.extend(["", "#" * level + " " + text, ""])
            elif style.startswith("List"):
                lines.append("- " + text)
            else:
                lines.extend(text.splitlines() or [""])
    except DocumentError:
        raise
    except Exception as exc:  # python-docx raises KeyError, lxml errors, ValueError on broken files
        raise DocumentError(f"{display} is not a valid DOCX file ({type(exc).__name__}: {exc}).") from None
    facts = f"{len(document.paragraphs)} paragraphs, {tables} tables"
    return Extracted("docx", tuple(squeeze([line.rstrip() for line in lines])), facts)
