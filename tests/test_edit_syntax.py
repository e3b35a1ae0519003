"""Edits never break a file silently: the whitespace rule carries the indentation it found over to
new_string, and an edit that leaves code parsing worse than before says so and where."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from leanread import Session
from leanread.code.edit_plan import plan_edit
from leanread.code.syntax import parse_warning_at


def parse_warning(path: str, before: str, after: str, changed_from: int = 1) -> str | None:
    """The warning ``parse_warning_at`` gives, without its line."""
    found = parse_warning_at(path, before, after, changed_from)
    return found[0] if found else None


HOOKS = (
    "".join(f"# line {i}\n" for i in range(1, 20))
    + 'def install(hooks=None):\n    """Install hooks."""\n    if hooks is None:\n        pass\n'
    + "    hooks = hooks or dict()\n    return hooks\n"
)

# --- the whitespace rule re-indents new_string -------------------------------------------------------


def test_old_string_indented_deeper_than_the_file_keeps_a_new_string_given_in_the_files_indentation() -> None:
    plan = plan_edit(HOOKS, "        hooks = hooks or dict()", "    hooks = hooks or {}")
    assert (plan.rule, plan.shift, plan.kept_indent) == ("whitespace", -4, True)
    assert plan.new_text == HOOKS.replace("hooks = hooks or dict()", "hooks = hooks or {}")


def test_old_and_new_both_indented_deeper_than_the_file_shift_new_string_shallower() -> None:
    plan = plan_edit(HOOKS, "        hooks = hooks or dict()", "        hooks = hooks or {}")
    assert (plan.rule, plan.shift, plan.kept_indent) == ("whitespace", -4, False)
    assert plan.new_text == HOOKS.replace("hooks = hooks or dict()", "hooks = hooks or {}")


def test_a_block_given_without_its_indentation_is_put_back_deeper() -> None:
    text = "class A:\n    def f(self):\n        a = 1\n        b = 2\n"
    plan = plan_edit(text, "a = 1\nb = 2\n", "a = 1\nif a:\n    b = 3\n")
    assert (plan.rule, plan.shift) == ("whitespace", 8)
    assert plan.new_text == "class A:\n    def f(self):\n        a = 1\n        if a:\n            b = 3\n"


def test_a_multi_line_block_indented_too_deep_keeps_its_inner_structure() -> None:
    text = "def f():\n    a = 1\n    b = 2\n"
    plan = plan_edit(text, "        a = 1\n        b = 2\n", "        a = 1\n        for i in r:\n            b += i\n")
    assert (plan.rule, plan.shift) == ("whitespace", -4)
    assert plan.new_text == "def f():\n    a = 1\n    for i in r:\n        b += i\n"


def test_spaces_in_old_and_new_become_the_files_tabs_at_every_depth() -> None:
    text = "def f():\n\tif x:\n\t\ty()\n"
    plan = plan_edit(text, "if x:\n    y()\n", "if x:\n    y()\n    if z:\n        w()\n")
    assert (plan.rule, plan.shift) == ("whitespace", 4)
    assert plan.new_text == "def f():\n\tif x:\n\t\ty()\n\t\tif z:\n\t\t\tw()\n"


def test_tabs_in_old_and_new_become_the_files_two_spaces() -> None:
    text = "if a:\n  if b:\n    c()\n"
    plan = plan_edit(text, "\tif b:\n\t\tc()\n", "\tif b:\n\t\tc()\n\t\t\td()\n")
    assert plan.rule == "whitespace"
    assert plan.new_text == "if a:\n  if b:\n    c()\n      d()\n"


def test_a_deeper_line_in_a_mixed_tab_and_space_file_extends_the_files_own_indentation() -> None:
    # "\t    " is this file's second level; a third level is that and four more spaces, never "\t\t\t"
    text = "class A:\n\tdef f(self):\n\t    x = 1\n\t    return x\n"
    old = "        x = 1\n        return x\n"
    plan = plan_edit(text, old, "        x = 1\n        if x:\n            x = 2\n        return x\n")
    assert (plan.rule, plan.shift) == ("whitespace", 0)
    assert plan.new_text == "class A:\n\tdef f(self):\n\t    x = 1\n\t    if x:\n\t        x = 2\n\t    return x\n"


_LINE = st.tuples(st.integers(0, 3), st.sampled_from(["a = 1", "b()", "if c:", "return d", "e += 2"]))


@settings(max_examples=60, deadline=None)
@given(
    block=st.lists(_LINE, min_size=1, max_size=6, unique_by=lambda line: line[1]),
    base=st.integers(0, 3),
    given_base=st.integers(0, 3),
    unit=st.sampled_from(["    ", "\t", "  "]),
    given_tabs=st.booleans(),
    changed=st.integers(0, 5),
    deeper=st.integers(0, 2),
)
def test_a_block_given_at_any_uniform_indentation_edits_the_file_as_if_given_at_its_own(
    block: list[tuple[int, str]], base: int, given_base: int, unit: str, given_tabs: bool, changed: int, deeper: int
) -> None:
    """Property: old_string and new_string given at another depth, or in tabs where the file has
    spaces, edit the file as if given in its own indentation. (Tabs and another depth at once are
    ambiguous when the window shows one level only: the file's unit is not known. An old_string
    that is the file's text minus its first line's indentation matches exactly, mid-line, and
    new_string then goes in as given.)"""
    given_unit = "\t" if given_tabs else unit
    if given_unit != unit:
        given_base = base
        block = [*block, (1, "last()")]  # the window shows the file's unit

    def render(lines: list[tuple[int, str]], start: int, step: str) -> str:
        return "".join(step * (start + depth) + code + "\n" for depth, code in lines)

    index = changed % len(block)
    new_block = [*block[: index + 1], (block[index][0] + deeper, "added = 0"), *block[index + 1 :]]
    text = f"def top():\n{unit}pass\n" + render(block, base, unit) + "end = 0\n"
    assume(given_base >= base or render(block, given_base, given_unit) not in text)
    own = plan_edit(text, render(block, base, unit), render(new_block, base, unit))
    shifted = plan_edit(text, render(block, given_base, given_unit), render(new_block, given_base, given_unit))
    assert shifted.new_text == own.new_text == f"def top():\n{unit}pass\n" + render(new_block, base, unit) + "end = 0\n"


# --- parses worse: the warning ---------------------------------------------------------------------


def test_python_that_parsed_and_no_longer_does_names_the_first_error() -> None:
    after = HOOKS.replace("    hooks = hooks or dict()\n", "hooks = hooks or {}\n")
    assert parse_warning("pkg/hooks.py", HOOKS, after, 24) == (
        "Warning: pkg/hooks.py parsed before this edit and no longer does (Python: line 25: unexpected indent); "
        "fix it with another edit unless you meant to."
    )
    assert parse_warning("pkg/hooks.py", HOOKS, HOOKS.replace("dict()", "{}"), 24) is None


def test_python_that_did_not_parse_before_is_compared_by_its_error_count() -> None:
    broken = "def f(:\n    pass\n"
    assert parse_warning("a.py", broken, broken + "x = 1\n") is None
    assert parse_warning("a.py", broken, broken + "def g(:\n    pass\n", 3) == (
        "Warning: a.py parses worse after this edit (Python: 2 syntax errors, 1 before; one at line 3); "
        "fix it with another edit unless you meant to."
    )


@pytest.mark.parametrize(
    ("path", "before", "after", "language", "line"),
    [
        ("a.js", "function f() {\n  return 1;\n}\n", "function f() {\n  return (1;\n}\n", "JavaScript", 2),
        ("a.ts", "const x: number = 1;\nlet y = 2;\n", "const x: number = 1;\nlet y = = 2;\n", "TypeScript", 2),
        (
            "a.go",
            "package a\n\nfunc f() int {\n\treturn 1\n}\n",
            "package a\n\nfunc f() int {\n\treturn (1\n}\n",
            "Go",
            4,
        ),
        ("a.rs", "fn f() -> i32 {\n    1\n}\n", "fn f() -> i32 {\n    (1\n}\n", "Rust", 2),
        ("A.java", "class A {\n  int f() { return 1; }\n}\n", "class A {\n  int f() { return 1 }\n}\n", "Java", 2),
        ("a.c", "int f(void) {\n  return 1;\n}\n", "int f(void) {\n  return 1\n}\n", "C", 2),
        ("a.cpp", "int f() {\n  return 1;\n}\n", "int f() {\n  return 1 +;\n}\n", "C++", 2),
    ],
)
def test_other_languages_with_more_tree_sitter_errors_are_named(
    path: str, before: str, after: str, language: str, line: int
) -> None:
    assert parse_warning(path, before, after, 2) == (
        f"Warning: {path} parses worse after this edit ({language}: 1 syntax error, 0 before; one at line {line}); "
        "fix it with another edit unless you meant to."
    )
    assert parse_warning(path, after, after + "\n", 2) is None  # no worse than it was


def test_files_leanread_does_not_parse_get_no_warning() -> None:
    assert parse_warning("notes.md", "# a\n", "# a\n```\n") is None
    assert parse_warning("data.json", "{}\n", "{\n") is None


# --- through the edit tool -------------------------------------------------------------------------


def test_the_hooks_edit_keeps_the_files_indentation(session: Session, root: Path) -> None:
    (root / "hooks.py").write_text(HOOKS)
    session.read("hooks.py")
    result = session.edit("hooks.py", "        hooks = hooks or dict()", "    hooks = hooks or {}")
    # written as sent (new_string had the file's indentation): no line to show, the rule in a note
    assert result.text == (
        "Edited line 24 (old_string matched by the whitespace rule; new_string kept as given, in the file's "
        "indentation)."
    )
    assert "warning" not in result.metadata
    assert (root / "hooks.py").read_text() == HOOKS.replace("dict()", "{}")


def test_an_edit_that_breaks_python_is_written_with_a_warning_and_the_next_step_is_not_blocked(
    session: Session, root: Path
) -> None:
    (root / "hooks.py").write_text(HOOKS)
    session.read("hooks.py")
    result = session.edit("hooks.py", "    hooks = hooks or dict()", "hooks = hooks or {}")
    warning = (
        "Warning: hooks.py parsed before this edit and no longer does (Python: line 25: unexpected indent); "
        "fix it with another edit unless you meant to."
    )
    # written as sent: only the line the warning names, which the model did not write
    assert result.text == f"Edited line 24.\n25:     return hooks\n{warning}"
    assert not result.is_error and result.metadata["warning"] == warning
    assert (root / "hooks.py").read_bytes() == HOOKS.replace(
        "    hooks = hooks or dict()", "hooks = hooks or {}"
    ).encode()
    fixed = session.edit("hooks.py", "hooks = hooks or {}", "    hooks = hooks or {}")
    assert fixed.text == "Edited line 24."  # as sent: no excerpt
    assert "warning" not in fixed.metadata
    assert (root / "hooks.py").read_text() == HOOKS.replace("dict()", "{}")


def test_an_exact_edit_that_breaks_javascript_is_written_and_warned(session: Session, root: Path) -> None:
    (root / "app.js").write_bytes(b"function f() {\r\n  return 1;\r\n}\r\n")
    session.read("app.js")
    result = session.edit("app.js", "  return 1;", "  return (1;")
    assert result.text.endswith(
        "Warning: app.js parses worse after this edit (JavaScript: 1 syntax error, 0 before; one at line 2); "
        "fix it with another edit unless you meant to."
    )
    assert (root / "app.js").read_bytes() == b"function f() {\r\n  return (1;\r\n}\r\n"
