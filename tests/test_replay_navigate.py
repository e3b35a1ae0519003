"""The replay strategy that answers definition-seeking greps with the symbol index."""

from __future__ import annotations

from pathlib import Path

import pytest

from leanread.bench.replay.calls import GrepCall, Hit
from leanread.bench.replay.strategies import available
from leanread.bench.replay.strategies.leanread_navigate import LeanreadNavigate, defined_name


@pytest.mark.parametrize(
    ("pattern", "name"),
    [
        ("def get_queryset", "get_queryset"),
        ("class QuerySet\\b", "QuerySet"),
        ("^\\s*def foo(", "foo"),
        ("def foo\\(self", "foo"),
        ("class Foo:", "Foo"),
        ("class Foo(models.Model)", "Foo"),
        ("function render", "render"),
        ("def _check_\\w+", None),
        ("def get.*", None),
        ("self.get", None),
        ("def ", None),
        ("func (s *Store) Get", None),
        ("def __eq__\\|def __ne__", None),
    ],
)
def test_only_a_keyword_and_a_literal_name_make_a_definition_seeking_grep(pattern: str, name: str | None) -> None:
    assert defined_name(GrepCall((pattern,), (".",))) == name


def test_a_files_only_or_counting_grep_is_left_to_grep() -> None:
    assert defined_name(GrepCall(("def helper",), (".",), files_only=True)) is None
    assert defined_name(GrepCall(("def helper",), (".",), count=True)) is None


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    body = "".join(f"    x = x + {i}\n" for i in range(8))
    (root / "pkg" / "tools.py").write_text(f"def helper(x):\n{body}    return x\n\n\ndef other():\n    return 2\n")
    return root


def test_a_definition_seeking_grep_is_answered_by_the_definition(tmp_path: Path) -> None:
    root = _root(tmp_path)
    strategy = LeanreadNavigate(root)
    hits = (Hit("pkg/tools.py", 1, "def helper(x):", True),)
    text = strategy.grep(GrepCall(("def helper",), (".",), hits=hits, files=("pkg/tools.py",)))
    body = "".join(f"    x = x + {i}\n" for i in range(8))
    assert text == (
        "(helper: defined in pkg/tools.py, lines 1-10.)\n<path>pkg/tools.py</path>\n<type>file</type>\n<content>\n"
        f"def helper(x):\n{body}    return x\n\n(Showing lines 1-10 of 14. Use offset=11 to continue.)\n</content>"
    )
    assert strategy.notes["lookups: definition"] == 1 and strategy.notes["grep tokens replaced"] > 0
    assert strategy.divergences == []
    # the lookup's lines are held: a marker (ten short lines are not worth a stub of their own)
    again = strategy.session.read("pkg/tools.py", offset=1, limit=14)
    assert again.metadata.get("unchanged_since") == ["r1"]
    assert "… lines 1-10 unchanged since you read them …" in again.text
    strategy.finish()


def test_a_name_the_index_does_not_define_is_grepped_after_the_lookup(tmp_path: Path) -> None:
    strategy = LeanreadNavigate(_root(tmp_path))
    text = strategy.grep(GrepCall(("def missing",), (".",)))
    assert text.startswith("No definition of missing in the 1 indexed file;")
    assert strategy.notes["lookups: none"] == 1
    strategy.finish()


def test_the_strategy_is_registered() -> None:
    assert "leanread-navigate" in available()
