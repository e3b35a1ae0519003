"""A big class's members in an outline: one line of names and first lines instead of a row each."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from leanread.code.outline import outline
from leanread.config.settings import Limits
from leanread.view.outlinemembers import MEMBERS_LISTED
from leanread.view.outlineview import render_outline


def _rendered(path: str, source: str) -> tuple[list[str], tuple[int, ...]]:
    lines = source.split("\n")
    text, whole = render_outline(path, outline(path, lines), lambda n: lines[n - 1], Limits())
    return text.split("<content>\n", 1)[1].rsplit("\n</content>", 1)[0].split("\n"), whole


def _methods(count: int, indent: str = "    ") -> str:
    return "".join(f"{indent}def m{k}(self, x):\n{indent}    return x\n\n" for k in range(count))


def test_a_class_with_five_methods_lists_them_and_one_with_four_keeps_its_rows() -> None:
    source = f"class Big:\n{_methods(5)}\nclass Small:\n{_methods(4)}"
    rows, whole = _rendered("m.py", source)
    assert rows[0].endswith(
        "a row with one number ends before the next row; a member listed as name 12 starts on line 12. "
        'Read a part with offset and limit, one definition with symbol="Big.m0", or all of it with mode="full".)'
    )
    assert rows[1:] == [
        "1\tclass Big:",
        "    … m0 2, m1 5, m2 8, m3 11, m4 14 …",
        "18-29\tclass Small:",
        "19\t    def m0(self, x):",
        "22\t    def m1(self, x):",
        "25\t    def m2(self, x):",
        "28\t    def m3(self, x):",
    ]
    # a listed member's line is not shown whole: an edit of it needs a read first
    assert whole == (1, 18, 19, 22, 25, 28)


def test_a_member_starts_at_its_decorator_and_a_class_holding_a_big_class_keeps_its_rows() -> None:
    inner = "".join(f"        @property\n        def p{k}(self):\n            return {k}\n\n" for k in range(5))
    source = f"class Outer:\n    class Inner:\n{inner}    def helper(self):\n        return 1\n"
    rows, whole = _rendered("m.py", source)
    assert rows[1:] == [
        "1-24\tclass Outer:",
        "2\t    class Inner:",
        "        … p0 3, p1 7, p2 11, p3 15, p4 19 …",
        "23\t    def helper(self):",
    ]
    assert whole == (1, 2, 23)


def test_documents_keep_a_row_for_each_heading() -> None:
    source = "# Top\n" + "".join(f"## Part {k}\n\ntext\n\n" for k in range(8))
    rows, _ = _rendered("doc.md", source)
    assert not any(row.lstrip().startswith("…") for row in rows)
    assert rows[1:3] == ["1-34\t# Top", "2\t## Part 0"]


def test_java_members_are_listed_from_their_doc_comments() -> None:
    method = "    /** Doc {k}. */\n    public int get{k}() {{\n        return {k};\n    }}\n\n"
    methods = "".join(method.format(k=k) for k in range(6))
    rows, _ = _rendered("A.java", f"package a;\n\npublic class A {{\n{methods}}}\n")
    assert "    … get0 4, get1 9, get2 14, get3 19, get4 24, get5 29 …" in rows


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 9), min_size=1, max_size=6))
def test_every_definition_is_a_row_or_listed_once(sizes: list[int]) -> None:
    """Whatever the classes' sizes, each method is shown once: as its row when its class has
    fewer than ``MEMBERS_LISTED``, else in its class's list by its first line."""
    source = "".join(f"class C{c}:\n    x = 1\n{_methods(n)}\n" for c, n in enumerate(sizes))
    rows, _ = _rendered("m.py", source)
    lines = source.split("\n")
    text = "\n".join(rows)
    for c, n in enumerate(sizes):
        first = lines.index(f"class C{c}:") + 1
        for k in range(n):
            line = lines.index(f"    def m{k}(self, x):", first) + 1
            as_row = f"{line}\t    def m{k}(self, x):" in rows
            as_listed = re.search(rf"[…,] m{k} {line}[,\s]", text) is not None
            assert (as_row, as_listed) == ((False, True) if n >= MEMBERS_LISTED else (True, False))


def test_members_on_their_owners_line_keep_the_rows() -> None:
    """A one-line class (``class A { a() {} … }``) shows its row, whatever its member count: a
    list would stand for the owner's own line and for members that share one line."""
    rows, whole = _rendered("b.js", "// top\n\nclass OneLine { a() {} b() {} c() {} d() {} e() {} f() {} }\n")
    assert rows[1:] == ["1\t// top", "3\tclass OneLine { a() {} b() {} c() {} d() {} e() {} f() {} }"]
    assert whole == (1, 3)


def test_a_listed_name_is_the_files_own_spelling_and_is_indented_by_depth() -> None:
    private = "class Priv {\n" + "".join(f"\t#m{k}() {{\n\t\treturn {k};\n\t}}\n" for k in range(6)) + "}\n"
    rows, _ = _rendered("c.js", private)
    assert rows[1:] == ["1\tclass Priv {", "    … #m0 2, #m1 5, #m2 8, #m3 11, #m4 14, #m5 17 …"]
    # Python's parser reads the ligature in ``ﬁle`` as ``file``: the class keeps its rows
    methods = "".join(f"    def m{k}(self):\n        return {k}\n" for k in range(5))
    rows, _ = _rendered("u.py", f"class U:\n{methods}    def \ufb01le(self):\n        return 1\n")
    assert rows[-1] == "12\t    def \ufb01le(self):"


def test_a_name_that_prints_as_blank_keeps_the_rows_and_is_named_hidden() -> None:
    members = "".join(f"  a{k}() {{ return {k}; }}\n" for k in range(5))
    rows, _ = _rendered("d.js", f"class Blank {{\n{members}  \u3164() {{ return 9; }}\n}}\n")
    assert rows[1].startswith("(Line 7 holds invisible or text-reordering characters (U+3164)")
    assert rows[-1] == "7\t  \u3164() { return 9; }"


def test_a_rust_impl_lists_its_functions_by_their_own_names() -> None:
    """Rust names an impl's functions by their type (``Foo<T>.a0`` under ``impl<T> Foo<T>``);
    the list shows the function's own name, which ``symbol=`` also finds."""
    fns = "".join(f"    fn a{k}(&self) -> i32 {{\n        {k}\n    }}\n" for k in range(5))
    rows, _ = _rendered("lib.rs", f"struct Foo<T> {{ x: T }}\n\nimpl<T> Foo<T> {{\n{fns}}}\n")
    assert rows[1:] == ["1\tstruct Foo<T> { x: T }", "3\timpl<T> Foo<T> {", "    … a0 4, a1 7, a2 10, a3 13, a4 16 …"]
