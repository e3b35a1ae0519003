"""The pure parts of ``leanread bench prune``: docstring stripping, gold lines, metrics."""

from __future__ import annotations

from leanread.bench.prune import (
    first_paragraph,
    questions_of,
    recall,
    strip_docstrings,
    summarize,
    token_share,
)

SOURCE = '''"""Text wrapping and filling."""

import re


class TextWrapper:
    """Object for wrapping/filling text."""

    def _munge_whitespace(self, text):
        """Munge whitespace in text: expand tabs and convert all other
        whitespace characters to spaces.

        Eg. " foo\\\\tbar\\\\n\\\\nbaz" becomes " foo    bar  baz".
        """
        text = text.expandtabs(8)

        return text

    def _split(self, text):
        """Split the text."""


@staticmethod
def dedent(text):
    """Remove any common leading whitespace from every line in `text`."""
    return re.sub(r"(?m)^ +", "", text)
'''


def test_strip_docstrings_drops_them_and_maps_lines() -> None:
    stripped = strip_docstrings(SOURCE)
    assert stripped is not None
    lines, origin = stripped
    assert lines == [
        "",
        "import re",
        "",
        "",
        "class TextWrapper:",
        "",
        "    def _munge_whitespace(self, text):",
        "        text = text.expandtabs(8)",
        "",
        "        return text",
        "",
        "    def _split(self, text):",
        "        ...",
        "",
        "",
        "@staticmethod",
        "def dedent(text):",
        '    return re.sub(r"(?m)^ +", "", text)',
    ]
    assert origin == [2, 3, 4, 5, 6, 8, 9, 15, 16, 17, 18, 19, 0, 21, 22, 23, 24, 26]


def test_strip_docstrings_refuses_shared_lines_and_bad_syntax() -> None:
    assert strip_docstrings('def f(): "doc"; return 1\n') is None
    assert strip_docstrings("def (:\n") is None


def test_questions_and_gold() -> None:
    lines, questions = questions_of(SOURCE, "textwrap.py")
    assert [(q.where, q.text, sorted(q.gold)) for q in questions] == [
        (
            "textwrap.py:_munge_whitespace",
            "Munge whitespace in text: expand tabs and convert all other whitespace characters to spaces.",
            [7, 8, 10],
        ),
        (
            "textwrap.py:dedent",
            "Remove any common leading whitespace from every line in `text`.",
            [16, 17, 18],
        ),
    ]
    assert len(lines) == 18


def test_first_paragraph() -> None:
    assert first_paragraph("One\n  two.\n\nThree.") == "One two."


def test_metrics() -> None:
    assert recall([(1, 2), (7, 8)], frozenset({7, 8, 10})) == 2 / 3
    assert recall([], frozenset({1})) == 0.0
    assert token_share(["alpha", "beta"], [(1, 1)]) == 1 / 3  # alpha, newline, beta
    rows = [
        {"recall": 1.0, "tokens": 0.2, "lines": 0.1, "ms": 2.0},
        {"recall": 0.5, "tokens": 0.4, "lines": 0.95, "ms": 4.0, "failed": True},
    ]
    summary = summarize(rows)
    assert summary == {
        "questions": 2,
        "recall": 0.75,
        "tokens": 0.30000000000000004,
        "lines": 0.525,
        "whole": 0.5,
        "p50": 4.0,
        "p90": 4.0,
        "fail_open": 0.5,
        "over_90": 0.5,
    }
