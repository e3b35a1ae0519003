"""A file cut into chunks for focus pruning: its innermost definitions, and windows elsewhere.

Shared by ``LocalPruner`` (chunks ranked by BM25) and ``HybridPruner`` (by BM25 fused with dense
cosines): both keep whole chunks, best first, until a share of the file's text is spent.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from ..code.outline import Symbol, outline_of_language
from .text import terms

#: Code outside definitions (and inside big ones) is cut into windows of at most this many lines.
WINDOW_LINES = 30

#: A chunk: ``(first, last, name, windows)``, 1-based inclusive lines, the owner's qualified name
#: ("" outside any definition) and its windows ``(first, last)``.
Chunk = tuple[int, int, str, list[tuple[int, int]]]


def chunks_of(lines: Sequence[str], language: str | None, symbols: Sequence[Symbol] | None = None) -> list[Chunk]:
    """The file's chunks: ``(first, last, name, windows)``, 1-based inclusive, in file order.

    Each line belongs to its innermost symbol of the outline (``leanread.code.outline``; top-level
    variables do not count). A symbol other than a class whose lines all belong to it (a function,
    a method, a leaf section) is one chunk, embedded in windows of ``WINDOW_LINES`` lines; every
    other run of lines with the same owner (a class's lines outside its methods, code outside any
    definition) is cut into chunks of ``WINDOW_LINES`` lines, wholly blank ones dropped. ``name``
    is the owner's qualified name (empty outside any). ``symbols``: the file's outline symbols when
    the caller has them already (else they are read from ``lines`` as ``language``).
    """
    total = len(lines)
    if symbols is None:
        symbols = outline_of_language(language, lines).symbols if language else ()
    owner: list[Symbol | None] = [None] * (total + 2)
    for symbol in sorted(symbols, key=lambda s: (s.depth, s.first)):
        if symbol.kind == "variable":
            continue
        for number in range(max(symbol.first, 1), min(symbol.last, total) + 1):
            owner[number] = symbol
    found: list[Chunk] = []
    number = 1
    while number <= total:
        mine = owner[number]
        end = number
        while end < total and owner[end + 1] is mine:
            end += 1
        windows = [(a, min(a + WINDOW_LINES - 1, end)) for a in range(number, end + 1, WINDOW_LINES)]
        if mine is not None and mine.kind != "class" and mine.first == number and mine.last == end:
            found.append((number, end, mine.name, windows))
        else:
            name = mine.name if mine is not None else ""
            found.extend(
                (a, b, name, [(a, b)]) for a, b in windows if any(lines[n - 1].strip() for n in range(a, b + 1))
            )
        number = end + 1
    return found


def line_costs(lines: Sequence[str]) -> list[int]:
    """What keeping each line costs: its non-blank characters plus one (a stand-in for o200k
    tokens that needs no tokenizer)."""
    return [len(text.strip()) + 1 for text in lines]


def chunk_index(lines: Sequence[str], found: Sequence[Chunk], line_terms: Sequence[list[str]] | None = None) -> Any:
    """A BM25 index over ``found``: each chunk's document is its lines' terms (``line_terms``
    when the caller has them, else read from ``lines``) and its name's; None when no chunk has
    a term."""
    if line_terms is None:
        line_terms = [terms(text) for text in lines]
    corpus = [[t for n in range(a, b + 1) for t in line_terms[n - 1]] + terms(name) for a, b, name, _ in found]
    if not any(corpus):
        return None
    return bm25_index(corpus)


def bm25_module() -> Any:
    """The ``bm25s`` module, imported on first use rather than with the package: it and numpy
    cost a quarter of a second, which every CLI call would otherwise pay."""
    import bm25s  # type: ignore[import-untyped]

    # bm25s sets its logger to DEBUG when imported and logs each index build; a server's log
    # configuration must not show those
    logging.getLogger("bm25s").setLevel(logging.WARNING)
    return bm25s


def bm25_index(corpus: Sequence[list[str]]) -> Any:
    """A ``bm25s.BM25`` index over ``corpus`` (one list of terms per document)."""
    index = bm25_module().BM25()
    index.index(list(corpus), show_progress=False)
    return index


def fill_budget(
    order: Sequence[int], found: Sequence[Chunk], costs: Sequence[int], budget: float
) -> list[tuple[int, int]]:
    """The chunks ``order`` names (indices into ``found``, best first), each kept whole while
    the sum of its lines' ``costs`` fits in ``budget``; a chunk that does not fit is skipped and
    smaller later ones may still fit."""
    spent = 0.0
    kept: list[tuple[int, int]] = []
    for k in order:
        first, last = found[k][0], found[k][1]
        size = sum(costs[first - 1 : last])
        if spent + size <= budget:
            spent += size
            kept.append((first, last))
    return kept
