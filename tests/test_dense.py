"""Dense scoring: the real int8 MiniLM model on real text, and the hybrid pruner on real files."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from leanread.bench.prune import questions_of, recall
from leanread.errors import LeanreadError
from leanread.pruning import HybridPruner, merge_ranges
from leanread.pruning.dense import DIMENSION, DenseUnavailable, Embedder, chunks_of, shared_embedder

MODULE = '''"""Small helpers for an online shop."""

import math


def cart_total(prices, quantities):
    total = 0
    for price, quantity in zip(prices, quantities):
        total += price * quantity
    return total


def send_invoice_email(customer, invoice):
    subject = f"Your invoice {invoice.number}"
    body = render_template("invoice.txt", invoice=invoice)
    mailer.send(to=customer.email, subject=subject, body=body)


def haversine_km(lat1, lon1, lat2, lon2):
    dlat = math.radians(lat2 - lat1)
    dlon = math.radians(lon2 - lon1)
    a = math.sin(dlat / 2) ** 2 + math.cos(math.radians(lat1)) * math.cos(math.radians(lat2)) * math.sin(dlon / 2) ** 2
    return 6371 * 2 * math.asin(math.sqrt(a))
'''.splitlines()


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return shared_embedder()


def test_embeddings_are_unit_vectors_of_384(embedder: Embedder) -> None:
    vectors = embedder.embed(["How is the invoice mailed to the customer?", "def cart_total(prices):"])
    assert vectors.shape == (2, DIMENSION) == (2, 384)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    same = embedder.embed(["How is the invoice mailed to the customer?"] * 2)
    assert float(same[0] @ same[1]) == pytest.approx(1.0, abs=1e-5)
    assert float(vectors[0] @ vectors[1]) < 0.5


def test_cache_hit_runs_no_model() -> None:
    fresh = Embedder(cache_entries=2)
    first = fresh.embed(["great circle distance between two points", "sum of prices"])
    runs = fresh.runs
    assert runs >= 1
    again = fresh.embed(["sum of prices", "great circle distance between two points"])
    assert fresh.runs == runs
    assert np.array_equal(again, first[::-1])
    fresh.embed(["a third text"])  # evicts "sum of prices", the least recently used of two entries
    assert fresh.runs == runs + 1
    fresh.embed(["great circle distance between two points"])
    assert fresh.runs == runs + 1
    fresh.embed(["sum of prices"])
    assert fresh.runs == runs + 2
    fresh.discard("a third text")
    fresh.embed(["a third text"])
    assert fresh.runs == runs + 3


def test_chunks_are_the_functions_and_the_code_between() -> None:
    assert chunks_of(MODULE, "python") == [
        (1, 5, "", [(1, 5)]),
        (6, 10, "cart_total", [(6, 10)]),
        (13, 16, "send_invoice_email", [(13, 16)]),
        (19, 23, "haversine_km", [(19, 23)]),
    ]  # the blank lines between the functions are no chunk


@pytest.mark.parametrize(
    ("question", "function"),
    [
        ("How is the invoice mailed to the customer?", (13, 16)),
        ("Distance in kilometres between two places on Earth", (19, 23)),
        ("What does the basket cost altogether?", (6, 10)),
    ],
)
def test_question_ranks_the_right_function_first(embedder: Embedder, question: str, function: tuple[int, int]) -> None:
    ranked = HybridPruner(embedder, budget=1.0).keep(MODULE, question, "python")  # everything, best first
    assert ranked[0] == function
    assert sorted(ranked) == [(1, 5), (6, 10), (13, 16), (19, 23)]


def test_hybrid_keeps_the_gold_function_of_a_real_file(embedder: Embedder) -> None:
    source = Path(textwrap.__file__).read_text(encoding="utf-8")
    lines, questions = questions_of(source, "textwrap.py")
    dedent = next(q for q in questions if q.where == "textwrap.py:dedent")
    assert dedent.text == "Remove any common leading whitespace from every line in `text`."
    pruner = HybridPruner(embedder)
    kept = merge_ranges(pruner.keep(lines, dedent.text, "python"), len(lines))
    assert recall(kept, dedent.gold) == 1.0
    kept_lines = sum(b - a + 1 for a, b in kept)
    assert kept_lines < 0.3 * len(lines)
    runs = embedder.runs
    assert merge_ranges(pruner.keep(lines, dedent.text, "python"), len(lines)) == kept
    assert embedder.runs == runs  # file and question both cached


def test_no_question_or_no_lines_keeps_nothing(embedder: Embedder) -> None:
    pruner = HybridPruner(embedder)
    assert pruner.keep(MODULE, "   ", "python") == []
    assert pruner.keep([], "anything at all", "python") == []


def test_missing_extra_is_a_leanread_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # what `import onnxruntime` sees when absent
    with pytest.raises(DenseUnavailable, match=r"pip install 'leanread\[dense\]'") as caught:
        Embedder()
    assert isinstance(caught.value, LeanreadError)
    assert "\n" not in str(caught.value)
