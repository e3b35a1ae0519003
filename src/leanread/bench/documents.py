"""`leanread bench documents`: what `read` of a notebook, image or document costs in tokens.

Each sample is written by the real writer library of its format (pypdf, python-docx, odfpy,
ebooklib, Pillow, matplotlib), then read through a :class:`~leanread.session.Session`. The
fixture builders are also what ``tests/test_documents.py`` reads, so the figures and the tests
see the same files. Needs the ``docs`` and ``bench`` extras.
"""

from __future__ import annotations

import base64
import io
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import LeanreadError
from ..ledger.store import MemoryLedger
from ..session import Session
from ..tokens import count_tokens

# Anthropic's published estimate of an image's input tokens: width * height / 750.
PIXELS_PER_VISION_TOKEN = 750


def png_bytes(width: int, height: int, color: str = "white") -> bytes:
    """A plain PNG of ``width`` x ``height`` pixels filled with ``color``."""
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (width, height), color).save(out, "PNG")
    return out.getvalue()


def pdf_bytes(pages: list[list[str]], password: str | None = None) -> bytes:
    """A PDF with one page per item of ``pages``, each line drawn in Helvetica; AES-128 when ``password``."""
    import pypdf
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = pypdf.PdfWriter()
    font = writer._add_object(
        DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Font"),
                NameObject("/Subtype"): NameObject("/Type1"),
                NameObject("/BaseFont"): NameObject("/Helvetica"),
            }
        )
    )
    for lines in pages:
        page = writer.add_blank_page(612, 792)
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
        )
        stream = DecodedStreamObject()
        stream.set_data(("BT /F1 12 Tf 14 TL 72 720 Td " + " ".join(f"({t}) Tj T*" for t in lines) + " ET").encode())
        page[NameObject("/Contents")] = writer._add_object(stream)
    if password is not None:
        writer.encrypt(password, algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def docx_bytes() -> bytes:
    """A Word document with two headings, a bullet, a 2x2 table and two paragraphs."""
    import docx

    document = docx.Document()
    document.add_heading("Design notes", level=1)
    document.add_paragraph("The read tool pages through extracted lines.")
    document.add_heading("Limits", level=2)
    document.add_paragraph("Images are downscaled.", style="List Bullet")
    table = document.add_table(rows=2, cols=2)
    for r, row in enumerate([("format", "library"), ("PDF", "pypdf")]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    document.add_paragraph("The end.")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def odt_bytes() -> bytes:
    """An OpenDocument text with a heading, a paragraph, a two-item list and a 2x2 table."""
    from odf.opendocument import OpenDocumentText  # type: ignore[import-untyped]
    from odf.table import Table, TableCell, TableColumn, TableRow  # type: ignore[import-untyped]
    from odf.text import H, List, ListItem, P  # type: ignore[import-untyped]

    document = OpenDocumentText()
    document.text.addElement(H(outlinelevel=1, text="Release notes"))
    document.text.addElement(P(text="Version 2 reads documents."))
    items = List()
    for text in ("PDF", "DOCX"):
        item = ListItem()
        item.addElement(P(text=text))
        items.addElement(item)
    document.text.addElement(items)
    table = Table(name="Kinds")
    table.addElement(TableColumn(numbercolumnsrepeated=2))
    for row in (("kind", "library"), ("ODT", "odfpy")):
        cells = TableRow()
        for value in row:
            cell = TableCell()
            cell.addElement(P(text=value))
            cells.addElement(cell)
        table.addElement(cells)
    document.text.addElement(table)
    document.text.addElement(P(text="Done."))
    out = io.BytesIO()
    document.write(out)
    return out.getvalue()


def epub_bytes() -> bytes:
    """An EPUB of two chapters, spine order one then two."""
    from ebooklib import epub  # type: ignore[import-untyped]

    book = epub.EpubBook()
    book.set_identifier("guide-1")
    book.set_title("Field guide")
    book.set_language("en")
    one = epub.EpubHtml(title="One", file_name="ch1.xhtml", lang="en")
    one.content = "<h1>Chapter one</h1><p>Birds <b>fly</b>.</p><ul><li>crow</li><li>owl</li></ul>"
    two = epub.EpubHtml(title="Two", file_name="ch2.xhtml", lang="en")
    two.content = "<h2>Chapter two</h2><p>Fish swim.</p>"
    for chapter in (one, two):
        book.add_item(chapter)
    book.toc = (one, two)
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = [one, two]
    out = io.BytesIO()
    epub.write_epub(out, book)
    return out.getvalue()


RTF_SAMPLE = rb"{\rtf1\ansi\deff0{\fonttbl{\f0 Times;}}\f0\fs24 Caf\'e9 menu\par\b Soup\b0  of the day\par}"


def _plot_png(scale: int, size: tuple[float, float] = (6.4, 4.8), panels: tuple[int, int] = (1, 1)) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(*panels, figsize=size, dpi=100, squeeze=False)
    for i, ax in enumerate(axes.flat):
        ax.plot([x * (scale + i) % 17 for x in range(200)])
        ax.set_title(f"panel {i}")
        ax.grid(True)
    out = io.BytesIO()
    fig.savefig(out, format="png", dpi=100)
    plt.close(fig)
    return out.getvalue()


def plots_notebook(plots: int = 8) -> bytes:
    """A Jupyter notebook (nbformat 4) of ``plots`` markdown + code cell pairs, each with a matplotlib PNG."""
    cells: list[dict[str, Any]] = []
    for i in range(1, plots + 1):
        cells.append({"cell_type": "markdown", "metadata": {}, "source": f"## Step {i}\nPlot series {i}."})
        output = {
            "output_type": "display_data",
            "metadata": {},
            "data": {
                "image/png": base64.b64encode(_plot_png(i)).decode("ascii"),
                "text/plain": "<Figure size 640x480 with 1 Axes>",
            },
        }
        cells.append(
            {
                "cell_type": "code",
                "execution_count": i,
                "metadata": {},
                "source": f"plt.plot(series[{i}])",
                "outputs": [output],
            }
        )
    notebook = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
        "cells": cells,
    }
    return json.dumps(notebook, indent=1).encode()


def noise_png(width: int, height: int) -> bytes:
    """Gaussian noise as PNG: the worst case for compression."""
    from PIL import Image

    out = io.BytesIO()
    Image.effect_noise((width, height), 30).convert("RGB").save(out, "PNG")
    return out.getvalue()


def samples() -> dict[str, bytes]:
    """File name -> bytes of each benchmarked sample."""
    return {
        "plots.ipynb": plots_notebook(),
        "screenshot.png": _plot_png(1, size=(30.4, 20), panels=(2, 3)),
        "noise-3040x2000.png": noise_png(3040, 2000),
        "report.pdf": pdf_bytes([["Quarterly report", "Revenue grew."] * 20, ["Appendix"] * 10]),
        "notes.docx": docx_bytes(),
        "notes.odt": odt_bytes(),
        "guide.epub": epub_bytes(),
        "menu.rtf": RTF_SAMPLE,
    }


@dataclass(frozen=True)
class SampleCost:
    """One sample: its size in bytes, raw tokens (text, or base64 for binaries) and leanread's cost."""

    name: str
    kind: str
    size: int
    raw_tokens: int
    result_tokens: int
    image: tuple[int, int, int] | None  # width px, height px, bytes sent


def bench_documents() -> list[SampleCost]:
    """Write each sample into a temporary workspace root and read it once through a session.

    Raises:
        LeanreadError: a sample's read was refused (its reason quoted), such as an extra missing.
        ImportError: a writer library of the ``docs`` or ``bench`` extra is missing.
    """
    costs = []
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        session = Session([root], ledger=MemoryLedger())
        for name, data in samples().items():
            (root / name).write_bytes(data)
            result = session.read(name)
            if result.is_error:  # an extra missing for this kind: the read's own sentence names it
                raise LeanreadError(f"leanread bench documents could not read {name}: {result.text}")
            try:
                raw = data.decode("utf-8")
            except UnicodeDecodeError:
                raw = base64.b64encode(data).decode("ascii")
            image = None
            if result.images:
                first = result.images[0]
                image = (first.width, first.height, len(base64.b64decode(first.data)))
            costs.append(
                SampleCost(
                    name,
                    str(result.metadata["type"]),
                    len(data),
                    count_tokens(raw),
                    count_tokens(result.text),
                    image,
                )
            )
    return costs


def markdown_report(costs: list[SampleCost], command: str) -> str:
    """The BENCHMARKS.md table for ``costs``, headed by the command that made it."""
    lines = [
        f"Command: `{command}`",
        "",
        "| file | bytes | raw tokens (text or base64) | leanread text tokens | image sent |",
        "| --- | ---: | ---: | ---: | --- |",
    ]
    for cost in costs:
        image = "—"
        if cost.image:
            width, height, size = cost.image
            vision = width * height // PIXELS_PER_VISION_TOKEN
            image = f"{width}x{height} px, {size:,} bytes (≈{vision:,} vision tokens at w·h/750)"
        lines.append(
            f"| {cost.name} ({cost.kind}) | {cost.size:,} | {cost.raw_tokens:,} | {cost.result_tokens:,} | {image} |"
        )
    return "\n".join(lines)
