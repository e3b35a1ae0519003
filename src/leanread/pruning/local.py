"""The default pruner: BM25 over lines and over code chunks. Offline, CPU only.

Terms are identifiers split at ``snake_case`` and ``camelCase`` boundaries (``text.terms``). Three
things are kept: the best-scoring lines, each a document of its own (the lines that literally
match the question); the best chunks (``chunks``: each innermost definition of the file's outline,
30-line windows elsewhere), ranked by BM25 with a chunk as the document and kept whole, best
first, until ``BUDGET`` of the output's text; and the signature lines of every definition that
encloses a best line, so a kept line says where it lives.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..code.outline import Symbol, outline_of_language
from .chunks import bm25_index, chunk_index, chunks_of, fill_budget, line_costs
from .text import terms

#: Share of the output's text the best chunks may take (tuned on ``leanread bench prune``'s
#: django/pytest/sphinx sample; held-out figures in BENCHMARKS.md).
BUDGET = 0.21
#: Lines taken from the top of the BM25 ranking: this share of the output's lines…
TOP_SHARE = 0.04
#: … but at least this many (when that many lines score above zero).
TOP_MIN = 3
#: A line is kept only if its score is at least this share of the best line's score.
MIN_RELATIVE_SCORE = 0.35
#: Lines a multi-line signature may span at most.
MAX_SIGNATURE_LINES = 8


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


class LocalPruner:
    """BM25 over lines and over chunks (see the module docstring); no network, no model.

    Args:
        expand: add the best chunks and the enclosing signatures (the default); False keeps only
            the best BM25 lines themselves (plain BM25, the baseline of ``leanread bench prune``).
        budget: share (0..1) of the file's text (``chunks.line_costs``) the chunks may take.
    """

    name = "local"

    def __init__(self, expand: bool = True, budget: float = BUDGET) -> None:
        self.expand = expand
        self.budget = budget

    def keep(self, lines: Sequence[str], question: str, language: str | None) -> list[tuple[int, int]]:
        """Ranges of ``lines`` (1-based, inclusive) that answer ``question``; see ``Pruner.keep``.
        Empty when no line shares a term with the question."""
        query = terms(question)
        corpus = [terms(line) for line in lines]
        if not query or not any(corpus):
            return []
        index = bm25_index(corpus)
        scores = index.get_scores(query)
        best = float(scores.max()) if len(scores) else 0.0
        if best <= 0:
            return []
        ranked = sorted(range(len(lines)), key=lambda i: (-float(scores[i]), i))
        count = max(TOP_MIN, math.ceil(TOP_SHARE * len(lines)))
        top = [i + 1 for i in ranked[:count] if float(scores[i]) >= MIN_RELATIVE_SCORE * best]
        kept = [(number, number) for number in top]
        if not self.expand:
            return kept
        symbols = outline_of_language(language, lines).symbols if language else ()
        found = chunks_of(lines, language, symbols)
        chunk_bm25 = chunk_index(lines, found, corpus)
        if chunk_bm25 is not None:
            chunk_scores = [float(score) for score in chunk_bm25.get_scores(query)]
            order = sorted((k for k in range(len(found)) if chunk_scores[k] > 0), key=lambda k: (-chunk_scores[k], k))
            costs = line_costs(lines)
            kept += fill_budget(order, found, costs, self.budget * sum(costs))
        kept += [_signature(lines, s) for number in top for s in symbols if s.first <= number <= s.last]
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
        index = bm25_index(corpus)
        scores = index.get_scores(query)
        best = float(scores.max()) if len(scores) else 0.0
        if best > 0:
            ranked = sorted(range(len(blocks)), key=lambda i: (-float(scores[i]), i))
            count = max(TOP_MIN, math.ceil(BLOCK_TOP_SHARE * len(blocks)))
            kept.update(i for i in ranked[:count] if float(scores[i]) >= MIN_RELATIVE_SCORE * best)
    return sorted(kept)
