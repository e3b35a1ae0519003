"""`grep` over lines the model holds as read: a run of them is one marker row where that pays
(read's wording and rule, `view.marks.marker_pays`), never for lines seen only as grep rows or
under other numbers; the real ripgrep over real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from leanread import Session

LINES = [f"    total_{n} = compute_value(records[{n}], weight={n} * factor)  # step {n}" for n in range(1, 41)]


def _rows(first: int, last: int, match: int) -> list[str]:
    return [f"{n}\t{LINES[n - 1]}" if n == match else f"{n}-\t{LINES[n - 1]}" for n in range(first, last + 1)]


@pytest.fixture
def calc(root: Path) -> Path:
    path = root / "calc.py"
    path.write_text("\n".join(LINES) + "\n")
    return path


MARKER_20 = "… lines 16-24 unchanged since you read them; the match is line 20 …"


def test_a_group_the_model_read_is_one_marker_naming_the_match(session: Session, calc: Path) -> None:
    session.read("calc.py")
    result = session.grep("total_20 ", context=4)
    assert result.text == f"calc.py\n{MARKER_20}"
    assert [(m["line"], m["column"]) for m in result.metadata["matches"]] == [(20, 5)]
    assert session.grep("total_20 ", context=1).text == "\n".join(["calc.py", *_rows(19, 21, 20)])  # too short
    edited = session.edit("calc.py", LINES[19], LINES[19].replace("factor", "scale"))
    assert edited.is_error is False


def test_only_the_lines_read_are_marked(session: Session, calc: Path) -> None:
    session.read("calc.py", offset=1, limit=18)
    result = session.grep("total_(15|30) ", context=4)
    marker = "… lines 11-18 unchanged since you read them; the match is line 15 …"
    assert result.text == "\n".join(["calc.py", marker, *_rows(19, 19, 0), *_rows(26, 34, 30)])


def test_lines_seen_only_in_a_grep_are_shown_again(session: Session, calc: Path) -> None:
    first = session.grep("total_20 ", context=4)
    assert first.text == "\n".join(["calc.py", *_rows(16, 24, 20)])
    assert session.grep("total_20 ", context=4).text == first.text
    session.read("calc.py", offset=10, limit=20)
    assert session.grep("total_20 ", context=4).text == f"calc.py\n{MARKER_20}"


def test_lines_renumbered_by_a_change_outside_are_shown(session: Session, calc: Path) -> None:
    session.read("calc.py")
    calc.write_text("# header\n" + "\n".join(LINES) + "\n")
    shifted = session.grep("total_20 ", context=4).text.split("\n")
    assert shifted[0] == "calc.py" and shifted[5] == f"21\t{LINES[19]}" and len(shifted) == 10
    session.read("calc.py")
    marker = "… lines 17-25 unchanged since you read them; the match is line 21 …"
    assert session.grep("total_20 ", context=4).text == f"calc.py\n{marker}"


def test_a_forgotten_read_is_not_marked(session: Session, calc: Path) -> None:
    read = session.read("calc.py")
    assert session.grep("total_20 ", context=4).text == f"calc.py\n{MARKER_20}"
    session.forget(read.metadata["call_id"])
    assert session.grep("total_20 ", context=4).text == "\n".join(["calc.py", *_rows(16, 24, 20)])
