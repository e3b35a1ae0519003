"""What an edit's result shows the model: one line when the file got what it sent; the lines it
got otherwise, the rule in a note, the line a parse warning names; and, when old_string is not
found, only the lines of the closest text that differ from it, or none when no text is alike."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leanread import MemoryLedger, Session
from leanread.code.edit_plan import plan_edit
from leanread.errors import NoMatch

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
        ("value_3 = compute(3)\n", "value_3 = 0\nvalue_3b = 1\n", "Edited line 3 (+1 line)."),
        ("value_3 = compute(3)\nvalue_4 = compute(4)\n", "", "Removed lines 3-4."),
        ("value_3 = compute(3)\nvalue_4 = compute(4)\n", "v = 3\n", "Edited lines 3-4 (-1 line)."),
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
    grown = f" (+{extra} line{'s' if extra > 1 else ''})" if extra else ""
    assert result.text == f"Edited line {line}{grown}."
    written = (root / "a.py").read_text().splitlines()
    assert written[line - 1 : line + extra] == new.splitlines()


# --- written otherwise: the rule in a note, the lines that show how ---------------------------------


def test_a_shifted_new_string_shows_the_rule_and_its_first_line(root: Path) -> None:
    text = "def f():\n    if ready:\n        go()\n    return 1\n"
    session = _session(root, "f.py", text)
    result = session.edit("f.py", "if ready:\n    go()", "if ready:\n    go()\n    log()")
    assert result.text == (
        "Edited lines 2-3 (+1 line) (old_string matched by the whitespace rule; new_string indented 4 columns "
        "deeper, as the file).\n2:     if ready:"
    )
    assert (root / "f.py").read_text() == "def f():\n    if ready:\n        go()\n        log()\n    return 1\n"


def test_a_new_string_in_the_files_indentation_is_kept_and_only_noted(root: Path) -> None:
    text = "def f():\n    go()\n    return 1\n"
    session = _session(root, "f.py", text)
    result = session.edit("f.py", "        go()", "    stop()")
    assert result.text == (
        "Edited line 2 (old_string matched by the whitespace rule; new_string kept as given, in the file's "
        "indentation)."
    )


def test_spaces_written_as_the_files_tabs_are_shown(root: Path) -> None:
    text = "def f():\n\tif ready:\n\t\tgo()\n"
    session = _session(root, "f.py", text)
    result = session.edit("f.py", "    if ready:\n        go()", "    if ready:\n        stop()")
    assert result.text == (
        "Edited lines 2-3 (old_string matched by the whitespace rule).\n2: \tif ready:\n3: \t\tstop()"
    )


def test_a_line_sent_in_old_strings_indentation_is_shown_as_the_file_got_it(root: Path) -> None:
    text = "def f():\n    a = 1\n    b = 2\n    return 3\n"
    session = _session(root, "f.py", text)
    # new_string's first line has the file's indentation (kept as given); its second, equal to
    # old_string's, takes the file's own text back: 4 spaces, not the 8 the model sent
    result = session.edit("f.py", "        a = 1\n        b = 2", "    a = 10\n        b = 2")
    assert result.text == (
        "Edited lines 2-3 (old_string matched by the whitespace rule; new_string kept as given, in the file's "
        "indentation).\n3:     b = 2"
    )
    assert (root / "f.py").read_text() == "def f():\n    a = 10\n    b = 2\n    return 3\n"


@pytest.mark.parametrize(
    ("text", "old", "new", "shown"),
    [
        ("def f():\n\tif x:\n\t\tgo()\n", "if x:\n    go()", "if x:\n    go()\n    stop()", "2: \tif x:"),
        ("class A:\n  def f(self):\n    go()\n", "def f(self):\n  go()", "def f(self):\n  stop()", "2:   def f(self):"),
    ],
)
def test_a_shift_in_the_files_own_characters_shows_one_line(
    root: Path, text: str, old: str, new: str, shown: str
) -> None:
    session = _session(root, "f.py", text)
    result = session.edit("f.py", old, new)
    assert result.text.split("\n")[1:] == [shown]
    assert "new_string indented " in result.text.split("\n")[0]


@given(
    depth=st.sampled_from([0, 2, 4, 8]),
    sent=st.sampled_from([0, 2, 4, 8]),
    extra=st.lists(st.sampled_from([0, 2, 4, 6, 8, 12]), min_size=1, max_size=4),
)
@settings(max_examples=30, deadline=None)
def test_no_line_written_otherwise_than_sent_and_noted_is_hidden(
    tmp_path_factory: pytest.TempPathFactory, depth: int, sent: int, extra: list[int]
) -> None:
    root = tmp_path_factory.mktemp("ws")
    pad, send = " " * depth, " " * sent
    text = f"def f():\n{pad}if ready:\n{pad}    go()\n{pad}done()\n"
    session = _session(root, "f.py", text)
    old = f"{send}if ready:\n{send}    go()"
    new_lines = [f"{send}if ready:", *(f"{send}{' ' * k}call_{i}()" for i, k in enumerate(extra))]
    result = session.edit("f.py", old, "\n".join(new_lines))
    if result.is_error:
        return  # old_string as sent is in the file (the same depth): nothing to compare
    head, *rows = result.text.split("\n")
    shown = {int(row.split(":", 1)[0]) for row in rows if row[:1].isdigit()}
    shift = 0
    if "indented " in head:
        columns = int(head.split("indented ")[1].split(" column")[0])
        shift = columns if "deeper" in head else -columns
    written = (root / "f.py").read_text().split("\n")
    for number, line in enumerate(new_lines, start=2):
        got = written[number - 1]
        expected = " " * max(0, len(line) - len(line.lstrip()) + shift) + line.lstrip()
        assert got == expected or number in shown, (result.text, got, expected)


@pytest.mark.parametrize(
    ("old", "new", "rule"),
    [
        ("value_3 = compute(3)\r\nvalue_4 = compute(4)", "v3 = 3\r\nv4 = 4", "line-endings"),
        ("3: value_3 = compute(3)\n4: value_4 = compute(4)", "v3 = 3\nv4 = 4", "line-numbers"),
        ("3\tvalue_3 = compute(3)\n4\tvalue_4 = compute(4)", "3\tv3 = 3\n4\tv4 = 4", "line-numbers"),
    ],
)
def test_a_rule_that_writes_new_string_as_given_is_only_noted(root: Path, old: str, new: str, rule: str) -> None:
    session = _session(root, "a.py", BODY)
    result = session.edit("a.py", old, new)
    assert result.text == f"Edited lines 3-4 (old_string matched by the {rule} rule)."
    assert (root / "a.py").read_text().splitlines()[2:4] == ["v3 = 3", "v4 = 4"]


# --- a parse warning: the line it names, when the model did not write it ---------------------------


def test_a_parse_warning_shows_the_line_it_names_outside_the_edit(root: Path) -> None:
    text = "def f():\n    if x:\n        pass\n    y = 1\n    return y\n"
    session = _session(root, "f.py", text)
    result = session.edit("f.py", "    y = 1", "y = 1")
    assert result.text == (
        "Edited line 4.\n5:     return y\nWarning: f.py parsed before this edit and no longer does (Python: line 5: "
        "unexpected indent); fix it with another edit unless you meant to."
    )


def test_a_parse_warning_inside_the_edit_shows_no_line(root: Path) -> None:
    session = _session(root, "f.py", "def f():\n    return 1\n")
    result = session.edit("f.py", "    return 1", "    return (1")
    assert result.text.split("\n")[0] == "Edited line 2."
    assert result.text.split("\n")[1].startswith("Warning: f.py parsed before this edit and no longer does (Python: ")
    assert len(result.text.split("\n")) == 2


# --- not found: only the closest lines that differ from old_string ---------------------------------


def _no_match(text: str, old: str) -> str:
    with pytest.raises(NoMatch) as err:
        plan_edit(text, old, "x")
    return str(err.value)


@pytest.mark.parametrize(
    ("typo_at", "first", "last"),
    [(5, 3, 8), (3, 3, 8), (21, 2, 21), (12, 10, 14)],
)
def test_not_found_quotes_only_the_closest_lines_that_differ(typo_at: int, first: int, last: int) -> None:
    lines = BODY.splitlines()
    old = [line.replace(f"compute({typo_at})", f"compute({typo_at}, x)") for line in lines[first - 1 : last]]
    message = _no_match(BODY, "\n".join(old))
    assert message == (
        f"old_string was not found; lines {first}-{last} come closest, where 1 of "
        f"{last - first + 1} lines differs (copy old_string exactly from the file's lines):\n"
        f"{typo_at}: value_{typo_at} = compute({typo_at})"
    )


@pytest.mark.parametrize("missing", [4, 6, 9])
def test_a_line_left_out_of_old_string_is_the_one_quoted(missing: int) -> None:
    lines = BODY.splitlines()
    old = [line for n, line in enumerate(lines[2:10], start=3) if n != missing]
    message = _no_match(BODY, "\n".join(old))
    assert message.split("\n")[1:] == [f"{missing}: value_{missing} = compute({missing})"]
    assert ", where 1 of 7 lines differs (copy old_string exactly from the file's lines):" in message


def test_old_string_with_a_line_more_quotes_the_window() -> None:
    lines = BODY.splitlines()
    old = [*lines[2:4], "extra = 1", *lines[4:6]]
    message = _no_match(BODY, "\n".join(old))
    assert message.split("\n") == [
        "old_string was not found; lines 3-7 come closest (copy old_string exactly from the file's lines):",
        *(f"{n}: value_{n} = compute({n})" for n in range(3, 8)),
    ]


def test_not_found_with_every_line_different_quotes_the_window() -> None:
    message = _no_match(BODY, "value_3 = compute(3, a)\nvalue_4 = compute(4, b)")
    assert message == (
        "old_string was not found; lines 3-4 come closest (copy old_string exactly from "
        "the file's lines):\n3: value_3 = compute(3)\n4: value_4 = compute(4)"
    )


@pytest.mark.parametrize(
    "old",
    [
        "if feature_names:\n    names = [value_12 for i in tree_.feature]\nelse:\n    names = None",
        "def test_offset_changes():\n    fig, ax = plt.subplots(value_3)\n    d1 = datetime.datetime(1997, 1, 1)",
        "for value_1 in range(30):\n    total += value_1 * 2\n    print(total)",
        "import compute\n\nresult = compute.everything(verbose=True)",
    ],
)
def test_text_not_alike_is_not_quoted(old: str) -> None:
    assert _no_match(BODY, old) == (
        "old_string was not found, nor anything close to it; read the lines you mean to "
        "change and copy old_string from them exactly."
    )


def test_replace_all_that_adds_lines_says_how_far_the_lines_after_moved(root: Path) -> None:
    session = _session(root, "a.py", BODY)
    result = session.edit("a.py", "value_2 = compute(2)\n", "value_2 = compute(2)\n# two\n", replace_all=True)
    assert result.text == "Edited line 2 (+1 line)."
    result = session.edit("a.py", "compute(1", "work(\n    1", replace_all=True)
    assert result.text == "Replaced 11 occurrences; edited lines 1-20 (+11 lines)."
    grown = BODY.replace("value_2 = compute(2)\n", "value_2 = compute(2)\n# two\n")
    assert (root / "a.py").read_text() == grown.replace("compute(1", "work(\n    1")
