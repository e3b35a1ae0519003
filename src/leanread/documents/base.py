"""What every extractor shares: its result, its error, optional imports and zip guards."""

from __future__ import annotations

import importlib
import io
import zipfile
from dataclasses import dataclass
from types import ModuleType

from ..errors import NotText

#: Uncompressed bytes a zip-based document (DOCX, ODT, EPUB) may hold in all.
MAX_UNZIPPED_BYTES = 256 * 1024 * 1024
#: Uncompressed over compressed size above which a zip member counts as a bomb.
MAX_ZIP_RATIO = 200


class DocumentError(NotText):
    """A document cannot be turned into text: encrypted, corrupt, a zip bomb, or the optional
    library that reads it is not installed."""


@dataclass(frozen=True)
class Extracted:
    """A document as text.

    Attributes:
        kind: what it is, as ``<type>`` names it: ``notebook``, ``pdf``, ``docx``, ``epub``,
            ``rtf``, ``odt``.
        lines: the extracted text, one entry per line; pages, sections and cells are marked.
        facts: a short description for the metadata (``12 pages``, ``8 cells``).
    """

    kind: str
    lines: tuple[str, ...]
    facts: str = ""


@dataclass(frozen=True)
class ImagePayload:
    """An image as it is sent to the model.

    Attributes:
        data: the encoded image sent (PNG, JPEG, GIF or WebP bytes).
        mime_type: its MIME type.
        format: the source file's format (``PNG``, ``JPEG``, ``GIF``, ``WEBP``).
        original_size: (width, height) of the source image in pixels.
        sent_size: (width, height) of the image sent.
        frames: frames in the source (animated GIF/WebP: only the first is sent).
    """

    data: bytes
    mime_type: str
    format: str
    original_size: tuple[int, int]
    sent_size: tuple[int, int]
    frames: int = 1


def require(module: str, what: str) -> ModuleType:
    """Import an optional library, or say which extra installs it.

    Raises:
        DocumentError: the library is not installed.
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise DocumentError(
            f"Reading {what} needs the optional document support: pip install 'leanread[docs]'."
        ) from None


def lines_of(text: str) -> list[str]:
    """``text`` split into lines (any line ending), trailing spaces dropped."""
    return [line.rstrip() for line in text.splitlines()]


def table_row(cells: list[str]) -> str:
    """One table row as a Markdown line, ``| a | b\\|c | d<br>e |``: each cell's ``|`` escaped as
    ``\\|`` and its line breaks shown as ``<br>``, so a row has as many columns as in the file and
    no cell's lines are silently joined."""
    shown = ("<br>".join(cell.strip().splitlines()).replace("|", "\\|") for cell in cells)
    return "| " + " | ".join(shown) + " |"


def squeeze(lines: list[str]) -> list[str]:
    """``lines`` with runs of blank lines cut to one and no blank lines at either end."""
    out: list[str] = []
    for line in lines:
        if not line.strip() and (not out or not out[-1]):
            continue
        out.append(line if line.strip() else "")
    while out and not out[-1]:
        out.pop()
    return out


def open_zip(data: bytes, display: str, what: str) -> zipfile.ZipFile:
    """The zip archive of a DOCX/ODT/EPUB after checking it cannot blow up memory: at most
    ``MAX_UNZIPPED_BYTES`` in all and no member compressed more than ``MAX_ZIP_RATIO`` times.

    Raises:
        DocumentError: not a zip archive, or one that would unpack too far.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError):
        raise DocumentError(f"{display} is not a valid {what} (its zip container is corrupt).") from None
    infos = archive.infolist()
    total = sum(info.file_size for info in infos)
    bomb = any(
        info.file_size > 1024 * 1024 and info.file_size > MAX_ZIP_RATIO * max(info.compress_size, 1) for info in infos
    )
    if total > MAX_UNZIPPED_BYTES or bomb:
        raise DocumentError(
            f"{display} would unpack to {total} bytes from {len(data)} (a zip bomb?); leanread does not extract it."
        )
    return archive
