"""What `grep` does not send twice: a run of lines the model holds as read is one marker row where
that pays (read's wording and rule, `view.marks.marker_pays`), never for lines seen only as grep
rows or under other numbers; a files-only page writes a folder once for its files. The real
ripgrep over real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from leanread import Session
from leanread.tools.grep import lines as grep_lines

LINES = [f"    total_{n} = compute_value(records[{n}], weight={n} * factor)  # step {n}" for n in range(1, 41)]


def _rows(first: int, last: int, match: int) -> list[str]:
    """A run of grep rows after a gap: the match numbered, context numbered only as the run's first."""
    return [
        f"{n}\t{LINES[n - 1]}" if n == match else f"{n}-\t{LINES[n - 1]}" if n == first else f"\t{LINES[n - 1]}"
        for n in range(first, last + 1)
    ]


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


def test_files_only_writes_a_folder_once_for_its_files(session: Session, root: Path) -> None:
    pkg = root / "src" / "main" / "java" / "com" / "example"
    for name, hits in (("A.java", 2), ("B.java", 1), ("util/C.java", 3), ("util/D.java", 1), ("x/E.java", 1)):
        (pkg / name).parent.mkdir(parents=True, exist_ok=True)
        (pkg / name).write_text("token\n" * hits)
    (root / "README.md").write_text("token\n")
    (root / "setup.cfg").write_text("token\n")
    (pkg / "  odd.java").write_text("token\n")
    result = session.grep("token", files_only=True)
    assert result.text == "\n".join(
        [
            "README.md (1 match)",
            "setup.cfg (1 match)",
            "src/main/java/com/example/",
            "  \\x20\\x20odd.java (1 match)",
            "  A.java (2 matches)",
            "  B.java (1 match)",
            "src/main/java/com/example/util/",
            "  C.java (3 matches)",
            "  D.java (1 match)",
            "src/main/java/com/example/x/E.java (1 match)",
        ]
    )
    page = session.grep("token", files_only=True, max_results=2, offset=5)
    assert page.text == "\n".join(
        [
            "src/main/java/com/example/B.java (1 match)",
            "src/main/java/com/example/util/C.java (3 matches)",
            "",
            "(Showing files 5-6 of 8, 11 matches in all. Use offset=7 to continue.)",
        ]
    )


SEQUENCES = {
    "read whole, then grep": [
        ("read", {"path": "calc.py", "mode": "full"}),
        ("grep", {"pattern": "step 1", "context": 2}),
    ],
    "a window, then grep": [
        ("read", {"path": "calc.py", "offset": 8, "limit": 6}),
        ("grep", {"pattern": "total_1", "context": 3}),
    ],
    "grep twice": [("grep", {"pattern": "step 2"}), ("grep", {"pattern": "step 2", "context": 1})],
    "read, forget, grep": [
        ("read", {"path": "calc.py", "mode": "full"}),
        ("forget", {}),
        ("grep", {"pattern": "step 3", "context": 1}),
    ],
    "changed outside since the read": [
        ("read", {"path": "calc.py", "mode": "full"}),
        ("rewrite", {}),
        ("grep", {"pattern": "step 1", "context": 1}),
    ],
}


def _run(session: Session, calc: Path, steps: list[tuple[str, dict[str, object]]]) -> list[str]:
    texts = []
    for tool, arguments in steps:
        if tool == "forget":
            session.forget(["r1"])
        elif tool == "rewrite":
            calc.write_text("# head\n" + calc.read_text())
        else:
            texts.append(session.call(tool, arguments).text)
    return texts


@pytest.mark.parametrize("name", list(SEQUENCES))
def test_the_fast_way_to_a_seen_files_lines_answers_as_the_whole_file_does(
    root: Path, calc: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = calc.read_text()
    fast = _run(Session([root], ledger="memory"), calc, SEQUENCES[name])
    calc.write_text(original)
    monkeypatch.setattr(grep_lines, "_plain_utf8", lambda *args: None)  # every file decoded whole
    whole = _run(Session([root], ledger="memory"), calc, SEQUENCES[name])
    assert fast == whole
