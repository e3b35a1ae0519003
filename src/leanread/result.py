"""The result every tool returns: what the model sees, and what the harness may want to know."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ToolResult:
    """One tool result.

    Attributes:
        text: exactly what the model is shown.
        is_error: True when the call was refused; ``text`` then says why and what to do next.
        metadata: facts for the harness, never shown to the model. For ``read``: ``call_id``,
            ``path``, ``type``, ``offset``/``last_line`` (1-based range shown), ``total_lines``,
            ``next_offset`` (None at end of file), ``truncated`` (``None``, ``"limit"`` or
            ``"bytes"``), ``cut_lines`` (line numbers cut at the line cap), ``unchanged_since``
            (call ids a stub points to, else None), ``content_hash`` (SHA-256 of the file's
            bytes), ``size`` (bytes), ``mtime_ns``, ``tokens`` (o200k_base tokens of ``text``;
            an image read adds its ``image_tokens``) and ``full_tokens`` (what the plain full
            read it stands for costs: the same read with ``mode="full"`` in the ``plain`` format,
            within the same caps, without stubs, markers, diffs, outlines or focus; a symbol
            read's, with a path or found in the workspace, read or as a big class's map, is the
            whole file's; with the same instruction files). Every tool's result gives both: a
            grep's ``full_tokens`` is its page without focus; ls, edit and write, a list of
            definitions (or none found) and a symbol's uses stand for nothing longer
            (``full_tokens`` = ``tokens``).
        images: images the model is shown next to ``text`` (a ``read`` of a PNG, JPEG, GIF or
            WebP file); ``text`` gives their original and sent dimensions.
    """

    text: str
    is_error: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)
    images: tuple[ImageData, ...] = ()


@dataclass(frozen=True)
class ImageData:
    """One image of a result.

    Attributes:
        data: the image, base64-encoded (as MCP image content carries it).
        mime_type: ``image/png``, ``image/jpeg``, ``image/gif`` or ``image/webp``.
        width, height: its size in pixels.
    """

    data: str
    mime_type: str
    width: int
    height: int
