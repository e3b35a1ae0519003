"""The reader of images: image content downscaled to fit, its sizes in the text; a re-read of
the same bytes while the model still has them is a stub. ``tokens`` and ``full_tokens`` count
the text (o200k_base) and the image sent (``images.image_tokens``, Anthropic's estimate: o200k
has no measure of images), so a stub is seen to save the image."""

from __future__ import annotations

import base64
from typing import Any

from ...documents import ImagePayload
from ...documents import images as document_images
from ...files.textfile import content_hash
from ...memo import LRU
from ...result import ImageData, ToolResult
from ...tokens import count_tokens
from ...view.render import envelope
from ..common import knowledge_of, new_instructions, record_view
from .focus import unfocused
from .request import Job
from .shared import load_document, sight, with_instructions


def read(job: Job) -> ToolResult:
    """The image as image content, downscaled to fit; the text gives both sizes; instruction
    files governing it attached; never pruned by focus.

    Raises:
        NotText: the file is over ``documents.MAX_DOCUMENT_BYTES``.
        LeanreadError: the image cannot be decoded.
    """
    data = load_document(job.resolved, "image")
    result = with_instructions(_image(job, data), new_instructions(job.ctx, job.resolved))
    return unfocused(job.ctx, result, job.request.focus, "document")


#: Tokens of an image's full answer (its text and image), per (path shown, bytes' hash, caps): a
#: stub says what the full answer costs without decoding the image again in this process.
_FULL_TOKENS: LRU[int] = LRU(256)


def _full_key(job: Job, source_hash: str) -> tuple[str, str, int, int]:
    return (job.resolved.display, source_hash, job.ctx.limits.image_max_side, job.ctx.limits.image_max_bytes)


def _full_text(job: Job, data: bytes) -> tuple[str, ImagePayload]:
    """The full answer's text and the image as sent."""
    limits, display = job.ctx.limits, job.resolved.display
    payload = document_images.prepare(data, display, limits.image_max_side, limits.image_max_bytes)
    return envelope(display, "image", [document_images.describe(payload, len(data))]), payload


def _full_tokens(job: Job, data: bytes) -> int:
    text, payload = _full_text(job, data)
    return count_tokens(text) + document_images.image_tokens(*payload.sent_size)


def _image(job: Job, data: bytes) -> ToolResult:
    """A re-read of the same bytes while the earlier result is still in the context gets a stub."""
    ctx, request, resolved, call_id = job.ctx, job.request, job.resolved, job.call_id
    source_hash = content_hash(data)
    view, as_lines = sight(resolved, "image", source_hash, len(data))
    knowledge = knowledge_of(ctx, view, as_lines)
    metadata: dict[str, Any] = {
        "call_id": call_id,
        "path": resolved.display,
        "type": "image",
        "document": True,
        "content_hash": source_hash,
        "size": len(data),
        "mtime_ns": resolved.mtime_ns,
        "unchanged_since": None,
    }
    if not request.fresh and knowledge.unchanged and 1 in knowledge.lines:
        earlier = knowledge.lines[1].call_id
        text = envelope(
            resolved.display,
            "image",
            [
                f"(Image unchanged since you read it in {earlier}, still in your context. "
                "Use fresh=true to see it again.)"
            ],
        )
        record_view(ctx, call_id, view, as_lines, (), kind="read", knowledge=knowledge)
        full = _FULL_TOKENS.get_or_make(_full_key(job, source_hash), lambda: _full_tokens(job, data))
        tokens = count_tokens(text)
        return ToolResult(text, metadata=dict(metadata, unchanged_since=[earlier], tokens=tokens, full_tokens=full))
    text, payload = _full_text(job, data)
    width, height = payload.sent_size
    pixels = document_images.image_tokens(width, height)
    tokens = count_tokens(text) + pixels
    _FULL_TOKENS.put(_full_key(job, source_hash), tokens)
    image = ImageData(base64.b64encode(payload.data).decode("ascii"), payload.mime_type, width, height)
    record_view(ctx, call_id, view, as_lines, ((1, 1),), kind="read", knowledge=knowledge)
    metadata.update(
        format=payload.format,
        original_size=list(payload.original_size),
        sent_size=[width, height],
        sent_bytes=len(payload.data),
        mime_type=payload.mime_type,
        image_tokens=pixels,
        tokens=tokens,
        full_tokens=tokens,
        base64_bytes=len(image.data),
    )
    return ToolResult(text, metadata=metadata, images=(image,))
