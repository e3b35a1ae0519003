"""The reader of images: image content downscaled to fit, its sizes in the text; a re-read of
the same bytes while the model still has them is a stub."""

from __future__ import annotations

import base64
from typing import Any

from ...documents import images as document_images
from ...files.textfile import content_hash
from ...result import ImageData, ToolResult
from ...view.render import envelope
from ...view.tokens import count_tokens
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
        return ToolResult(text, metadata=dict(metadata, unchanged_since=[earlier], tokens=count_tokens(text)))
    payload = document_images.prepare(data, resolved.display, ctx.limits.image_max_side, ctx.limits.image_max_bytes)
    text = envelope(resolved.display, "image", [document_images.describe(payload, len(data))])
    width, height = payload.sent_size
    image = ImageData(base64.b64encode(payload.data).decode("ascii"), payload.mime_type, width, height)
    record_view(ctx, call_id, view, as_lines, ((1, 1),), kind="read", knowledge=knowledge)
    metadata.update(
        format=payload.format,
        original_size=list(payload.original_size),
        sent_size=[width, height],
        sent_bytes=len(payload.data),
        mime_type=payload.mime_type,
        tokens=count_tokens(text),
        base64_bytes=len(image.data),
    )
    return ToolResult(text, metadata=metadata, images=(image,))
