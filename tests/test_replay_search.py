"""A trace's grep/list/glob ops as calls: GNU grep's hits, grep's regular expressions for ripgrep,
listings; and line identity across versions."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from leanread.bench.replay.lineids import LineIds
from leanread.bench.replay.searching import bre_to_ere, grep_call, list_call, ripgrep_pattern


@pytest.mark.parametrize(
    ("bre", "ere"),
    [
        (r"def \(compare\|__eq__\|__ne__\)", r"def (compare|__eq__|__ne__)"),
        (r"encoder\|decoder", r"encoder|decoder"),
        (r"def _print(", r"def _print\("),
        ("PyTypedField('variable'", r"PyTypedField\('variable'"),
        (r"def __[lg][te]", r"def __[lg][te]"),
        (r"a\{2\}b+?", r"a{2}b\+\?"),
        (r"x[]|]y", r"x[]|]y"),
    ],
)
def test_basic_regular_expressions_become_extended_ones(bre: str, ere: str) -> None:
    assert bre_to_ere(bre) == ere
    re.compile(ere)


def _repo(tmp_path: Path) -> Path:
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "a.py").write_text("def one():\n    return 1\n\n\ndef two():\n    return 2\n")
    (tmp_path / "pkg" / "sub" / "b.py").write_text("x = one()\r\n")
    (tmp_path / "pkg" / "data.bin").write_bytes(b"\x00def one")
    return tmp_path


def test_grep_call_runs_gnu_grep_with_the_ops_flags(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    call = grep_call({"op": "grep", "pattern": r"def \(one\|two\)", "path": "pkg", "flags": ["-n", "-A 1"]}, root)
    assert call is not None and call.before == 0 and call.after == 1
    assert [(h.path, h.line, h.text, h.match) for h in call.hits] == [
        ("pkg/a.py", 1, "def one():", True),
        ("pkg/a.py", 2, "    return 1", False),
        ("pkg/a.py", 5, "def two():", True),
        ("pkg/a.py", 6, "    return 2", False),
    ]
    assert ripgrep_pattern(call) == "def (one|two)"
    files = grep_call({"op": "grep", "pattern": "one", "path": ".", "flags": ["-l"], "files": "*.py"}, root)
    assert files is not None and files.files_only and files.files == ("pkg/a.py", "pkg/sub/b.py")
    assert files.hits[-1].text == "x = one()"  # CR dropped as read drops it
    assert grep_call({"op": "grep", "pattern": "x", "path": "/etc"}, root) is None
    assert grep_call({"op": "grep", "pattern": "x", "path": "../.."}, root) is None


def test_list_and_glob_calls(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    (root / ".hidden").write_text("")
    ls = list_call({"op": "list", "path": ".", "cmd": "ls"}, root)
    assert ls is not None and ls.entries == ("pkg/",)
    tree = list_call({"op": "list", "path": "pkg", "cmd": "ls -R pkg"}, root)
    assert tree is not None and tree.entries == ("a.py", "data.bin", "sub/", "sub/b.py")
    two = list_call({"op": "list", "path": ".", "depth": 2}, root)
    assert two is not None and two.entries == ("pkg/", "pkg/a.py", "pkg/data.bin", "pkg/sub/")
    found = list_call({"op": "glob", "path": ".", "pattern": "*.py"}, root)
    assert found is not None and found.entries == ("pkg/a.py", "pkg/sub/b.py")
    assert list_call({"op": "list", "path": "missing"}, root) is None


def test_line_ids_follow_unchanged_lines_through_edits() -> None:
    ids = LineIds()
    first = ids.ids("f", ["a", "b", "c", "d"])
    second = ids.ids("f", ["a", "B", "c", "x", "d"])
    assert second[0] == first[0] and second[2] == first[2] and second[4] == first[3]
    assert second[1] not in first and second[3] not in first
    assert ids.ids("f", ["a", "B", "c", "x", "d"]) == second
    assert ids.current("f") == second and ids.current("g") is None
