"""Text out of documents and notebooks, and images as image content: one small module per
format behind one registry keyed by the sniffed type (``registry``).

Layer 4 of leanread (see ``docs/ARCHITECTURE.md``), beside ``files``: imports ``config`` and the
base modules, nothing above."""

from .base import DocumentError, Extracted, ImagePayload
from .registry import MAX_DOCUMENT_BYTES, document_kind, extract

__all__ = ["MAX_DOCUMENT_BYTES", "DocumentError", "Extracted", "ImagePayload", "document_kind", "extract"]
