"""What the replay's anchors answer an edit whose old text the release does not hold exactly:
opencode's matchers modelled from its source (the charge in a replay: ``test_replay.py``)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from leanread.bench.replay.anchor_edits import OPENCODE_MULTIPLE, OPENCODE_NOT_FOUND, opencode_edit_error

FUNC = "def f(a):\n    x = a + 1\n    return x\n"


@pytest.mark.parametrize(
    ("content", "old"),
    [
        (FUNC, "    x = a + 1\n"),  # exact
        (FUNC, "x = a + 1\nreturn x"),  # each line trimmed
        (FUNC, "def f(a):\n    y = something_else()\n    return x"),  # one block between anchors
        ("call(a,   b)\n", "call(a, b)"),  # whitespace runs collapsed
        ("if t:\n        go()\n        stop()\n", "go()\nstop()"),  # indentation removed
        ('print("hi")\n', 'print(\\"hi\\")'),  # escapes undone
        (FUNC, "  return x  "),  # trimmed
    ],
)
def test_opencode_applies_what_one_of_its_matchers_finds_once(content: str, old: str) -> None:
    assert opencode_edit_error(content, old) is None


def test_opencode_refuses_what_no_matcher_finds() -> None:
    assert opencode_edit_error(FUNC, "return y") == OPENCODE_NOT_FOUND
    # Two anchored blocks whose middles are unlike the old text's (likeness 0 < 0.3), half the
    # middle lines unequal: neither the block-anchor nor the context matcher takes one.
    content = "if a:\n    x\nend\nif a:\n    y\nend\n"
    assert opencode_edit_error(content, "if a:\n    zzzzzzzzzz\nend") == OPENCODE_NOT_FOUND


def test_opencode_found_twice_needs_replace_all() -> None:
    content = "x = 1\ny = 2\nx = 1\n"
    assert opencode_edit_error(content, "x = 1") == OPENCODE_MULTIPLE
    assert opencode_edit_error(content, "x = 1", replace_all=True) is None


def test_of_several_anchored_blocks_the_likest_middle_is_taken() -> None:
    content = "if a:\n    alpha()\nend\nif a:\n    beta()\nend\n"
    assert opencode_edit_error(content, "if a:\n    alphx()\nend") is None


lines = st.lists(st.text(alphabet="abc =()", min_size=1, max_size=12), min_size=1, max_size=8)


@given(lines, st.integers(min_value=0, max_value=7))
def test_a_line_found_once_is_applied(rows: list[str], at: int) -> None:
    rows = [f"{row}#{n}" for n, row in enumerate(rows)]  # every line unique
    content = "\n".join(rows)
    assert opencode_edit_error(content, rows[min(at, len(rows) - 1)]) is None


@given(lines)
def test_text_sharing_no_character_with_the_file_is_not_found(rows: list[str]) -> None:
    assert opencode_edit_error("\n".join(rows), "xyz\nqqq\nwww") == OPENCODE_NOT_FOUND
