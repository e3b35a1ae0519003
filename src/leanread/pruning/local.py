"""The default pruner: BM25 over lines, expanded by code structure. Offline, CPU only.

Each line is a document; its terms are the identifiers in it, split at ``snake_case`` and
``camelCase`` boundaries (``parseHeaderValue`` → ``parse``, ``header``, ``value`` and the whole
``parseheadervalue``). The best-scoring lines are kept, then each is expanded by the file's outline
(``leanread.outline``, so every language it parses): a definition of at most ``SMALL_DEFINITION``
lines is kept whole; in a bigger one, its signature lines and the block headers above the line
(lines of smaller indentation) are kept; the signature lines of every enclosing definition too.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Sequence

import bm25s  # type: ignore[import-untyped]

from ..outline import Symbol, outline_of_language

# bm25s logs each index build at DEBUG; a server's log configuration must not show those
logging.getLogger("bm25s").setLevel(logging.WARNING)

#: A definition of at most this many lines is kept whole when one of its lines is kept.
SMALL_DEFINITION = 60
#: Lines taken from the top of the BM25 ranking: this share of the output's lines…
TOP_SHARE = 0.04
#: … but at least this many (when that many lines score above zero).
TOP_MIN = 3
#: A line is kept only if its score is at least this share of the best line's score.
MIN_RELATIVE_SCORE = 0.35
#: Lines a multi-line signature may span at most.
MAX_SIGNATURE_LINES = 8

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
    ``camelCase`` parts when it has more than one; English stop words dropped."""
    out: list[str] = []
    for word in _WORD.findall(text):
        # camelCase and snake_case parts of ASCII identifiers; other scripts' words stay whole
        parts = [part.lower() for chunk in word.split("_") for part in _PART.findall(chunk)] if word.isascii() else []
        whole = word.lower().replace("_", "")
        for term in dict.fromkeys([whole, *parts]):
            if term not in _STOPWORDS:
                out.append(term)
    return out


def _signature(lines: Sequence[str], symbol: Symbol) -> tuple[int, int]:
    """The lines of ``symbol``'s signature: from its signature line on while brackets are open."""
    depth = 0
    last = symbol.line
    for number in range(symbol.line, min(symbol.last, symbol.line + MAX_SIGNATURE_LINES - 1) + 1):
        text = lines[number - 1]
        depth += sum(text.count(c) for c in "([{") - sum(text.count(c) for c in ")]}")
        last = number
        if depth <= 0:
            break
    return symbol.line, last


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" \t"))


def _headers(lines: Sequence[str], number: int, stop: int) -> list[int]:
    """Lines above ``number`` (down to ``stop``) that open the blocks it is in: each earlier
    non-blank line of smaller indentation than the last one taken."""
    found: list[int] = []
    level = _indent(lines[number - 1])
    for above in range(number - 1, stop - 1, -1):
        text = lines[above - 1]
        if text.strip() and _indent(text) < level:
            found.append(above)
            level = _indent(text)
            if level == 0:
                break
    return found


class LocalPruner:
    """BM25 over lines plus structure expansion (see the module docstring); no network, no model.

    Args:
        expand: expand the best lines by the outline (the default); False keeps only the best
            BM25 lines themselves (plain BM25, the baseline of ``leanread bench prune``).
    """

    name = "local"

    def __init__(self, expand: bool = True) -> None:
        self.expand = expand

    def keep(self, lines: Sequence[str], question: str, language: str | None) -> list[tuple[int, int]]:
        """Ranges of ``lines`` (1-based, inclusive) that answer ``question``; see ``Pruner.keep``."""
        query = terms(question)
        corpus = [terms(line) for line in lines]
        if not query or not any(corpus):
            return []
        index = bm25s.BM25()
        index.index(corpus, show_progress=False)
        scores = index.get_scores(query)
        best = float(scores.max()) if len(scores) else 0.0
        if best <= 0:
            return []
        ranked = sorted(range(len(lines)), key=lambda i: (-float(scores[i]), i))
        count = max(TOP_MIN, math.ceil(TOP_SHARE * len(lines)))
        top = [i + 1 for i in ranked[:count] if float(scores[i]) >= MIN_RELATIVE_SCORE * best]
        if not self.expand:
            return [(number, number) for number in top]
        symbols = outline_of_language(language, lines).symbols if language else ()
        kept: list[tuple[int, int]] = []
        for number in top:
            kept.append((number, number))
            enclosing = [s for s in symbols if s.first <= number <= s.last]
            for symbol in enclosing:
                kept.append(_signature(lines, symbol))
            if not enclosing:
                continue
            inner = max(enclosing, key=lambda s: (s.depth, s.first))
            if inner.last - inner.first + 1 <= SMALL_DEFINITION:
                kept.append((inner.first, inner.last))
            else:
                kept.extend((n, n) for n in _headers(lines, number, inner.line))
        return kept


#: A question term found in more than this share of the heads does not tell them apart (the
#: grep pattern's own word, repeated in the question): ``literal_heads`` ignores it.
COMMON_HEAD_SHARE = 0.5


def literal_heads(heads: Sequence[str], question: str) -> set[int]:
    """Indices of the ``heads`` (a block's own match line) containing a term of ``question``
    that is in at most ``COMMON_HEAD_SHARE`` of them."""
    head_terms = [set(terms(head)) for head in heads]
    wanted = {
        term
        for term in set(terms(question))
        if sum(term in found for found in head_terms) <= COMMON_HEAD_SHARE * len(heads)
    }
    return {i for i, found in enumerate(head_terms) if wanted & found}


#: Blocks taken from the top of the BM25 ranking by ``keep_blocks``: this share of the blocks…
BLOCK_TOP_SHARE = 0.25


def keep_blocks(blocks: Sequence[str], heads: Sequence[str], question: str) -> list[int]:
    """Indices (0-based, ascending) of the text ``blocks`` to keep for ``question``.

    Each block is one document for BM25 (terms as ``terms``); the best ``BLOCK_TOP_SHARE`` of
    them (at least ``TOP_MIN``) scoring at least ``MIN_RELATIVE_SCORE`` of the best are kept, and
    every block whose ``heads[i]`` (e.g. a grep match's own line) literally contains a
    distinguishing term of the question (see ``literal_heads``), whatever its score.
    """
    query = terms(question)
    kept = literal_heads(heads, question)
    corpus = [terms(block) for block in blocks]
    if query and any(corpus):
        index = bm25s.BM25()
        index.index(corpus, show_progress=False)
        scores = index.get_scores(query)
        best = float(scores.max()) if len(scores) else 0.0
        if best > 0:
            ranked = sorted(range(len(blocks)), key=lambda i: (-float(scores[i]), i))
            count = max(TOP_MIN, math.ceil(BLOCK_TOP_SHARE * len(blocks)))
            kept.update(i for i in ranked[:count] if float(scores[i]) >= MIN_RELATIVE_SCORE * best)
    return sorted(kept)
