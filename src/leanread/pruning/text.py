"""Search terms of code and questions, shared by the BM25 scorers of focus pruning.

Stemming is Snowball's English stemmer through PyStemmer (the stemmer bm25s documents).
"""

from __future__ import annotations

import re

import Stemmer  # type: ignore[import-not-found]

_STEMMER = Stemmer.Stemmer("english")

_WORD = re.compile(r"[^\W\d_]\w*|\d+")
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "how",
        "i",
        "if",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "the",
        "this",
        "that",
        "to",
        "was",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "with",
    ]
)


def terms(text: str) -> list[str]:
    """Search terms of ``text``: each identifier lower-cased, and its ``snake_case`` and
    ``camelCase`` parts when it has more than one; English stop words dropped; then the Snowball
    English stem of each term that has one of its own (``wrapped`` adds ``wrap``), so a question's
    words meet the code's other forms of them."""
    out: list[str] = []
    for word in _WORD.findall(text):
        # camelCase and snake_case parts of ASCII identifiers; other scripts' words stay whole
        parts = [part.lower() for chunk in word.split("_") for part in _PART.findall(chunk)] if word.isascii() else []
        whole = word.lower().replace("_", "")
        kept = [term for term in dict.fromkeys([whole, *parts]) if term not in _STOPWORDS]
        out.extend(kept)
        out.extend(stem for term, stem in zip(kept, _STEMMER.stemWords(kept), strict=True) if stem != term)
    return out
