"""What an edit's result shows the model: one line when the file got what it sent."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leanread import MemoryLedger, Session

BODY = "".join(f"value_{n} = compute({n})\n" for n in range(1, 31))


def _session(root: Path, name: str, text: str) -> Session:
    (root / name).write_text(text)
    session = Session([root], ledger=MemoryLedger())
    session.read(name, mode="full")
    return session


# --- written as sent: one line, no path, no excerpt -------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "summary"),
    [
        ("value_3 = compute(3)", "value_3 = 0", "Edited line 3."),
        ("value_3 = compute(3)\n", "value_3 = 0\nvalue_3b = 1\n", "Edited line 3, now 3-4."),
        ("value_3 = compute(3)\nvalue_4 = compute(4)\n", "", "Removed lines 3-4."),
        ("value_3 = compute(3)\nvalue_4 = compute(4)\n", "v = 3\n", "Edited lines 3-4, now 3."),
        ("value_30 = compute(30)", "value_30 = 30", "Edited line 30."),
    ],
)
def test_an_edit_written_as_sent_is_one_line(root: Path, old: str, new: str, summary: str) -> None:
    session = _session(root, "a.py", BODY)
    result = session.edit("a.py", old, new)
    assert (result.is_error, result.text) == (False, summary)
    assert (root / "a.py").read_text() == BODY.replace(old, new, 1)


def test_replace_all_counts_its_occurrences(root: Path) -> None:
    session = _session(root, "a.py", BODY)
    result = session.edit("a.py", "compute(1", "work(1", replace_all=True)
    assert result.text == "Replaced 11 occurrences; edited lines 1-19."


@given(line=st.integers(min_value=1, max_value=30), extra=st.integers(min_value=0, max_value=3))
@settings(max_examples=15, deadline=None)
def test_the_summary_numbers_the_new_lines(tmp_path_factory: pytest.TempPathFactory, line: int, extra: int) -> None:
    root = tmp_path_factory.mktemp("ws")
    session = _session(root, "a.py", BODY)
    old = f"value_{line} = compute({line})\n"
    new = f"value_{line} = {line}\n" + "".join(f"added_{k} = {k}\n" for k in range(extra))
    result = session.edit("a.py", old, new)
    now = f", now {line}-{line + extra}" if extra else ""
    assert result.text == f"Edited line {line}{now}."
    written = (root / "a.py").read_text().splitlines()
    assert written[line - 1 : line + extra] == new.splitlines()
