"""ODT with odfpy: headings as ``#``, paragraphs, list items as ``- ``, tables as ``| a | b |``
(``table_row``)."""

from __future__ import annotations

import io
from typing import Any

from .base import DocumentError, Extracted, open_zip, require, squeeze, table_row


def _cell_text(cell: Any, teletype: Any) -> str:
    """A table cell's text, its paragraphs on lines of their own (``extractText`` runs them together)."""
    return "\n".join(teletype.extractText(part) for part in cell.childNodes)


def _walk(node: Any, teletype: Any, lines: list[str], depth: int = 0) -> None:
    for child in node.childNodes:
        name = getattr(child, "qname", None)
        if name is None:
            continue
        tag = name[1]
        if tag == "h":
            level = int(child.getAttribute("outlinelevel") or 1)
            lines.extend(["", *("#" * level + " " + teletype.extractText(child)).splitlines(), ""])
        elif tag == "p":  # a line break in it (text:line-break) starts a line
            lines.extend(teletype.extractText(child).splitlines() or [""])
        elif tag == "list":
            for item in child.childNodes:
                texts: list[str] = []
                _walk(item, teletype, texts, depth + 1)
                first, *rest = [t for t in texts if t.strip()] or [""]
                lines.append("- " + first)
                lines.extend("  " + t for t in rest)
        elif tag == "table":
            lines.append("")
            for row in child.getElementsByType(require("odf.table", "ODT files").TableRow):
                lines.append(table_row([_cell_text(cell, teletype) for cell in row.childNodes]))
            lines.append("")
        elif tag in ("section", "list-item", "list-header"):
            _walk(child, teletype, lines, depth)


def extract(data: bytes, display: str) -> Extracted:
    """The body text of an ODT document in order.

    Raises:
        DocumentError: odfpy is missing, the file would unpack too far, or it is corrupt.
    """
    opendocument = require("odf.opendocument", "ODT files")
    teletype = require("odf.teletype", "ODT files")
    open_zip(data, display, "ODT document").close()
    lines: list[str] = []
    try:
        document = opendocument.load(io.BytesIO(data))
        _walk(document.text, teletype, lines)
    except Exception as exc:  # odfpy raises KeyError, XML parse errors on broken files
        raise DocumentError(f"{display} is not a readable ODT document ({type(exc).__name__}: {exc}).") from None
    return Extracted("odt", tuple(squeeze([line.rstrip() for line in lines])), "")
