"""What an outline spends tokens on: no rows for trivial one-line assignments (found by
``symbol=`` still), and its head counted as the file's text, so a later window does not pay
for the lines twice."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leanread import Limits, MemoryLedger, Session
from leanread.code.outline import find_symbol, outline
from leanread.view.outlineview import render_outline

SETTINGS = '''"""Settings."""

import logging
import os
from typing import TypeVar

logger = logging.getLogger(__name__)
T = TypeVar("T")
DEBUG = False
RETRIES = -1
SEP = os.sep
HANDLERS = {
    "console": 1,
}
PAIR = namedtuple("Pair", ("a", "b"))
LEVELS = [1, 2]


def load(path):
    return path


def save(path):
    return path


class Store:
    cache = None

    def get(self, key):
        return key
'''


def _rows(path: str, source: str) -> list[str]:
    lines = source.split("\n")[:-1]
    text, _ = render_outline(path, outline(path, lines), lambda n: lines[n - 1], Limits())
    return text.split("<content>\n", 1)[1].rsplit("\n</content>", 1)[0].split("\n")[1:]


def test_trivial_one_line_assignments_get_no_row_unless_they_are_the_module() -> None:
    assert _rows("settings.py", SETTINGS) == [
        '1\t"""Settings."""',
        "2\t",
        "3\timport logging",
        "4\timport os",
        "5\tfrom typing import TypeVar",
        "12\tHANDLERS = {",
        '15\tPAIR = namedtuple("Pair", ("a", "b"))',
        "16\tLEVELS = [1, 2]",
        "19\tdef load(path):",
        "23\tdef save(path):",
        "27-31\tclass Store:",
        "30\t    def get(self, key):",
    ]
    # a module of constants: they are its map
    source = "".join(f"LIMIT_{k} = {k}\n" for k in range(1, 6)) + "\n\ndef total():\n    return 0\n"
    assert _rows("limits.py", source) == [
        "1\tLIMIT_1 = 1",
        "2\tLIMIT_2 = 2",
        "3\tLIMIT_3 = 3",
        "4\tLIMIT_4 = 4",
        "5\tLIMIT_5 = 5",
        "8\tdef total():",
    ]


@pytest.mark.parametrize("name", ["logger", "T", "DEBUG", "RETRIES", "SEP"])
def test_a_trivial_assignment_is_still_found_by_name(name: str) -> None:
    lines = SETTINGS.split("\n")[:-1]
    found = find_symbol(outline("settings.py", lines), name, "settings.py")
    assert (found.name, found.first, found.last, found.listed) == (name, found.line, found.line, False)
    assert lines[found.line - 1].startswith(f"{name} = ")


TRIVIAL = st.sampled_from(["None", "0", "-1", "'x'", "True", "os.sep", "get(__name__)", "TypeVar('T')"])
RICH = st.sampled_from(["[1, 2]", "{'a': 1}", "f(g(1))", "x + 1", "lambda: 0", "(1, 2)"])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["trivial", "rich", "def"]), TRIVIAL, RICH), min_size=1, max_size=12))
def test_only_trivial_assignments_lose_their_rows(parts: list[tuple[str, str, str]]) -> None:
    """Every function and every assignment of a value that is not trivial keeps its row; a
    trivial one keeps it only in a module that is mostly such assignments."""
    heads: list[tuple[str, str]] = []  # (the definition's first line, its kind)
    for k, (kind, trivial, rich) in enumerate(parts):
        value = trivial if kind == "trivial" else rich
        heads.append((f"def f{k}():" if kind == "def" else f"v{k} = {value}", kind))
    source = "".join(line + ("\n    pass\n" if kind == "def" else "\n") for line, kind in heads)
    listed = {row.split("\t", 1)[1] for row in _rows("m.py", source)}
    mostly_trivial = 2 * sum(kind == "trivial" for _, kind in heads) > len(heads)
    for line, kind in heads:
        assert (line in listed) == (kind != "trivial" or mostly_trivial), (line, listed)


def _module(root: Path) -> list[str]:
    docstring = ['"""Big module.', *(f"Line {k} of its docstring." for k in range(1, 14)), '"""']
    lines = [*docstring, "", "import module_1", "import module_2", "", ""]  # a head of lines 1-18
    for k in range(1, 61):
        lines += [f"def helper_{k}(x):", *(f"    x = x * {k} + {n}" for n in range(6)), f"    return x + {k}", "", ""]
    (root / "big.py").write_text("\n".join(lines) + "\n")
    return lines


def _frame(path: str, body: list[str], footer: str) -> str:
    return (
        f"<path>{path}</path>\n<type>file</type>\n<content>\n"
        + "".join(f"{b}\n" for b in body)
        + f"\n{footer}\n</content>"
    )


def test_a_window_after_the_outline_marks_the_head_it_showed(tmp_path: Path) -> None:
    lines = _module(tmp_path)
    session = Session([tmp_path], ledger=MemoryLedger())
    assert session.read("big.py").metadata["type"] == "outline"
    window = session.read("big.py", offset=1, limit=40)
    assert window.text == _frame(
        "big.py",
        ["… lines 1-18 unchanged since you read them …", *lines[18:40]],
        f"(Showing lines 1-40 of {len(lines)}. Use offset=41 to continue.)",
    )
    # definition rows are an index, not text: a window over them shows them again
    rows = session.read("big.py", offset=41, limit=10)
    assert rows.text == _frame(
        "big.py", lines[40:50], f"(Showing lines 41-50 of {len(lines)}. Use offset=51 to continue.)"
    )
    # what the outline showed is carried over an edit as index rows only: no marker for it
    session.read("big.py", symbol="helper_60")
    assert not session.edit("big.py", "    return x + 60\n", "    return x - 60\n").is_error
    again = session.read("big.py", offset=1, limit=5)
    assert again.text == _frame("big.py", lines[:5], f"(Showing lines 1-5 of {len(lines)}. Use offset=6 to continue.)")


def test_a_window_after_a_logs_outline_marks_its_head_and_tail(tmp_path: Path) -> None:
    lines = [f"2026-12-07 06:{n // 60:02d}:{n % 60:02d} INFO worker started job number {n}" for n in range(300)]
    (tmp_path / "run.log").write_text("\n".join(lines) + "\n")
    session = Session([tmp_path], ledger=MemoryLedger())
    assert session.read("run.log").metadata["type"] == "outline"
    head = session.read("run.log", offset=1, limit=25)
    assert head.text == _frame(
        "run.log",
        ["… lines 1-20 unchanged since you read them …", *lines[20:25]],
        "(Showing lines 1-25 of 300. Use offset=26 to continue.)",
    )
    tail = session.read("run.log", offset=275)
    assert tail.text == _frame(
        "run.log",
        [*lines[274:280], "… lines 281-300 unchanged since you read them …"],
        "(End of file - total 300 lines)",
    )


GO = """package main

import "fmt"

const maxRetries = 3
var ErrClosed = errors.New("closed")
var table = map[string]int{"a": 1}

func main() {
\tfmt.Println(1)
}

func other() {
}

func third() {
}
"""
RUST = """use std::io;

const MAX: usize = 10;
static NAME: &str = "x";
const TABLE: [u8; 2] = [1, 2];

fn main() {
    println!("x");
}

fn other() {
}
"""
C = """#include <stdio.h>

#define SIZE 512
#define NAME "x"
#define MAX(a, b) ((a) > (b) ? (a) : (b))
static int count = 0;
int add(int a, int b);

int add(int a, int b) {
    return a + b;
}

int main(void) {
    return 0;
}
"""


@pytest.mark.parametrize(
    ("path", "source", "rows", "unlisted"),
    [
        (
            "main.go",
            GO,
            [
                "1\tpackage main",
                "2\t",
                '3\timport "fmt"',
                '7\tvar table = map[string]int{"a": 1}',
                "9\tfunc main() {",
                "13\tfunc other() {",
                "16\tfunc third() {",
            ],
            ["maxRetries", "ErrClosed"],
        ),
        (
            "lib.rs",
            RUST,
            ["1\tuse std::io;", "5\tconst TABLE: [u8; 2] = [1, 2];", "7\tfn main() {", "11\tfn other() {"],
            ["MAX", "NAME"],
        ),
        (
            "add.c",
            C,
            [
                "1\t#include <stdio.h>",
                "5\t#define MAX(a, b) ((a) > (b) ? (a) : (b))",
                "7\tint add(int a, int b);",
                "9\tint add(int a, int b) {",
                "13\tint main(void) {",
            ],
            ["SIZE", "NAME", "count"],
        ),
    ],
)
def test_trivial_one_line_constants_get_no_row_in_any_language(
    path: str, source: str, rows: list[str], unlisted: list[str]
) -> None:
    assert _rows(path, source) == rows
    made = outline(path, source.split("\n")[:-1])
    assert [s.name for s in made.symbols if not s.listed] == unlisted
    assert [find_symbol(made, name, path).name for name in unlisted] == unlisted


# --- a row's last line: said where the next row does not tell it -------------------------------------

PIECES = {
    "function": "def f{k}(x):\n    y = x + {k}\n    return y\n",
    "decorated": "@cache\ndef g{k}():\n    return {k}\n",
    "one_line": "def h{k}(): return {k}\n",
    "class": "class C{k}:\n    def a(self):\n        return 1\n\n    def b(self):\n        return 2\n",
    "comment": "# note {k}\n",
    "constant": "LIMIT_{k} = {k}\n",
    "table": "TABLE_{k} = {{\n    'k': {k},\n}}\n",
    "blank": "\n",
}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(sorted(PIECES)), min_size=1, max_size=14))
def test_a_row_without_its_last_line_ends_before_the_next_row_with_only_blank_lines_between(
    kinds: list[str],
) -> None:
    source = "".join(PIECES[kind].format(k=k) for k, kind in enumerate(kinds))
    lines = source.split("\n")[:-1]
    made = outline("m.py", lines)
    text, _ = render_outline("m.py", made, lambda n: lines[n - 1], Limits())
    rows = [row.split("\t", 1)[0] for row in text.split("\n") if row[:1].isdigit()]
    starts = [int(label.split("-")[0]) for label in rows]
    by_line = {s.line: s for s in made.symbols if s.listed}
    for k, label in enumerate(rows):
        symbol = by_line.get(starts[k])
        if symbol is None:
            continue
        if "-" in label:
            assert int(label.split("-")[1]) == symbol.last
            continue
        following = starts[k + 1] if k + 1 < len(starts) else len(lines) + 1
        assert symbol.last < following
        if symbol.last > symbol.line:  # a left-out last line: reading to the next row adds only blanks
            assert all(not line.strip() for line in lines[symbol.last : following - 1])
