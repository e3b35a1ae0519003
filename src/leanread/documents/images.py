"""PNG, JPEG, GIF and WebP as image content: the first frame, downscaled with Pillow so its
longest side is at most ``MAX_SIDE`` pixels and its encoding fits a byte budget."""

from __future__ import annotations

import io
import math
import re
import warnings
from typing import Any

from ..config.settings import Limits
from .base import DocumentError, ImagePayload, require

#: Longest side of an image sent to the model, in pixels (``Limits.image_max_side``).
MAX_SIDE = Limits.image_max_side
#: Bytes of an encoded image sent at most (``Limits.image_max_bytes``).
IMAGE_BYTES = Limits.image_max_bytes
#: Pixels leanread decodes at most (Pillow's own decompression-bomb limit); a JPEG is decoded
#: reduced, so only its reduced size counts.
MAX_PIXELS = 178_956_970

_MIME = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}


def _too_big(display: str, pixels: int | None) -> DocumentError:
    size = f"an image of {pixels} pixels" if pixels else "an image too large"
    return DocumentError(f"{display} is {size}, too large to decode safely; crop or scale it first.")


def _encode(image: Any, fmt: str, quality: int = 85) -> bytes:
    out = io.BytesIO()
    if fmt == "JPEG":
        image.save(out, "JPEG", quality=quality, optimize=True)
    else:
        image.save(out, "PNG")
    return out.getvalue()


def _flatten(image: Any) -> Any:
    """``image`` in RGB, transparency laid on white (for JPEG)."""
    pil = require("PIL.Image", "images")
    if image.mode in ("RGBA", "LA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        background = pil.new("RGB", rgba.size, (255, 255, 255))
        background.paste(rgba, mask=rgba.getchannel("A"))
        return background
    return image.convert("RGB")


def prepare(data: bytes, display: str, max_side: int = MAX_SIDE, max_bytes: int = IMAGE_BYTES) -> ImagePayload:
    """The image to send: the file as it is when it already fits, else its first frame scaled
    to ``max_side`` and encoded as PNG (JPEG for photos or when PNG is over ``max_bytes``),
    scaled down further until it fits ``max_bytes``.

    Raises:
        DocumentError: Pillow is missing, the image is corrupt, or too large to decode safely.
    """
    pil = require("PIL.Image", "images")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # DecompressionBombWarning: leanread checks the size itself
            image = pil.open(io.BytesIO(data))
            fmt = str(image.format or "")
            width, height = image.size
            frames = int(getattr(image, "n_frames", 1))
            if fmt not in _MIME:
                raise DocumentError(f"{display} is a {fmt or 'unknown'} image; read shows PNG, JPEG, GIF and WebP.")
            fits = max(width, height) <= max_side and len(data) <= max_bytes
            if fits and frames == 1:
                pil.open(io.BytesIO(data)).verify()  # checksums: a corrupt file is not sent as it is
                image.load()  # a truncated one fails to decode
                return ImagePayload(data, _MIME[fmt], fmt, (width, height), (width, height))
            if fmt == "JPEG":
                image.draft("RGB", (max_side, max_side))  # decode reduced by 1/2, 1/4 or 1/8
            if image.size[0] * image.size[1] > MAX_PIXELS:
                raise _too_big(display, width * height)
            image.seek(0)
            image.load()
            frame = image.copy()
    except DocumentError:
        raise
    except pil.DecompressionBombError as exc:  # refused by Pillow while opening
        found = re.search(r"\((\d+) pixels\)", str(exc))
        raise _too_big(display, int(found.group(1)) if found else None) from None
    except Exception as exc:  # Pillow raises OSError, SyntaxError, ValueError on broken images
        raise DocumentError(
            f"{display} looks like an image ({len(data)} bytes) but is corrupt or truncated; it cannot be shown."
        ) from exc
    frame.thumbnail((max_side, max_side), pil.Resampling.LANCZOS)
    photo = fmt == "JPEG"
    if not photo and frame.mode not in ("RGB", "RGBA", "L", "LA"):
        frame = frame.convert("RGBA")
    while True:
        encoded, out_fmt = (_encode(_flatten(frame), "JPEG"), "JPEG") if photo else (_encode(frame, "PNG"), "PNG")
        if len(encoded) > max_bytes and not photo:
            encoded, out_fmt = _encode(_flatten(frame), "JPEG"), "JPEG"
        if len(encoded) <= max_bytes or max(frame.size) <= 64:
            break
        scale = max(0.5, min(0.9, (max_bytes / len(encoded)) ** 0.5))
        frame = frame.resize(
            (max(1, int(frame.width * scale)), max(1, int(frame.height * scale))), pil.Resampling.LANCZOS
        )
    return ImagePayload(encoded, _MIME[out_fmt], fmt, (width, height), frame.size, frames)


#: Anthropic's published estimate of an image's input tokens ("Vision: calculate image costs"):
#: width x height / 750; an image whose long side is over 1568 px, or that would cost over about
#: 1,600 tokens, is scaled down by the API first.
PIXELS_PER_TOKEN = 750
LONG_SIDE = 1568
MAX_IMAGE_TOKENS = 1600


def image_tokens(width: int, height: int) -> int:
    """The input tokens an image of ``width`` x ``height`` pixels costs the model, by Anthropic's
    published estimate (``PIXELS_PER_TOKEN``), after the API's own downscale."""
    scale = min(1.0, LONG_SIDE / max(width, height, 1))
    return min(math.ceil(width * scale * height * scale / PIXELS_PER_TOKEN), MAX_IMAGE_TOKENS)


def describe(payload: ImagePayload, source_bytes: int) -> str:
    """One line on the image: original and sent dimensions and sizes."""
    ow, oh = payload.original_size
    sw, sh = payload.sent_size
    frames = f", {payload.frames} frames (first sent)" if payload.frames > 1 else ""
    head = f"{payload.format} image, {ow}x{oh} px, {source_bytes} bytes{frames}"
    if payload.original_size == payload.sent_size and len(payload.data) == source_bytes:
        return f"({head}; sent as it is.)"
    sent_fmt = payload.mime_type.removeprefix("image/").upper()
    how = "downscaled" if payload.sent_size != payload.original_size else "re-encoded"
    return f"({head}; sent {how} as {sent_fmt} {sw}x{sh} px, {len(payload.data)} bytes.)"
