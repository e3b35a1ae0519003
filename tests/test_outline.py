"""Outlines: the map of a big file, exact for each language, and symbol lookups."""

from __future__ import annotations

import inspect
import re
import textwrap
import uuid
from pathlib import Path

import pytest
from clirun import leanread

from leanread.code.outline import Symbol, find_symbol, outline
from leanread.config.settings import Limits
from leanread.errors import InvalidArgument
from leanread.view.outlineview import render_outline


def _render(path: str, source: str) -> str:
    lines = source.split("\n")
    if lines[-1] == "":
        lines.pop()
    made = outline(path, lines)
    text, _ = render_outline(path, made, lambda n: lines[n - 1], Limits())
    return text.split("<content>\n", 1)[1].rsplit("\n</content>", 1)[0]


def _entries(path: str, source: str) -> list[str]:
    return _render(path, source).split("\n")[1:]


PYTHON = '''"""Orders."""

import os
from typing import Any

LIMIT = 10  # trivial: found by symbol=, no row


@dataclass
class Order:
    id: int

    def total(self) -> int:
        return 1

    async def refresh(self):
        pass


def place(order: Order) -> None:
    pass
'''


def test_python_head_classes_methods_and_assignments() -> None:
    assert _render("orders.py", PYTHON).split("\n") == [
        "(Outline of a 21-line python file: its head, then each definition with its lines; a row with one number "
        "ends before the next row. Read a part "
        'with offset and limit, one definition with symbol="Order.total", or all of it with mode="full".)',
        '1\t"""Orders."""',
        "2\t",
        "3\timport os",
        "4\tfrom typing import Any",
        "9\t@dataclass",
        "10-17\tclass Order:",
        "13\t    def total(self) -> int:",
        "16\t    async def refresh(self):",
        "20\tdef place(order: Order) -> None:",
    ]


def test_python_from_the_standard_library() -> None:
    path = inspect.getsourcefile(textwrap)
    assert path is not None
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().split("\n")[:-1]
    made = outline(path, lines)
    names = [s.name for s in made.symbols if s.kind in ("class", "method", "function")]
    assert names[:3] == ["TextWrapper", "TextWrapper.__init__", "TextWrapper._munge_whitespace"]
    assert {"wrap", "fill", "shorten", "dedent", "indent", "TextWrapper.wrap"} <= set(names)
    dedent = find_symbol(made, "dedent", "textwrap.py")
    assert lines[dedent.first - 1].startswith("def dedent(")
    assert lines[dedent.last - 1].strip()  # ends on its last line of code


def test_javascript_functions_classes_and_namespace_objects() -> None:
    source = """'use strict';
// helpers
import { x } from './x.js';
class Cart extends Base {
  constructor(items) { this.items = items; }
  total() { return 0; }
}
export function checkout(cart) {
  return cart.total();
}
const double = (n) => n * 2;
window.Shop = {
  open: function() {},
  close() {},
};
"""
    assert _entries("shop.js", source) == [
        "1\t'use strict';",
        "2\t// helpers",
        "3\timport { x } from './x.js';",
        "4-7\tclass Cart extends Base {",
        "5\t  constructor(items) { this.items = items; }",
        "6\t  total() { return 0; }",
        "8\texport function checkout(cart) {",
        "11\tconst double = (n) => n * 2;",
        "12-15\twindow.Shop = {",
        "13\t  open: function() {},",
        "14\t  close() {},",
    ]


def test_typescript_interfaces_types_and_classes() -> None:
    source = """interface Shape {
  area(): number;
}
type Id = string;
export class Circle implements Shape {
  area(): number { return 3; }
}
enum Color { Red, Green }
"""
    assert _entries("shapes.ts", source) == [
        "1\tinterface Shape {",
        "4\ttype Id = string;",
        "5-7\texport class Circle implements Shape {",
        "6\t  area(): number { return 3; }",
        "8\tenum Color { Red, Green }",
    ]


def test_go_functions_methods_and_types() -> None:
    source = """package shop

import "fmt"

type Cart struct {
\tItems []string
}

func (c *Cart) Total() int {
\treturn len(c.Items)
}

func main() {
\tfmt.Println("hi")
}
"""
    assert _entries("shop.go", source) == [
        "1\tpackage shop",
        "2\t",
        '3\timport "fmt"',
        "5\ttype Cart struct {",
        "9\tfunc (c *Cart) Total() int {",
        "13\tfunc main() {",
    ]


def test_rust_items_and_impl_blocks() -> None:
    source = """use std::fmt;

pub struct Cart {
    items: Vec<String>,
}

impl Cart {
    pub fn total(&self) -> usize {
        self.items.len()
    }
}

fn main() {}
"""
    assert _entries("main.rs", source) == [
        "1\tuse std::fmt;",
        "3\tpub struct Cart {",
        "7-11\timpl Cart {",
        "8-10\t    pub fn total(&self) -> usize {",
        "13\tfn main() {}",
    ]


def test_java_classes_constructors_and_methods() -> None:
    source = """package shop;

import java.util.List;

public class Cart {
    private List<String> items;

    public Cart(List<String> items) {
        this.items = items;
    }

    public int total() {
        return items.size();
    }
}
"""
    assert _entries("Cart.java", source) == [
        "1\tpackage shop;",
        "2\t",
        "3\timport java.util.List;",
        "5-15\tpublic class Cart {",
        "8\t    public Cart(List<String> items) {",
        "12-14\t    public int total() {",
    ]


def test_c_and_cpp_functions_structs_classes() -> None:
    c_source = """#include <stdio.h>

struct point {
    int x, y;
};

static int add(int a, int b)
{
    return a + b;
}
"""
    assert _entries("add.c", c_source) == [
        "1\t#include <stdio.h>",
        "3\tstruct point {",
        "7\tstatic int add(int a, int b)",
    ]
    cpp_source = """#include <vector>

namespace shop {
class Cart {
 public:
  int total() const { return 0; }
};
int Cart::count() { return 1; }
}
"""
    assert _entries("cart.cpp", cpp_source) == [
        "1\t#include <vector>",
        "3-9\tnamespace shop {",
        "4-7\tclass Cart {",
        "6\t  int total() const { return 0; }",
        "8\tint Cart::count() { return 1; }",
    ]


def test_markdown_headings_nest_and_skip_code_fences() -> None:
    source = """# Guide

Intro.

## Install

```
# not a heading
```

Usage
-----

### Linux
"""
    made = outline("guide.md", source.split("\n")[:-1])
    assert [(s.name, s.first, s.last) for s in made.symbols] == [
        ("Guide", 1, 14),
        ("Guide > Install", 5, 10),
        ("Guide > Usage", 11, 14),
        ("Guide > Usage > Linux", 14, 14),
    ]
    assert _render("guide.md", source).split("\n")[0] == (
        "(Outline of a 14-line markdown file: each heading with its lines; a row with one number ends before the "
        "next row. Read a part with offset and limit, "
        'one heading with symbol="Guide > Install", or all of it with mode="full".)'
    )


def test_json_yaml_toml_top_level_keys() -> None:
    json_source = '{\n  "name": "x",\n  "deps": {\n    "a": 1\n  },\n  "tags": ["b"]\n}\n'
    assert _entries("package.json", json_source) == ['2\t  "name": "x",', '3\t  "deps": {', '6\t  "tags": ["b"]']
    yaml_source = "name: x\n# note\ndeps:\n  a: 1\n  b: 2\ntags: [b]\n"
    assert _entries("ci.yaml", yaml_source) == ["1\tname: x", "3\tdeps:", "6\ttags: [b]"]
    toml_source = 'title = "x"\n[tool.a]\nk = 1\n[[tool.b]]\nv = 2\n'
    assert _entries("pyproject.toml", toml_source) == ['1\ttitle = "x"', "2\t[tool.a]", "4\t[[tool.b]]"]


def test_a_log_gets_head_and_tail() -> None:
    source = "".join(f"2026-11-30 12:00:{i % 60:02d} INFO event {i}\n" for i in range(1, 101))
    rendered = _render("app.log", source).split("\n")
    assert rendered[0] == (
        "(Head and tail of a 100-line file: lines 1-20 and 81-100. Read any part with offset and limit, or all of "
        'it with mode="full".)'
    )
    assert rendered[20:23] == [
        "20\t2026-11-30 12:00:20 INFO event 20",
        "… lines 21-80 not shown …",
        "81\t2026-11-30 12:00:21 INFO event 81",
    ]


def test_find_symbol_exact_suffix_ambiguous_and_missing() -> None:
    made = outline("orders.py", PYTHON.split("\n")[:-1])
    assert find_symbol(made, "Order.total", "orders.py") == Symbol("Order.total", "method", 13, 14, 13, 1)
    assert find_symbol(made, "refresh", "orders.py").first == 16
    with pytest.raises(
        InvalidArgument, match=r"^orders.py has no definition named 'totl'. Did you mean Order.total\?$"
    ):
        find_symbol(made, "totl", "orders.py")
    twice = outline("two.py", ["class A:", "    def run(self): pass", "class B:", "    def run(self): pass"])
    with pytest.raises(
        InvalidArgument, match=r"names 2 definitions in two.py: A.run \(lines 2-2\), B.run \(lines 4-4\)"
    ):
        find_symbol(twice, "run", "two.py")


def _big_module(path: Path) -> list[str]:
    lines = ['"""Big module."""', "", "import os", ""]
    for k in range(1, 101):
        lines += [f"def helper_{k}(x):", f'    """Helper {k}."""', f"    return x + {k}", "", ""]
    lines += [
        "class Store:",
        "    def get(self, key):",
        "        return key",
        "",
        "    def put(self, key, value):",
        "        pass",
    ]
    path.write_text("\n".join(lines) + "\n")
    return lines


def test_whole_read_of_a_big_file_is_its_outline_and_symbol_reads_one_definition(tmp_path: Path) -> None:
    from leanread import MemoryLedger, Session

    lines = _big_module(tmp_path / "big.py")
    session = Session([tmp_path], ledger=MemoryLedger())
    result = session.read("big.py")
    assert result.metadata["mode"] == "outline"
    assert result.metadata["total_lines"] == len(lines) == 510
    body = result.text.split("\n")
    assert body[:4] == ["<path>big.py</path>", "<type>outline</type>", "<content>", body[3]]
    assert body[3].startswith("(Outline of a 510-line python file: its head, then each definition")
    assert "5\tdef helper_1(x):" in body
    assert "505-510\tclass Store:" in body and "509\t    def put(self, key, value):" in body
    assert result.metadata["tokens"] < 1500
    # the signature lines were shown whole: editing one needs no read
    assert not session.edit("big.py", "def helper_2(x):", "def helper_two(x):").is_error
    one = session.read("big.py", symbol="Store.get")
    assert one.text.split("\n")[3:5] == ["    def get(self, key):", "        return key"]
    assert session.read("big.py", symbol="nope").text.startswith("big.py has no definition named 'nope'.")
    full = session.read("big.py", mode="full")
    assert full.metadata["mode"] in ("full", "elided") and full.metadata["last_line"] == 510


OUTLINE_STUB = (
    "(Outline unchanged since you read it, still in your context. Read a part with offset and limit "
    "or symbol=NAME, or use fresh=true to see the outline again.)"
)


def test_an_outline_the_model_still_has_is_a_stub_until_it_changes_or_is_forgotten(tmp_path: Path) -> None:
    from leanread import MemoryLedger, Session

    _big_module(tmp_path / "big.py")
    session = Session([tmp_path], ledger=MemoryLedger())
    first = session.read("big.py")
    again = session.read("big.py")
    assert again.text == "\n".join(
        ["<path>big.py</path>", "<type>outline</type>", "<content>", OUTLINE_STUB, "</content>"]
    )
    assert again.metadata["mode"] == "stub" and again.metadata["unchanged_since"] == [first.metadata["call_id"]]
    assert session.read("big.py", fresh=True).text == first.text
    # a signature the outline showed changes: the outline is new, and shown whole
    assert not session.edit("big.py", "def helper_2(x):", "def helper_two(x):").is_error
    changed = session.read("big.py")
    assert changed.metadata["mode"] == "outline" and "10\tdef helper_two(x):" in changed.text.split("\n")
    assert session.read("big.py").metadata["mode"] == "stub"
    # once the outline has left the context window, it comes whole again
    session.forget([changed.metadata["call_id"]])
    assert session.read("big.py").text == changed.text


def test_each_page_of_a_long_outline_is_a_stub_while_the_model_has_it(tmp_path: Path) -> None:
    from leanread import MemoryLedger, Session

    (tmp_path / "pages.py").write_text(
        "".join(f"def function_number_{k}(x):\n    return x + {k}\n\n" for k in range(3000))
    )
    session = Session([tmp_path], ledger=MemoryLedger())
    first = session.read("pages.py")
    going_on = re.search(r"read on with offset=(\d+), mode=\"outline\"", first.text)
    assert going_on is not None
    second = session.read("pages.py", offset=int(going_on.group(1)), mode="outline")
    assert second.metadata["mode"] == "outline" and second.text != first.text
    assert session.read("pages.py").metadata["unchanged_since"] == [first.metadata["call_id"]]
    again = session.read("pages.py", offset=int(going_on.group(1)), mode="outline")
    assert again.metadata["unchanged_since"] == [second.metadata["call_id"]]


def test_cli_outline_stub_within_a_session_and_fresh_for_the_outline_again(tmp_path: Path) -> None:
    _big_module(tmp_path / "big.py")
    session = f"outline-{uuid.uuid4().hex}"
    first = leanread("read", "big.py", "--session", session, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    again = leanread("read", "big.py", "--session", session, cwd=tmp_path)
    assert again.stdout == "\n".join(
        ["<path>big.py</path>", "<type>outline</type>", "<content>", OUTLINE_STUB, "</content>\n"]
    )
    assert leanread("read", "big.py", "--session", session, "--fresh", cwd=tmp_path).stdout == first.stdout


def test_a_big_file_whose_outline_would_be_over_half_its_bytes_comes_whole(tmp_path: Path) -> None:
    from leanread import MemoryLedger, Session

    (tmp_path / "constants.py").write_text("".join(f"LIMIT_{k} = {k}\n" for k in range(1, 202)))
    session = Session([tmp_path], ledger=MemoryLedger())
    whole = session.read("constants.py")
    assert whole.metadata["mode"] == "full" and whole.metadata["last_line"] == 201
    assert session.read("constants.py", mode="outline").metadata["mode"] == "outline"


def test_an_outline_names_a_legacy_encoding_and_crlf_line_endings(tmp_path: Path) -> None:
    from leanread import MemoryLedger, Session

    lines = _big_module(tmp_path / "big.py")
    lines[0] = '"""Big module, café."""'
    (tmp_path / "big.py").write_bytes(("\r\n".join(lines) + "\r\n").encode("cp1252"))
    result = Session([tmp_path], ledger=MemoryLedger()).read("big.py")
    assert result.metadata["mode"] == "outline"
    assert result.text.split("\n")[4:6] == [
        "(File is cp1252-encoded with CRLF line endings; edits keep both.)",
        '1\t"""Big module, café."""',
    ]


def test_the_next_page_of_an_outline_starts_under_the_class_it_is_in(tmp_path: Path) -> None:
    from leanread import MemoryLedger, Session

    methods = "".join(f"    def method_number_{k}(self, x):\n        return x + {k}\n\n" for k in range(3000))
    (tmp_path / "wide.py").write_text(f"class Wide:\n{methods}")
    session = Session([tmp_path], ledger=MemoryLedger())
    first = session.read("wide.py").text.split("\n")[3:]
    assert first[1:4] == [
        "1\tclass Wide:",
        "",
        "(Nested definitions are left out to keep this short. To list a class's members, read on from "
        'inside it with mode="outline", e.g. offset=2 for Wide.)',
    ]
    def listed(first: int) -> str:  # the members from method_number_<first> on, 50 to a line
        return "    … " + ", ".join(f"method_number_{k} {3 * k + 2}" for k in range(first, first + 50)) + " …"

    members = session.read("wide.py", offset=2, mode="outline").text
    assert members.split("\n")[4:6] == ["1-9000\tclass Wide:", listed(0)]
    going_on = re.search(r"read on with offset=(\d+), mode=\"outline\"", members)
    assert going_on is not None
    rows = session.read("wide.py", offset=int(going_on.group(1)), mode="outline").text.split("\n")[4:6]
    k = (int(going_on.group(1)) - 2) // 3
    # the last page: no row after the class's, so its one number says it runs to the end
    assert k % 50 == 0 and rows == ["1\tclass Wide:", listed(k)]
    assert "read on with offset" not in session.read("wide.py", offset=int(going_on.group(1)), mode="outline").text


def test_following_the_page_notes_reaches_every_definition_even_under_deep_nesting(tmp_path: Path) -> None:
    from leanread import MemoryLedger, Session

    lines = [
        f"{'    ' * d}class Level{d}WithAVeryLongNameThatFillsTheOutlineRowsOfEveryPage{'_' * 40}:" for d in range(8)
    ]
    lines += [f"{'    ' * 8}def method_{k}(self):\n{'    ' * 9}return {k}" for k in range(120)]
    (tmp_path / "deep.py").write_text("\n".join(lines) + "\n")
    session = Session([tmp_path], ledger=MemoryLedger(), limits=Limits(max_bytes=1200))
    listed: set[str] = set()
    offset, pages = 9, 0
    while True:
        text = session.read("deep.py", offset=offset, mode="outline").text
        listed |= set(re.findall(r"\b(method_\d+)\b", text))  # rows or a list of members
        going_on = re.search(r"read on with offset=(\d+), mode=\"outline\"", text)
        pages += 1
        if going_on is None:
            break
        assert int(going_on.group(1)) > offset
        offset = int(going_on.group(1))
    assert listed == {f"method_{k}" for k in range(120)} and pages <= 120


def test_a_big_file_that_fits_one_read_comes_whole_when_its_map_would_hide_or_mislead(tmp_path: Path) -> None:
    from leanread import MemoryLedger, Session

    session = Session([tmp_path], ledger=MemoryLedger())
    body = "".join(f"    x_{k} = {k}\n" for k in range(300))
    (tmp_path / "test_one.py").write_text(f"import os\n\ndef test_everything():\n{body}")
    (tmp_path / "broken.py").write_text("".join(f"def f{k}(x):\n    return x\n\n" for k in range(100)) + "def g(:\n")
    (tmp_path / "site.css").write_text("".join(f".c{k} {{ color: red; }}\n" for k in range(260)))
    (tmp_path / "app.log").write_text("".join(f"2026-11-30 12:00:{k % 60:02d} event {k}\n" for k in range(260)))
    for name in ("test_one.py", "broken.py", "site.css"):
        assert session.read(name).metadata["mode"] == "full", name
    assert session.read("app.log").metadata["mode"] == "outline"
    forced = session.read("broken.py", mode="outline", fresh=True).text.split("\n")
    assert forced[4] == (
        "(Python cannot parse this file (line 301: invalid syntax); the rows are real lines, but a range may be off.)"
    )


def test_reads_of_python_that_does_not_parse_say_so(tmp_path: Path) -> None:
    from leanread import MemoryLedger, Session

    lines = _big_module(tmp_path / "big.py")
    lines[6] = "    return x +* 1"  # helper_1's body, broken mid-edit
    (tmp_path / "big.py").write_text("\n".join(lines) + "\n")
    session = Session([tmp_path], ledger=MemoryLedger())
    problem = "Python cannot parse this file (line 7: invalid syntax)"
    whole = session.read("big.py")
    assert whole.metadata["mode"] == "full" and whole.metadata["problem"] == problem
    assert whole.text.endswith(f"</content>\n({problem}.)")
    one = session.read("big.py", symbol="helper_2")
    assert one.metadata["problem"] == problem
    assert one.text.endswith(f"</content>\n({problem}; this definition's range may be off.)")
    missing = session.read("big.py", symbol="Store.gett")
    assert missing.is_error and missing.text.endswith(
        f"({problem}, so the map may miss it; read the lines with offset and limit.)"
    )


def test_an_outline_row_shows_at_most_240_characters_and_a_cut_row_is_not_seen(tmp_path: Path) -> None:
    from leanread import MemoryLedger, Session

    long_value = "x" * 500
    lines = _big_module(tmp_path / "big.py")
    lines[2] = f"import os  # {long_value}"
    (tmp_path / "big.py").write_text("\n".join(lines) + "\n")
    session = Session([tmp_path], ledger=MemoryLedger())
    rows = session.read("big.py").text.split("\n")
    assert rows[6] == f"3\timport os  # {'x' * 227}… [line cut: 513 chars in all]"
    assert session.edit("big.py", "import os  #", "import sys  #").is_error


def test_an_outline_page_past_the_end_is_refused(tmp_path: Path) -> None:
    from leanread import MemoryLedger, Session

    _big_module(tmp_path / "big.py")
    result = Session([tmp_path], ledger=MemoryLedger()).read("big.py", offset=600, mode="outline")
    assert result.is_error
    assert result.text == "offset=600 is past the end of big.py, which has 510 lines; use an offset from 1 to 510."


def test_a_run_of_imports_is_one_line_and_a_head_over_forty_lines_says_where_it_ends() -> None:
    source = "".join(f"import module_{k}\n" for k in range(60)) + "\ndef f():\n    pass\n"
    assert _entries("many.py", source) == [
        "… lines 1-60: imports, left out; read them with offset=1, limit=60 …",
        "62\tdef f():",
    ]
    # runs of three imports are shown (a line that says so costs as much), up to 40 lines in all
    runs = "".join(f"import a_{k}\nimport b_{k}\nimport c_{k}\nX_{k} = {k}\n" for k in range(15))
    entries = _entries("runs.py", runs + "\ndef f():\n    pass\n")
    assert entries[:4] == ["1\timport a_0", "2\timport b_0", "3\timport c_0", "4\tX_0 = 0"]
    assert entries[-5:] == [
        "53\timport a_13",
        "… lines 54-59: more imports, left out; read them with offset=54, limit=6 …",
        "56\tX_13 = 13",
        "60\tX_14 = 14",
        "62\tdef f():",
    ]


def test_cpp_attributes_return_types_and_names_split_over_lines() -> None:
    source = """namespace app {
struct Widget {
    [[nodiscard]]
    inline int
    get() const {
        return 1;
    }
};
}
int app::Widget::
compute(int x) {
    return x;
}
"""
    assert _entries("w.cpp", source) == [
        "1-9\tnamespace app {",
        "2-8\tstruct Widget {",
        "3\t    [[nodiscard]]",
        "4\t    inline int",
        "5-7\t    get() const {",
        "10\tint app::Widget::",
    ]
    made = outline("w.cpp", source.split("\n")[:-1])
    assert [s.name for s in made.symbols] == ["app", "app.Widget", "app.Widget.get", "app::Widget::compute"]


def test_names_below_their_modifiers_one_line_types_default_exports_and_generic_receivers() -> None:
    java = """class A {
    interface I { void f(); }
    public <T> List<T>
    list(T t) { return null; }
}
"""
    assert _entries("A.java", java) == [
        "1-5\tclass A {",
        "2\t    interface I { void f(); }",
        "3\t    public <T> List<T>",
        "4\t    list(T t) { return null; }",
    ]
    assert _entries("a.rs", "pub\nfn spread() {\n}\n") == ["1\tpub", "2\tfn spread() {"]
    ts = """export default class {
  run() {}
}
abstract class B {
  abstract doIt(): number;
}
"""
    assert [s.name for s in outline("a.ts", ts.split("\n")[:-1]).symbols] == ["default", "default.run", "B", "B.doIt"]
    go = "package p\n\ntype Stack[T any] struct{ items []T }\n\nfunc (s *Stack[T]) Push(v T) {\n}\n"
    made = outline("a.go", go.split("\n")[:-1])
    assert find_symbol(made, "Stack.Push", "a.go").first == 5


def test_a_window_that_showed_every_outline_line_does_not_stand_for_the_outline(tmp_path: Path) -> None:
    from leanread import MemoryLedger, Session

    _big_module(tmp_path / "big.py")
    session = Session([tmp_path], ledger=MemoryLedger())
    assert session.read("big.py", mode="full").metadata["last_line"] == 510
    assert session.read("big.py").metadata["mode"] == "outline"


def test_read_mode_full_in_the_settings_turns_outlines_off(tmp_path: Path) -> None:
    from leanread import MemoryLedger, Session

    _big_module(tmp_path / "big.py")
    (tmp_path / "leanread.toml").write_text('read_mode = "full"\n')
    session = Session([tmp_path], ledger=MemoryLedger())
    assert session.read("big.py").metadata["mode"] == "full"
    assert session.read("big.py", mode="outline", fresh=True).metadata["mode"] == "outline"


def test_python_definitions_under_if_try_and_with_are_listed() -> None:
    source = """import sys

if sys.version_info >= (3, 8):
    def modern():
        pass
else:
    def modern():
        pass

try:
    from fast import loads
except ImportError:
    def loads(text):
        return text

class Store:
    @property
    def size(self):
        return 1

    @size.setter
    def size(self, value):
        pass
"""
    made = outline("compat.py", source.split("\n")[:-1])
    assert [(s.name, s.first, s.last) for s in made.symbols] == [
        ("modern", 4, 5),
        ("modern", 7, 8),
        ("loads", 13, 14),
        ("Store", 16, 23),
        ("Store.size", 17, 19),
        ("Store.size", 21, 23),
    ]
    # a getter and its setter are read together, as are the two branches' definitions side by side
    assert find_symbol(made, "Store.size", "compat.py") == Symbol("Store.size", "method", 17, 23, 18, 1, (17,))
    assert (find_symbol(made, "modern", "compat.py").first, find_symbol(made, "modern", "compat.py").last) == (4, 8)


def test_one_name_defined_apart_is_not_read_as_one_span() -> None:
    source = """static int check(int n);

static int helper(void) { return 0; }

static int check(int n)
{
    return n;
}
"""
    made = outline("check.c", source.split("\n")[:-1])
    with pytest.raises(InvalidArgument) as refused:
        find_symbol(made, "check", "check.c")
    assert str(refused.value) == (
        "symbol='check' names 2 definitions in check.c: check (lines 1-1), check (lines 5-8); "
        "read one with offset and limit."
    )


def test_python_that_ast_cannot_parse_is_outlined_by_tree_sitter() -> None:
    source = """\"\"\"Old module.\"\"\"
import os

class A(object):
    @property
    def x(self):
        return 1

    def y(self):
        print "py2"

def f(:
    pass

try:
    import json
except ImportError:
    def loads(text):
        return text
"""
    assert _entries("old.py", source) == [
        "(Python cannot parse this file (line 10: Missing parentheses in call to 'print'. Did you mean print(...)?); "
        "the rows are real lines, but a range may be off.)",
        '1\t"""Old module."""',
        "2\timport os",
        "4-10\tclass A(object):",
        "5\t    @property",
        "6\t    def x(self):",
        "9\t    def y(self):",
        "12\tdef f(:",
        "15\ttry:",
        "16\t    import json",
        "17\texcept ImportError:",
        "18\t    def loads(text):",
    ]
    made = outline("old.py", source.split("\n")[:-1])
    assert [(s.name, s.kind, s.depth) for s in made.symbols][:3] == [
        ("A", "class", 0),
        ("A.x", "method", 1),
        ("A.y", "method", 1),
    ]
    assert (find_symbol(made, "A.x", "old.py").first, find_symbol(made, "A.x", "old.py").last) == (5, 7)


def test_c_functions_are_named_by_their_declarator_inside_guards_and_extern_c() -> None:
    source = """#ifndef LIST_H
#define LIST_H
#ifdef __cplusplus
extern "C" {
#endif

struct node {
    int value;
};

static inline int
list_push(struct node *n, int v)
{
    return v;
}

#ifdef __cplusplus
}
#endif
#endif
"""
    assert _entries("list.h", source) == [  # no includes: no head
        "7\tstruct node {",
        "11\tstatic inline int",
        "12-15\tlist_push(struct node *n, int v)",
    ]
    made = outline("list.h", source.split("\n")[:-1])
    assert find_symbol(made, "list_push", "list.h").first == 11


def test_a_capped_outline_goes_on_as_an_outline(tmp_path: Path) -> None:
    from leanread import Limits, MemoryLedger, Session

    _big_module(tmp_path / "big.py")
    session = Session([tmp_path], ledger=MemoryLedger(), limits=Limits(max_bytes=2048))
    first = session.read("big.py")
    note = first.text.split("\n")[-2]
    assert note.startswith("(") and 'mode="outline".)' in note
    offset = int(note.split("read on with offset=")[1].split(",")[0])
    more = session.read("big.py", offset=offset, mode="outline")
    assert more.metadata["mode"] == "outline"
    assert more.text.split("\n")[4].startswith(f"{offset}\t")


def test_go_methods_carry_their_receiver_and_rust_impls_their_trait() -> None:
    go = """package shop

func (s *Server) ServeHTTP(w int) {
}

func (c Config) String() string {
\treturn ""
}
"""
    made = outline("shop.go", go.split("\n")[:-1])
    assert [s.name for s in made.symbols] == ["Server.ServeHTTP", "Config.String"]
    assert find_symbol(made, "ServeHTTP", "shop.go").first == 3
    rust = """struct Config {}

impl Config {
    fn new() -> Self { Config {} }
}

impl Runner for Config {
    fn run(&self) {}
}
"""
    made = outline("lib.rs", rust.split("\n")[:-1])
    assert [s.name for s in made.symbols] == [
        "Config",
        "impl Config",
        "Config.new",
        "impl Runner for Config",
        "Config.run",
    ]
    assert find_symbol(made, "impl Runner for Config", "lib.rs").first == 7


def test_ranges_take_in_decorators_attributes_doc_comments_and_templates() -> None:
    rust = """/// A config.
#[derive(Debug)]
struct Config {}
"""
    assert [(s.name, s.first, s.last) for s in outline("c.rs", rust.split("\n")[:-1]).symbols] == [("Config", 1, 3)]
    cpp = """template <typename T>
T twice(T x) { return x + x; }
"""
    assert [(s.first, s.last) for s in outline("t.cpp", cpp.split("\n")[:-1]).symbols] == [(1, 2)]
    iife = """(function (root) {
  function helper(a) {
    return a;
  }
  root.api = { get: function (k) { return k; } };
})(this);
"""
    assert [s.name for s in outline("lib.js", iife.split("\n")[:-1]).symbols] == ["helper", "root.api", "root.api.get"]


def _real_files() -> list[str]:
    """Real files nobody here wrote: the standard library, numpy's C headers, matplotlib's JS."""
    import glob
    import os

    import matplotlib
    import numpy

    found = [inspect.getsourcefile(textwrap) or "", inspect.getsourcefile(inspect) or ""]
    found += sorted(glob.glob(os.path.join(numpy.get_include(), "numpy", "*.h")))[:12]
    found += sorted(
        glob.glob(os.path.join(os.path.dirname(matplotlib.__file__), "backends", "web_backend", "js", "*.js"))
    )
    return [f for f in found if f]


@pytest.mark.parametrize("path", _real_files())
def test_outlines_of_real_files_hold_together(path: str) -> None:
    with open(path, encoding="utf-8", errors="replace") as handle:
        lines = handle.read().split("\n")
    if lines[-1] == "":
        lines.pop()
    made = outline(path, lines)
    for s in made.symbols:
        assert 1 <= s.first <= s.line <= s.last <= len(lines), s
        if made.language in ("python", "javascript", "c"):
            last_part = s.name.rsplit(".", 1)[-1]
            assert last_part in lines[s.line - 1] or last_part in "".join(lines[s.first - 1 : s.last]), s
    assert [s.line for s in made.symbols] == sorted(s.line for s in made.symbols) or made.language == "javascript"
    if made.language == "python":  # every top-level definition ast sees is there, at its line
        import ast

        tree = ast.parse("\n".join(lines))
        tops = {n.lineno for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef)}
        assert tops <= {s.line for s in made.symbols if s.depth == 0}


def test_real_files_of_each_language_give_definitions() -> None:
    counts: dict[str, int] = {}
    for path in _real_files():
        with open(path, encoding="utf-8", errors="replace") as handle:
            made = outline(path, handle.read().split("\n"))
        counts[made.language] = counts.get(made.language, 0) + len(made.symbols)
    assert counts["python"] > 100 and counts["c"] > 20 and counts["javascript"] > 20, counts


def test_go_const_var_and_type_declarations_single_and_grouped() -> None:
    source = """package shop

// Max is the limit.
const Max = 10

const (
\tA = iota
\tB
)

var (
\tcache = map[string]int{}
\tmu    sync.Mutex
)

var Version = "1.0"

type (
\tId   int
\tName string
)
"""
    assert _entries("shop.go", source) == [
        "1\tpackage shop",
        "6\tconst (",
        "11-14\tvar (",
        "12\t\tcache = map[string]int{}",
        "18-21\ttype (",
        "19\t\tId   int",
        "20\t\tName string",
    ]
    made = outline("shop.go", source.split("\n")[:-1])
    assert [(s.name, s.kind, s.depth) for s in made.symbols][:4] == [
        ("Max", "constant", 0),
        ("const (A, …)", "constant", 0),
        ("A", "constant", 1),
        ("B", "constant", 1),
    ]
    assert (find_symbol(made, "mu", "shop.go").first, find_symbol(made, "mu", "shop.go").last) == (13, 13)
    assert find_symbol(made, "const (A, …)", "shop.go").last == 9


def test_rust_const_static_type_union_and_macros_at_module_level_only() -> None:
    source = """pub const MAX: usize = 10;
static NAME: &str = "x";
pub type Result<T> = std::result::Result<T, Error>;

macro_rules! square {
    ($x:expr) => { $x * $x };
}

union U { a: u32, b: f32 }

impl Config {
    const N: usize = 3;
    type T = u8;
}
"""
    made = outline("lib.rs", source.split("\n")[:-1])
    assert [(s.name, s.kind, s.first, s.last) for s in made.symbols] == [
        ("MAX", "constant", 1, 1),
        ("NAME", "static", 2, 2),
        ("Result", "type", 3, 3),
        ("square", "macro", 5, 7),
        ("U", "union", 9, 9),
        ("impl Config", "impl", 11, 14),
    ]


def test_c_macros_typedefs_unions_globals_and_prototypes() -> None:
    source = """#ifndef SHOP_H
#define SHOP_H
#include <stdio.h>
#define MAX 10
#define SQUARE(x) ((x) * (x))
#define LONG_MACRO(a, b) \\
    do { a; b; } while (0)

typedef unsigned int uint;
typedef struct {
    int x, y;
} point_t;
typedef int (*callback)(int);
union value { int i; float f; };
struct forward;
static const int table[] = {1, 2, 3};
int proto(int a);
#endif
"""
    assert _entries("shop.h", source) == [
        "1\t#ifndef SHOP_H",
        "3\t#include <stdio.h>",
        "5\t#define SQUARE(x) ((x) * (x))",
        "6\t#define LONG_MACRO(a, b) \\",
        "9\ttypedef unsigned int uint;",
        "10\ttypedef struct {",
        "12\t} point_t;",
        "13\ttypedef int (*callback)(int);",
        "14\tunion value { int i; float f; };",
        "16\tstatic const int table[] = {1, 2, 3};",
        "17\tint proto(int a);",
    ]
    made = outline("shop.h", source.split("\n")[:-1])
    assert [s.name for s in made.symbols] == [
        "MAX", "SQUARE", "LONG_MACRO", "uint", "point_t", "callback", "value", "table", "proto"
    ]  # fmt: skip
    assert (find_symbol(made, "LONG_MACRO", "shop.h").first, find_symbol(made, "LONG_MACRO", "shop.h").last) == (6, 7)


def test_cpp_aliases_headers_with_guards_and_members_left_out() -> None:
    source = """#ifndef CART_HPP
#define CART_HPP
using Id = int;
class Cart {
  static const int limit = 3;
  int total() const { return 0; }
};
#endif
"""
    made = outline("cart.hpp", source.split("\n")[:-1])
    assert [(s.name, s.line) for s in made.symbols] == [("Id", 3), ("Cart", 4), ("Cart.total", 6)]


def test_decorators_attributes_and_annotations_are_rows_above_the_signature() -> None:
    java = """class A {
    /** Doc. */
    @Override
    public String toString() { return ""; }
}
"""
    assert _entries("A.java", java) == [
        "1-5\tclass A {",
        "3\t    @Override",
        '4\t    public String toString() { return ""; }',
    ]
    rust = """#[derive(Debug)]
pub struct S;
"""
    assert _entries("s.rs", rust) == ["1\t#[derive(Debug)]", "2\tpub struct S;"]
    ts = """@Component({selector: 'x'})
export class C {
  @HostListener('click')
  onClick() {}
}
"""
    assert _entries("c.ts", ts) == [
        "1\t@Component({selector: 'x'})",
        "2-5\texport class C {",
        "3\t  @HostListener('click')",
        "4\t  onClick() {}",
    ]
    cpp = """template <typename T>
T twice(T x) { return x + x; }
"""
    assert _entries("t.cpp", cpp) == ["1\ttemplate <typename T>", "2\tT twice(T x) { return x + x; }"]


def test_symbol_reads_of_a_go_const_a_go_group_and_a_c_macro(tmp_path: Path) -> None:
    from leanread import MemoryLedger, Session

    go = ["package shop", "", "const (", "\tA = iota", "\tB", ")", ""]
    go += [f"func f{k}() {{\n\treturn\n}}\n" for k in range(150)]
    (tmp_path / "shop.go").write_text("\n".join(go))
    c = ["#include <stdio.h>", "#define SQUARE(x) \\", "    ((x) * (x))", ""]
    c += [f"int f{k}(void) {{\n    return {k};\n}}\n" for k in range(150)]
    (tmp_path / "sq.c").write_text("\n".join(c))
    session = Session([tmp_path], ledger=MemoryLedger())
    assert "3\tconst (" in session.read("shop.go", mode="outline").text.split("\n")
    one = session.read("shop.go", symbol="B")
    assert one.text.split("\n")[3] == "\tB" and one.metadata["last_line"] == 5
    group = session.read("shop.go", symbol="const (A, …)")
    assert group.text.split("\n")[3:7] == ["const (", "\tA = iota", "\tB", ")"]
    macro = session.read("sq.c", symbol="SQUARE")
    assert macro.text.split("\n")[3:5] == ["#define SQUARE(x) \\", "    ((x) * (x))"]


def test_symbol_reads_on_real_files() -> None:
    fixtures = Path(__file__).parent / "fixtures" / "outline"

    def lines_of(name: str) -> list[str]:
        return (fixtures / name).read_text(encoding="utf-8").split("\n")[:-1]

    go = lines_of("main.go")
    made = outline("main.go", go)
    found = find_symbol(made, "defaultPollUpdateInterval", "main.go")
    assert go[found.first - 1 : found.last] == ["\tdefaultPollUpdateInterval = 15 * time.Minute"]
    group = find_symbol(made, "const (defaultMaxIdleDuration, …)", "main.go")
    assert (go[group.first - 1], go[group.last - 1]) == ("const (", ")")
    header = lines_of("datetime.h")
    made = outline("datetime.h", header)
    found = find_symbol(made, "PyDateTime_IMPORT", "datetime.h")
    assert header[found.first - 1 : found.last] == [
        "#define PyDateTime_IMPORT \\",
        "    PyDateTimeAPI = (PyDateTime_CAPI *)PyCapsule_Import(PyDateTime_CAPSULE_NAME, 0)",
    ]
    delta = find_symbol(made, "PyDateTime_Delta", "datetime.h")
    assert header[delta.line - 1] == "} PyDateTime_Delta;" and delta.marks == (34,)
    python = lines_of("direct_url.py.txt")
    found = find_symbol(outline("direct_url.py", python), "DirInfo", "direct_url.py")
    assert python[found.first - 1] == "@dict_state_pickle_compat" and found.marks == (220, 221)
