"""Jupyter notebooks: cells as text with markers and execution counts; short text outputs
inline, long ones and every image as a placeholder with kind and size."""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any

from .base import DocumentError, Extracted

#: A text output is shown when it has at most this many lines and characters.
OUTPUT_LINES = 40
OUTPUT_CHARS = 4000

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_TEXT_TYPES = ("text/plain", "text/markdown", "application/json", "text/latex")
_IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp", "image/svg+xml")


def _text(value: Any) -> str:
    """A notebook's multi-line string: a string or a list of strings."""
    if isinstance(value, list):
        return "".join(str(part) for part in value if part is not None)
    return str(value) if value is not None else ""


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _image_bytes(mime: str, value: Any) -> int:
    raw = _text(value)
    if mime == "image/svg+xml":
        return len(raw.encode("utf-8"))
    try:
        return len(base64.b64decode(raw.encode("ascii"), validate=False))
    except (binascii.Error, ValueError, UnicodeEncodeError):
        return len(raw)


def _text_output(label: str, text: str) -> list[str]:
    """A text output inline when short, else a placeholder with its size."""
    text = _ANSI.sub("", text)
    lines = text.splitlines()
    if len(lines) <= OUTPUT_LINES and len(text) <= OUTPUT_CHARS:
        return [f"[{label}]", *lines]
    size = len(text.encode("utf-8"))
    return [f"[{label}: {_plural(len(lines), 'line')}, {size} bytes; not shown]"]


def _output(output: dict[str, Any]) -> list[str]:
    kind = str(output.get("output_type", "output"))
    if kind == "stream":
        return _text_output(f"output: {output.get('name', 'stream')}", _text(output.get("text")))
    if kind == "error":
        head = f"{output.get('ename', 'Error')}: {output.get('evalue', '')}".rstrip(": ")
        frames = len(output.get("traceback") or [])
        return [f"[output: error, traceback of {_plural(frames, 'frame')} not shown]", head]
    data = output.get("data") or {}
    if not isinstance(data, dict):
        return [f"[output: {kind}]"]
    label = f"output: {kind}" if kind != "execute_result" else "output: result"
    shown: list[str] = []
    for mime in data:
        if mime in _IMAGE_TYPES:
            size = _image_bytes(mime, data[mime])
            shown.append(f"[{label} {mime}, {size} bytes; image not shown]")
    text_mime = next((mime for mime in _TEXT_TYPES if mime in data), None)
    if text_mime is not None:
        shown[:0] = _text_output(label if text_mime == "text/plain" else f"{label} {text_mime}", _text(data[text_mime]))
    elif not shown:
        kinds = ", ".join(str(mime) for mime in data) or "no data"
        size = sum(len(_text(value).encode("utf-8")) for value in data.values())
        shown.append(f"[{label} {kinds}, {size} bytes; not shown]")
    return shown


def extract(data: bytes, display: str) -> Extracted:
    """The notebook's cells as text.

    Each cell starts with a marker line ``[cell 3: code, In [7]]`` (``In [ ]`` for a code cell
    never run); outputs follow their cell, each under ``[output: …]``.

    Raises:
        DocumentError: not JSON, or not a notebook.
    """
    try:
        notebook = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError):
        raise DocumentError(f"{display} is not a valid Jupyter notebook (it is not UTF-8 JSON).") from None
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        raise DocumentError(f"{display} is not a Jupyter notebook (it has no list of cells).")
    lines: list[str] = []
    language = ((notebook.get("metadata") or {}).get("kernelspec") or {}).get("language")
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            continue
        cell_type = str(cell.get("cell_type") or "untyped")
        marker = f"[cell {number}: {cell_type}"
        if cell_type == "code":
            count = cell.get("execution_count")
            marker += f", In [{count if count is not None else ' '}]"
        if lines:
            lines.append("")
        lines.append(marker + "]")
        lines.extend(_text(cell.get("source")).splitlines())
        for output in cell.get("outputs") or []:
            if isinstance(output, dict):
                lines.extend(_output(output))
    if not lines:
        lines.append("(This notebook has no cells.)")
    facts = _plural(len(cells), "cell") + (f", {language}" if language else "")
    return Extracted("notebook", tuple(lines), facts)
