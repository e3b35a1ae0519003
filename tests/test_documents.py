"""Documents, notebooks and images through ``read``: fixtures written by the real writer
libraries (Pillow, python-docx, pypdf, JSON for notebooks), exact extracted text."""

from __future__ import annotations

import base64
import io
import json
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp_types import ImageContent, TextContent
from PIL import Image

from leanread import MemoryLedger, Session
from leanread.bench.documents import docx_bytes, epub_bytes, noise_png, odt_bytes, pdf_bytes, png_bytes
from leanread.config.settings import load_settings
from leanread.documents import images, registry
from leanread.documents.html import html_lines
from leanread.mcp.server import build_server
from leanread.tokens import count_tokens

docx = pytest.importorskip("docx")
pypdf = pytest.importorskip("pypdf")


def _cell(source: str, count: int | None, outputs: list[dict[str, Any]]) -> dict[str, Any]:
    return {"cell_type": "code", "execution_count": count, "metadata": {}, "source": source, "outputs": outputs}


PLOT = png_bytes(640, 480, "blue")


def _notebook() -> dict[str, Any]:
    plot = base64.b64encode(PLOT).decode("ascii")
    return {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {"kernelspec": {"language": "python", "name": "python3", "display_name": "Python 3"}},
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["# Sales\n", "Monthly totals."]},
            _cell(
                "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])",
                1,
                [
                    {
                        "output_type": "execute_result",
                        "execution_count": 1,
                        "metadata": {},
                        "data": {"text/plain": ["[<matplotlib.lines.Line2D at 0x7f>]"]},
                    },
                    {
                        "output_type": "display_data",
                        "metadata": {},
                        "data": {"image/png": plot, "text/plain": ["<Figure size 640x480 with 1 Axes>"]},
                    },
                ],
            ),
            _cell(
                "for i in range(500):\n    print(i)",
                2,
                [{"output_type": "stream", "name": "stdout", "text": "".join(f"{i}\n" for i in range(500))}],
            ),
            _cell("print('done')", 3, [{"output_type": "stream", "name": "stdout", "text": ["done\n"]}]),
            _cell(
                "1/0",
                None,
                [
                    {
                        "output_type": "error",
                        "ename": "ZeroDivisionError",
                        "evalue": "division by zero",
                        "traceback": ["\x1b[0;31m---\x1b[0m", "ZeroDivisionError"],
                    }
                ],
            ),
        ],
    }


NOTEBOOK_TEXT = (
    "<path>sales.ipynb</path>\n<type>notebook</type>\n<content>\n"
    "[cell 1: markdown]\n# Sales\nMonthly totals.\n\n"
    "[cell 2: code, In [1]]\nimport matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\n"
    "[output: result]\n[<matplotlib.lines.Line2D at 0x7f>]\n"
    "[output: display_data]\n<Figure size 640x480 with 1 Axes>\n"
    f"[output: display_data image/png, {len(PLOT)} bytes; image not shown]\n\n"
    "[cell 3: code, In [2]]\nfor i in range(500):\n    print(i)\n"
    "[output: stdout: 500 lines, 1890 bytes; not shown]\n\n"
    "[cell 4: code, In [3]]\nprint('done')\n[output: stdout]\ndone\n\n"
    "[cell 5: code, In [ ]]\n1/0\n[output: error, traceback of 2 frames not shown]\n"
    "ZeroDivisionError: division by zero\n\n"
    "(End of file - total 27 lines)\n</content>"
)


def test_notebook_cells_outputs_and_plot_placeholders(session: Session, root: Path) -> None:
    raw = json.dumps(_notebook(), indent=1)
    (root / "sales.ipynb").write_text(raw)
    result = session.read("sales.ipynb")
    assert result.text == NOTEBOOK_TEXT
    assert "iVBOR" not in result.text  # no base64 reaches the model
    meta = result.metadata
    assert (meta["type"], meta["total_lines"], meta["facts"]) == ("notebook", 27, "5 cells, python")
    assert meta["size"] == len(raw.encode())
    assert meta["tokens"] < len(raw) // 20


def test_notebook_pages_dedups_and_goes_on(session: Session, root: Path) -> None:
    (root / "sales.ipynb").write_text(json.dumps(_notebook()))
    page = session.read("sales.ipynb", offset=1, limit=3)
    assert page.text == (
        "<path>sales.ipynb</path>\n<type>notebook</type>\n<content>\n"
        "[cell 1: markdown]\n# Sales\nMonthly totals.\n\n"
        "(Showing lines 1-3 of 27. Use offset=4 to continue.)\n</content>"
    )
    window = session.read("sales.ipynb", offset=4, limit=17)  # 137 tokens: a stub pays
    again = session.read("sales.ipynb", offset=4, limit=17)
    assert again.metadata["unchanged_since"] == [window.metadata["call_id"]]
    assert again.text == (
        "<path>sales.ipynb</path>\n<type>notebook</type>\n<content>\n"
        "(Lines 4-20 unchanged since you read them, still in your context. Use fresh=true to see them again.)\n\n"
        "(Showing lines 4-20 of 27. Use offset=21 to continue.)\n</content>"
    )
    follow = session.read(offset=12, limit=2)  # path omitted: goes on with the notebook
    assert follow.text == (
        "<path>sales.ipynb</path>\n<type>notebook</type>\n<content>\n"
        f"[output: display_data image/png, {len(PLOT)} bytes; image not shown]\n\n\n"
        "(Showing lines 12-13 of 27. Use offset=14 to continue.)\n</content>"
    )


def test_notebook_cells_grant_no_edit_of_its_json(session: Session, root: Path) -> None:
    (root / "sales.ipynb").write_text(json.dumps(_notebook(), indent=1))
    session.read("sales.ipynb")
    refused = session.edit("sales.ipynb", "print('done')", "print('finished')")
    assert refused.is_error and "read" in refused.text
    raw = session.read("sales.ipynb", mode="full", offset=1, limit=2)
    assert raw.text.startswith('<path>sales.ipynb</path>\n<type>file</type>\n<content>\n{\n "nbformat": 4,\n')
    session.read("sales.ipynb", mode="full")
    assert not session.edit("sales.ipynb", "print('done')", "print('finished')").is_error
    assert "print('finished')" in session.read("sales.ipynb").text


SCREENSHOT = (3040, 2000)


def test_screenshot_is_downscaled_with_dimensions_stated(session: Session, root: Path) -> None:
    data = png_bytes(*SCREENSHOT)
    (root / "shot.png").write_bytes(data)
    result = session.read("shot.png")
    assert not result.is_error
    (image,) = result.images
    sent = base64.b64decode(image.data)
    assert result.text == (
        "<path>shot.png</path>\n<type>image</type>\n<content>\n"
        f"(PNG image, 3040x2000 px, {len(data)} bytes; sent downscaled as PNG 2000x1316 px, {len(sent)} bytes.)\n"
        "</content>"
    )
    assert (image.mime_type, image.width, image.height) == ("image/png", 2000, 1316)
    assert Image.open(io.BytesIO(sent)).size == (2000, 1316)
    assert result.metadata["original_size"] == [3040, 2000]
    again = session.read("shot.png")
    assert again.text == (
        "<path>shot.png</path>\n<type>image</type>\n<content>\n(Image unchanged since you read it in r1, still in "
        "your context. Use fresh=true to see it again.)\n</content>"
    )
    assert again.images == () and again.metadata["unchanged_since"] == ["r1"]
    assert session.read("shot.png", fresh=True).images == result.images
    session.forget("r1")
    session.forget("r3")
    assert session.read("shot.png").images == result.images


def test_small_image_is_sent_as_it_is(session: Session, root: Path) -> None:
    data = png_bytes(32, 16, "red")
    (root / "icon.png").write_bytes(data)
    result = session.read("icon.png")
    assert result.text == (
        "<path>icon.png</path>\n<type>image</type>\n<content>\n"
        f"(PNG image, 32x16 px, {len(data)} bytes; sent as it is.)\n</content>"
    )
    assert base64.b64decode(result.images[0].data) == data


def test_image_over_the_byte_budget_shrinks_to_fit() -> None:
    noise = Image.effect_noise((1500, 1500), 80).convert("RGB")
    out = io.BytesIO()
    noise.save(out, "PNG")
    payload = images.prepare(out.getvalue(), "noise.png", max_bytes=200_000)
    assert len(payload.data) <= 200_000
    assert payload.mime_type == "image/jpeg"
    assert max(payload.sent_size) <= 1500


def test_image_limits_come_from_the_project_settings(root: Path) -> None:
    (root / "leanread.toml").write_text("image_max_side = 400\nimage_max_bytes = 60000\n")
    (root / "noise.png").write_bytes(noise_png(1200, 800))
    session = Session([root], ledger=MemoryLedger(), limits=load_settings(root).limits)
    (image,) = session.read("noise.png").images
    assert max(image.width, image.height) <= 400
    assert len(base64.b64decode(image.data)) <= 60_000


def test_animated_gif_sends_its_first_frame(session: Session, root: Path) -> None:
    frames = [Image.new("RGB", (2400, 100), color) for color in ("red", "green", "blue")]
    out = io.BytesIO()
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:], duration=100, loop=0)
    (root / "spin.gif").write_bytes(out.getvalue())
    result = session.read("spin.gif")
    assert "GIF image, 2400x100 px" in result.text
    assert "3 frames (first sent); sent downscaled as PNG 2000x83 px" in result.text


def test_huge_jpeg_decodes_reduced(session: Session, root: Path) -> None:
    out = io.BytesIO()
    Image.new("RGB", (8000, 6000), "gray").save(out, "JPEG", quality=50)
    (root / "big.jpg").write_bytes(out.getvalue())
    result = session.read("big.jpg")
    assert "JPEG image, 8000x6000 px" in result.text
    assert (result.images[0].width, result.images[0].height) == (2000, 1500)


def test_image_bomb_is_refused(root: Path, session: Session) -> None:
    out = io.BytesIO()
    Image.new("1", (25000, 25000)).save(out, "PNG")  # 625 Mpx, a few kB
    (root / "bomb.png").write_bytes(out.getvalue())
    result = session.read("bomb.png")
    assert result.is_error
    assert (
        result.text == "bomb.png is an image of 625000000 pixels, too large to decode safely; crop or scale it first."
    )


def test_pdf_pages_are_marked(session: Session, root: Path) -> None:
    (root / "report.pdf").write_bytes(pdf_bytes([["Quarterly report", "Revenue grew."], ["Appendix"]]))
    result = session.read("report.pdf")
    assert result.text == (
        "<path>report.pdf</path>\n<type>pdf</type>\n<content>\n"
        "[page 1 of 2]\nQuarterly report\nRevenue grew.\n\n[page 2 of 2]\nAppendix\n\n"
        "(End of file - total 6 lines)\n</content>"
    )
    assert result.metadata["facts"] == "2 pages"


def test_encrypted_and_corrupt_pdfs_are_one_sentence(session: Session, root: Path) -> None:
    (root / "secret.pdf").write_bytes(pdf_bytes([["hidden"]], password="s3cret"))
    (root / "broken.pdf").write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog")
    secret = session.read("secret.pdf")
    assert secret.is_error
    assert secret.text == "secret.pdf is an encrypted PDF that needs a password; leanread cannot read it."
    broken = session.read("broken.pdf")
    assert broken.is_error and broken.text.startswith("broken.pdf is not a readable PDF (")
    assert "Traceback" not in broken.text


def test_docx_headings_lists_and_tables(session: Session, root: Path) -> None:
    (root / "notes.docx").write_bytes(docx_bytes())
    result = session.read("notes.docx")
    assert result.text == (
        "<path>notes.docx</path>\n<type>docx</type>\n<content>\n"
        "# Design notes\n\nThe read tool pages through extracted lines.\n\n## Limits\n\n"
        "- Images are downscaled.\n\n| format | library |\n| PDF | pypdf |\n\nThe end.\n\n"
        "(End of file - total 12 lines)\n</content>"
    )


def test_docx_sniffed_by_content_not_extension(session: Session, root: Path) -> None:
    (root / "upload.bin").write_bytes(docx_bytes())
    assert session.read("upload.bin").metadata["type"] == "docx"


def test_corrupt_docx_and_plain_zip(session: Session, root: Path) -> None:
    data = bytearray(docx_bytes())
    start = data.index(b"word/document.xml") + 40
    data[start : start + 200] = b"\x00" * 200  # damage the main part's compressed bytes
    (root / "broken.docx").write_bytes(bytes(data))
    broken = session.read("broken.docx")
    assert broken.is_error and broken.text.startswith("broken.docx is not a valid DOCX file (")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("a.txt", "hello")
    (root / "plain.zip").write_bytes(out.getvalue())
    assert session.read("plain.zip").text.startswith("plain.zip is a ZIP archive")


def test_zip_bomb_docx_is_refused(session: Session, root: Path) -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", b"\x00" * (300 * 1024 * 1024))
    (root / "bomb.docx").write_bytes(out.getvalue())
    result = session.read("bomb.docx")
    assert result.is_error
    assert result.text == (
        f"bomb.docx would unpack to {300 * 1024 * 1024 + 8} bytes from {len(out.getvalue())} "
        "(a zip bomb?); leanread does not extract it."
    )


def test_missing_library_names_the_extra(session: Session, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (root / "report.pdf").write_bytes(pdf_bytes([["x"]]))
    monkeypatch.setitem(sys.modules, "pypdf", None)  # import pypdf now fails
    monkeypatch.setattr(registry, "_CACHE", type(registry._CACHE)())
    result = session.read("report.pdf")
    assert result.is_error
    assert result.text == "Reading PDF files needs the optional document support: pip install 'leanread[docs]'."


def test_extraction_is_cached_per_content(session: Session, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = registry._EXTRACTORS["notebook"]

    def counting(data: bytes, display: str) -> Any:
        calls.append(display)
        return real(data, display)

    monkeypatch.setitem(registry._EXTRACTORS, "notebook", counting)
    nb = _notebook()
    nb["cells"][0]["source"] = "# cached once"
    (root / "a.ipynb").write_text(json.dumps(nb))
    (root / "b.ipynb").write_text(json.dumps(nb))
    session.read("a.ipynb", fresh=True)
    session.read("a.ipynb", fresh=True)
    session.read("b.ipynb")
    assert calls == ["a.ipynb"]


@pytest.mark.anyio
async def test_mcp_sends_image_content_next_to_text(root: Path) -> None:
    (root / "shot.png").write_bytes(png_bytes(*SCREENSHOT))
    (root / "sales.ipynb").write_text(json.dumps(_notebook()))
    async with Client(build_server([root])) as client:
        image = await client.call_tool("read", {"path": "shot.png"})
        notebook = await client.call_tool("read", {"path": "sales.ipynb"})
    text, picture = image.content
    assert isinstance(text, TextContent) and "sent downscaled as PNG 2000x1316 px" in text.text
    assert isinstance(picture, ImageContent) and picture.mime_type == "image/png"
    assert Image.open(io.BytesIO(base64.b64decode(picture.data))).size == (2000, 1316)
    assert [type(block) for block in notebook.content] == [TextContent]
    assert notebook.content[0].text == NOTEBOOK_TEXT  # type: ignore[union-attr]


def test_odt_headings_lists_and_tables(session: Session, root: Path) -> None:
    pytest.importorskip("odf")
    (root / "notes.odt").write_bytes(odt_bytes())
    assert session.read("notes.odt").text == (
        "<path>notes.odt</path>\n<type>odt</type>\n<content>\n"
        "# Release notes\n\nVersion 2 reads documents.\n- PDF\n- DOCX\n\n"
        "| kind | library |\n| ODT | odfpy |\n\nDone.\n\n"
        "(End of file - total 10 lines)\n</content>"
    )


def test_a_big_document_read_whole_is_its_text_as_the_description_says(session: Session, root: Path) -> None:
    pages = [[f"page {p} line {i}" for i in range(25)] for p in range(1, 13)]  # 323 lines with page markers
    (root / "long.pdf").write_bytes(pdf_bytes(pages))
    result = session.read("long.pdf")
    assert (result.metadata["mode"], result.metadata["total_lines"]) == ("full", 323)
    assert result.text.startswith("<path>long.pdf</path>\n<type>pdf</type>\n<content>\n[page 1 of 12]\npage 1 line 0\n")


TABLE_ROW = "| c\\|pipe | d<br>newline<br>second para |"


def test_docx_table_cells_keep_their_pipes_and_line_breaks(session: Session, root: Path) -> None:
    document = docx.Document()
    table = document.add_table(rows=1, cols=2)
    table.cell(0, 0).text = "c|pipe"
    table.cell(0, 1).text = "d\nnewline"  # a line break in the cell's paragraph
    table.cell(0, 1).add_paragraph("second para")
    out = io.BytesIO()
    document.save(out)
    (root / "cells.docx").write_bytes(out.getvalue())
    assert session.read("cells.docx").text == (
        f"<path>cells.docx</path>\n<type>docx</type>\n<content>\n{TABLE_ROW}\n\n"
        "(End of file - total 1 line)\n</content>"
    )


def test_odt_table_cells_keep_pipes_line_breaks_and_paragraphs(session: Session, root: Path) -> None:
    pytest.importorskip("odf")
    from odf.opendocument import OpenDocumentText  # type: ignore[import-untyped]
    from odf.table import Table, TableCell, TableColumn, TableRow  # type: ignore[import-untyped]
    from odf.text import LineBreak, P  # type: ignore[import-untyped]

    document, table, row = OpenDocumentText(), Table(name="T"), TableRow()
    table.addElement(TableColumn(numbercolumnsrepeated=2))
    first, second, broken = TableCell(), TableCell(), P(text="d")
    first.addElement(P(text="c|pipe"))
    broken.addElement(LineBreak())
    broken.addText("newline")
    second.addElement(broken)
    second.addElement(P(text="second para"))  # odfpy's extractText ran the two paragraphs together
    row.addElement(first)
    row.addElement(second)
    table.addElement(row)
    document.text.addElement(table)
    outside = P(text="line one")
    outside.addElement(LineBreak())
    outside.addText("line two")
    document.text.addElement(outside)
    out = io.BytesIO()
    document.write(out)
    (root / "cells.odt").write_bytes(out.getvalue())
    assert session.read("cells.odt").text == (
        f"<path>cells.odt</path>\n<type>odt</type>\n<content>\n{TABLE_ROW}\n\nline one\nline two\n\n"
        "(End of file - total 4 lines)\n</content>"
    )


def test_epub_table_rows_are_one_line_each_with_cells_escaped() -> None:
    markup = (
        "<html><body><table><tr><th>a</th><th>b</th></tr><tr><td>c|pipe</td>"
        "<td>d<br/>newline<p>second para</p></td></tr><tr><td><p>only</p></td><td></td></tr></table>"
        "<p>After | bar</p></body></html>"
    )
    assert html_lines(markup) == ["| a | b |", TABLE_ROW, "| only | |", "After | bar"]


def test_epub_sections_in_reading_order(session: Session, root: Path) -> None:
    pytest.importorskip("ebooklib")
    (root / "guide.epub").write_bytes(epub_bytes())
    result = session.read("guide.epub")
    assert result.text == (
        "<path>guide.epub</path>\n<type>epub</type>\n<content>\n"
        "[section 1 of 2: ch1.xhtml]\n# Chapter one\n\nBirds fly.\n\n- crow\n- owl\n\n"
        "[section 2 of 2: ch2.xhtml]\n## Chapter two\n\nFish swim.\n\n"
        "(End of file - total 12 lines)\n</content>"
    )
    assert result.metadata["facts"] == "2 sections, Field guide"


def test_zip_bomb_disguised_as_epub(session: Session, root: Path) -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        archive.writestr("OEBPS/ch1.xhtml", b" " * (50 * 1024 * 1024))
    (root / "book.epub").write_bytes(out.getvalue())
    result = session.read("book.epub")
    assert result.is_error
    assert result.text.startswith(f"book.epub would unpack to {50 * 1024 * 1024 + 20} bytes from ")
    assert result.text.endswith("(a zip bomb?); leanread does not extract it.")


def test_rtf_text_with_legacy_escapes(session: Session, root: Path) -> None:
    pytest.importorskip("striprtf")
    (root / "menu.rtf").write_bytes(
        rb"{\rtf1\ansi\deff0{\fonttbl{\f0 Times;}}\f0\fs24 Caf\'e9 menu\par\b Soup\b0  of the day\par}"
    )
    assert session.read("menu.rtf").text == (
        "<path>menu.rtf</path>\n<type>rtf</type>\n<content>\nCafé menu\nSoup of the day\n\n"
        "(End of file - total 2 lines)\n</content>"
    )


def test_broken_notebook_json_is_shown_as_text(session: Session, root: Path) -> None:
    (root / "merge.ipynb").write_text('{\n<<<<<<< HEAD\n "cells": []\n=======\n')
    result = session.read("merge.ipynb")
    assert result.metadata["type"] == "file"
    assert "<<<<<<< HEAD" in result.text


def test_text_mentioning_pdf_magic_stays_text(session: Session, root: Path) -> None:
    (root / "make_pdf.py").write_text('HEADER = b"%PDF-1.7"\n')
    assert session.read("make_pdf.py").metadata["type"] == "file"


MPL_DATA = Path(Image.__file__).parents[1] / "matplotlib" / "mpl-data"


def test_real_files_from_installed_packages(session: Session, root: Path) -> None:
    pdf, photo = MPL_DATA / "images" / "matplotlib.pdf", MPL_DATA / "sample_data" / "grace_hopper.jpg"
    if not (pdf.exists() and photo.exists()):
        pytest.skip("matplotlib's sample files are not installed")
    (root / "logo.pdf").write_bytes(pdf.read_bytes())
    (root / "hopper.jpg").write_bytes(photo.read_bytes())
    assert session.read("logo.pdf").text == (
        "<path>logo.pdf</path>\n<type>pdf</type>\n<content>\n[page 1 of 1]\n"
        "(no text on this page: it is a drawing or a scanned image)\n\n(End of file - total 2 lines)\n</content>"
    )
    jpeg = session.read("hopper.jpg")
    assert jpeg.text == (
        "<path>hopper.jpg</path>\n<type>image</type>\n<content>\n"
        f"(JPEG image, 512x600 px, {photo.stat().st_size} bytes; sent as it is.)\n</content>"
    )
    assert base64.b64decode(jpeg.images[0].data) == photo.read_bytes()


def test_bench_documents_table_states_each_cost() -> None:
    from leanread.bench.documents import SampleCost, markdown_report

    costs = [
        SampleCost("shot.png", "image", 821_583, 741_817, 58, (2000, 1316, 797_188)),
        SampleCost("menu.rtf", "rtf", 91, 42, 42, None),
    ]
    assert markdown_report(costs, "leanread bench documents").splitlines()[-2:] == [
        "| shot.png (image) | 821,583 | 741,817 | 58 | 2000x1316 px, 797,188 bytes (≈3,509 vision tokens at w·h/750) |",
        "| menu.rtf (rtf) | 91 | 42 | 42 | — |",
    ]


def test_broken_images_and_zips_are_refused_not_sent(session: Session, root: Path) -> None:
    whole = png_bytes(300, 200, "green")
    (root / "half.png").write_bytes(whole[: len(whole) // 2])
    flipped = bytearray(whole)
    flipped[40] ^= 0xFF  # inside the IHDR/IDAT data: the chunk's CRC no longer matches
    (root / "crc.png").write_bytes(bytes(flipped))
    (root / "cut.docx").write_bytes(docx_bytes()[:5000])
    for name, size in (("half.png", len(whole) // 2), ("crc.png", len(whole))):
        result = session.read(name)
        assert result.is_error and result.images == ()
        assert result.text == (
            f"{name} looks like an image ({size} bytes) but is corrupt or truncated; it cannot be shown."
        )
    assert session.read("cut.docx").text == (
        "cut.docx is not a readable DOCX document: its zip container is corrupt or truncated (File is not a zip file)."
    )


def test_odd_notebooks_say_what_they_hold(session: Session, root: Path) -> None:
    (root / "empty.ipynb").write_text('{"nbformat": 4, "cells": []}')
    (root / "odd.ipynb").write_text('{"nbformat": 4, "cells": [{"source": ["print(1)\\n", null, "x"]}]}')
    assert session.read("empty.ipynb").text == (
        "<path>empty.ipynb</path>\n<type>notebook</type>\n<content>\n(This notebook has no cells.)\n\n"
        "(End of file - total 1 line)\n</content>"
    )
    assert session.read("odd.ipynb").text == (
        "<path>odd.ipynb</path>\n<type>notebook</type>\n<content>\n[cell 1: untyped]\nprint(1)\nx\n\n"
        "(End of file - total 3 lines)\n</content>"
    )


def _no_outline(name: str, read_as: str) -> str:
    return f'(This {name} has no outline (mode="outline" is for text files), so it is read as {read_as}.)'


def test_mode_outline_of_a_document_says_it_has_none_and_what_it_read(session: Session, root: Path) -> None:
    (root / "report.pdf").write_bytes(pdf_bytes([["Quarterly report", "Revenue grew."], ["Appendix"]]))
    (root / "memo.docx").write_bytes(docx_bytes())
    pdf = session.read("report.pdf", mode="outline")
    pdf_note = _no_outline("PDF document", "its text; read any part with offset and limit")
    assert pdf.text == (
        "<path>report.pdf</path>\n<type>pdf</type>\n<content>\n"
        "[page 1 of 2]\nQuarterly report\nRevenue grew.\n\n[page 2 of 2]\nAppendix\n\n"
        f"(End of file - total 6 lines)\n</content>\n{pdf_note}"
    )
    assert (pdf.metadata["tokens"], pdf.metadata["full_tokens"]) == (count_tokens(pdf.text), 57)
    plain = Session([root], ledger=MemoryLedger()).read("memo.docx")
    docx_read = session.read("memo.docx", mode="outline")
    docx_note = _no_outline("DOCX document", "its text; read any part with offset and limit")
    assert docx_read.text == f"{plain.text}\n{docx_note}"
    assert session.read("report.pdf", offset=4).text.endswith("</content>")  # no mode: no note


def test_mode_outline_of_an_image_notebook_or_folder_says_it_has_none(session: Session, root: Path) -> None:
    data = png_bytes(32, 16, "red")
    (root / "icon.png").write_bytes(data)
    (root / "sales.ipynb").write_text(json.dumps(_notebook(), indent=1))
    (root / "merge.ipynb").write_text('{\n<<<<<<< HEAD\n "cells": []\n=======\n')
    (root / "docs").mkdir()
    (root / "docs" / "a.md").write_text("# A\n")
    image = session.read("icon.png", mode="outline")
    assert image.text == (
        "<path>icon.png</path>\n<type>image</type>\n<content>\n"
        f"(PNG image, 32x16 px, {len(data)} bytes; sent as it is.)\n</content>\n{_no_outline('image', 'the image')}"
    )
    assert base64.b64decode(image.images[0].data) == data
    assert image.metadata["tokens"] == count_tokens(image.text) + images.image_tokens(32, 16)
    notebook = session.read("sales.ipynb", mode="outline")
    cells = 'its cells; read any part with offset and limit, or its JSON with mode="full"'
    assert notebook.text == f"{NOTEBOOK_TEXT}\n{_no_outline('Jupyter notebook', cells)}"
    assert notebook.metadata["tokens"] == count_tokens(notebook.text)
    session.read("sales.ipynb", offset=4, limit=17)
    again = session.read("sales.ipynb", offset=4, limit=17, mode="outline")  # the model has it: a stub, still said
    assert again.text == (
        "<path>sales.ipynb</path>\n<type>notebook</type>\n<content>\n"
        "(Lines 4-20 unchanged since you read them, still in your context. Use fresh=true to see them again.)\n\n"
        f"(Showing lines 4-20 of 27. Use offset=21 to continue.)\n</content>\n{_no_outline('Jupyter notebook', cells)}"
    )
    folder = session.read("docs", mode="outline")
    assert folder.text == (
        "<path>docs</path>\n<type>directory</type>\n<content>\na.md\n\n"
        "(End of directory - total 1 entry; ls shows the tree below it)\n"
        f"</content>\n{_no_outline('directory', 'its entries; read any part with offset and limit')}"
    )
    broken = session.read("merge.ipynb", mode="outline")  # not notebook JSON: read as text, which has an outline
    assert (broken.metadata["type"], "no outline" in broken.text) == ("outline", False)
