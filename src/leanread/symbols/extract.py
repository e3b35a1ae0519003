"""Which extractor reads a file, by its language (as ``outline.language_of`` names it)."""

from __future__ import annotations

from ..code.outline import language_of
from . import generic, python, script
from .facts import FileFacts

#: Languages the index reads.
LANGUAGES = ("python", "javascript", "typescript", "go", "rust", "java", "c", "cpp")


def indexed_language(path: str) -> str | None:
    """The language of ``path`` when the index reads it, else None."""
    language = language_of(path)
    return language if language in LANGUAGES else None


def facts_of(language: str, source: bytes) -> FileFacts:
    """What a source in ``language`` (one of ``LANGUAGES``) says about names."""
    if language == "python":
        return python.extract(source)
    if language in ("javascript", "typescript"):
        return script.extract(source, language)
    return generic.extract(source, language)


def python_module(path: str) -> str:
    """The dotted module name of a Python file at ``path`` (relative, ``/``-separated):
    ``pkg/sub/mod.py`` → ``pkg.sub.mod``, ``pkg/__init__.py`` → ``pkg``."""
    stem = path.rsplit(".", 1)[0]
    parts = [p for p in stem.split("/") if p]
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)
