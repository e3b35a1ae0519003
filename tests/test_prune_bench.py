"""The pure parts of ``leanread bench prune``: docstring stripping, gold lines, metrics."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from leanread.bench.prune import (
    SOURCES,
    first_paragraph,
    parse_sources,
    questions_of,
    recall,
    strip_docstrings,
    summarize,
    token_share,
)
from leanread.errors import LeanreadError

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


def test_parse_sources() -> None:
    assert parse_sources(["click==8.1.7", " jinja2 == 3.1.4 ", "click==8.1.7"]) == (
        ("click", "8.1.7"),
        ("jinja2", "3.1.4"),
    )
    assert parse_sources([f"{p}=={v}" for p, v in SOURCES]) == SOURCES


@pytest.mark.parametrize("value", ["click", "click=8.1.7", "click==", "==8.1.7", "click>=8", "click==8==9", "a b==1"])
def test_parse_sources_refuses_other_forms(value: str) -> None:
    with pytest.raises(LeanreadError, match=r"expected name==version") as caught:
        parse_sources([value])
    assert "\n" not in str(caught.value)


def test_bad_sources_value_is_one_line_on_stderr(tmp_path: Path) -> None:
    # Refused before any download: the cache stays empty, no network is used.
    done = subprocess.run(
        [sys.executable, "-m", "leanread", "bench", "prune", "--cache", str(tmp_path), "--sources", "click-8.1.7"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == "Bad --sources value 'click-8.1.7': expected name==version, e.g. click==8.1.7.\n"
    assert list(tmp_path.iterdir()) == []
