"""What the symbol extractors read from one file: definitions (qualified names, kinds, lines,
signatures, scope), bindings (imports, aliases, re-exports) and uses (with receivers)."""

from __future__ import annotations

import keyword
import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st

from leanread.symbols import generic, python, script
from leanread.symbols.facts import Binding, Definition, Use
from leanread.symbols.scan import receiver_before


def _src(text: str) -> bytes:
    return textwrap.dedent(text).lstrip("\n").encode()


PY = _src(
    '''
    """Doc."""
    from __future__ import annotations
    import os.path
    import numpy as np
    from . import sibling
    from ..base import Base as B, other
    from .star import *

    __all__ = ["Store", "make"]
    LIMIT: int = 10

    @decorate
    class Store(B):
        kind = "store"

        def get(self, key):
            def inner():
                return key
            return self.items.get(key)

        class Meta:
            ordering = ["id"]

    if TYPE_CHECKING:
        def make() -> Store: ...
    else:
        def make():
            return Store()
    '''
)


def test_python_definitions_are_qualified_with_lines_signatures_and_scope() -> None:
    facts = python.extract(PY)
    assert facts.definitions == [
        Definition("LIMIT", "variable", 10, 10, 10, "LIMIT: int = 10", "module"),
        Definition("Store", "class", 12, 22, 13, "class Store(B):", "module", ("B",)),
        Definition("Store.kind", "variable", 14, 14, 14, 'kind = "store"', "member"),
        Definition("Store.get", "method", 16, 19, 16, "def get(self, key):", "member"),
        Definition("Store.get.inner", "function", 17, 18, 17, "def inner():", "local"),
        Definition("Store.Meta", "class", 21, 22, 21, "class Meta:", "member"),
        Definition("Store.Meta.ordering", "variable", 22, 22, 22, 'ordering = ["id"]', "member"),
        Definition("make", "function", 25, 25, 25, "def make() -> Store: ...", "module"),
        Definition("make", "function", 27, 28, 27, "def make():", "module"),
    ]
    assert facts.exports == ["Store", "make"]
    assert facts.problem == ""


def test_python_bindings_keep_aliases_relative_modules_and_star_imports() -> None:
    assert python.extract(PY).bindings == [
        Binding("os.path", "module", "os.path", "", 3),
        Binding("np", "module", "numpy", "", 4),
        Binding("sibling", "import", ".", "sibling", 5),
        Binding("B", "import", "..base", "Base", 6),
        Binding("other", "import", "..base", "other", 6),
        Binding("*", "star", ".star", "", 7),
    ]


def test_python_uses_are_attributes_and_bound_names_not_strings_locals_or_keywords() -> None:
    source = _src(
        """
        from m import Store, get
        def run(store, key="Store"):
            get(store)  # Store in a comment
            local = 1
            Store.get(store, key=local)
            return store.items[0].get(get=1)
        """
    )
    assert python.extract(source).uses == [
        Use("get", 3, 4),
        Use("Store", 5, 4),
        Use("get", 5, 10, "Store"),
        Use("items", 6, 17, "store"),
        Use("get", 6, 26, "?"),
    ]


def test_a_python_file_with_a_syntax_error_still_gives_its_definitions() -> None:
    facts = python.extract(_src("class A:\n    def ok(self):\n        pass\n\ndef broken(:\n    pass\n"))
    assert [d.name for d in facts.definitions][:2] == ["A", "A.ok"]
    assert facts.problem == "syntax errors (parsed around them)"


TS = _src(
    """
    import D, { a as b, c } from "./x";
    import * as ns from "../y";
    import q = require("z");
    const { k, l: m } = require("./r");
    export { a as e } from "./w";
    export * from "./v";
    export * as nn from "./u";
    export class Store<T> extends Base {
      items: T[] = [];
      get(key: string): T { return this.items[0]; }
    }
    export interface Shape { area(): number; name: string }
    export type Id = string;
    export enum Color { Red }
    export const make = () => new Store();
    const api = { get() {}, put: () => 1 };
    namespace N { export function inner() {} }
    export { api as client };
    export default Store;
    b(); c.go(); ns.run(); let s: ns.Type = D;
    """
)


def test_typescript_definitions_cover_classes_members_interfaces_and_namespaces() -> None:
    names = [(d.name, d.kind, d.line, d.scope) for d in script.extract(TS, "typescript").definitions]
    assert names == [
        ("Store", "class", 8, "module"),
        ("Store.items", "property", 9, "member"),
        ("Store.get", "method", 10, "member"),
        ("Shape", "interface", 12, "module"),
        ("Shape.area", "signature", 12, "member"),
        ("Shape.name", "property", 12, "member"),
        ("Id", "type", 13, "module"),
        ("Color", "enum", 14, "module"),
        ("Color.Red", "constant", 14, "member"),
        ("make", "function", 15, "module"),
        ("api", "variable", 16, "module"),
        ("api.get", "method", 16, "member"),
        ("api.put", "method", 16, "member"),
        ("N", "namespace", 17, "module"),
        ("N.inner", "function", 17, "member"),
        ("s", "variable", 20, "module"),
    ]


def test_typescript_bindings_follow_every_import_and_export_form() -> None:
    assert script.extract(TS, "typescript").bindings == [
        Binding("D", "import", "./x", "default", 1),
        Binding("b", "import", "./x", "a", 1),
        Binding("c", "import", "./x", "c", 1),
        Binding("ns", "module", "../y", "", 2),
        Binding("q", "module", "z", "", 3),
        Binding("k", "import", "./r", "k", 4),
        Binding("m", "import", "./r", "l", 4),
        Binding("e", "reexport", "./w", "a", 5),
        Binding("*", "star", "./v", "", 6),
        Binding("nn", "reexport", "./u", "*", 7),
        Binding("client", "export", "", "api", 18),
        Binding("default", "export", "", "Store", 19),
    ]


def test_typescript_uses_are_properties_and_bound_names() -> None:
    uses = script.extract(TS, "typescript").uses
    assert [u for u in uses if u.line >= 18] == [
        Use("api", 18, 9),
        Use("Store", 19, 15),
        Use("b", 20, 0),
        Use("c", 20, 5),
        Use("go", 20, 7, "c"),
        Use("ns", 20, 13),
        Use("run", 20, 16, "ns"),
        Use("ns", 20, 30),
        Use("Type", 20, 33, "ns"),
        Use("D", 20, 40),
    ]


def test_commonjs_exports_and_prototype_methods_are_definitions() -> None:
    source = _src(
        """
        function Store() {}
        Store.prototype.get = function (key) { return key; };
        module.exports.make = function () { return new Store(); };
        exports.LIMIT = 3;
        """
    )
    names = [(d.name, d.kind, d.line) for d in script.extract(source, "javascript").definitions]
    assert names == [
        ("Store", "function", 1),
        ("Store.get", "method", 2),
        ("make", "function", 3),
        ("LIMIT", "variable", 4),
    ]


def test_go_rust_java_c_and_cpp_definitions_with_name_only_uses() -> None:
    go = _src(
        """
        package main
        type Store struct{ items map[string]int }
        func (s *Store) Get(k string) int { return s.items[k] }
        func main() { s := &Store{}; s.Get("a") }
        """
    )
    facts = generic.extract(go, "go")
    assert [(d.name, d.line, d.scope) for d in facts.definitions] == [
        ("Store", 2, "module"),
        ("Store.Get", 3, "member"),
        ("main", 4, "module"),
    ]
    assert Use("Get", 4, 31, "s") in facts.uses and Use("Store", 4, 20) in facts.uses
    samples = {
        "rust": (b"struct Config;\nimpl Config {\n    fn new() -> Self { Config }\n}\n", ["Config", "Config.new"]),
        "java": (b"class Store {\n  int get(int k) { return k; }\n}\n", ["Store", "Store.get"]),
        "c": (b"struct node { int v; };\nint get(struct node *n) { return n->v; }\n", ["node", "get"]),
        "cpp": (
            b"namespace app {\nclass Widget {\n public:\n  void draw() {}\n};\n}\n",
            ["app", "app.Widget", "app.Widget.draw"],
        ),
    }
    for language, (source, names) in samples.items():
        assert [d.name for d in generic.extract(source, language).definitions] == names, language


def test_receiver_is_read_backwards_from_the_attribute() -> None:
    cases = {
        b"self.get": "self",
        b"a.b.c": "a.b",
        b"f().get": "?",
        b"x[1].get": "?",
        b"get": "",
        b"obj .\n    get": "obj",
        b"(a).get": "?",
    }
    for source, receiver in cases.items():
        assert receiver_before(source, source.rfind(b"get")) == receiver, source


_NAMES = st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True).filter(lambda n: not keyword.iskeyword(n))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.from_regex(r"[A-Z][a-z]{1,6}", fullmatch=True),
            st.lists(_NAMES, max_size=4, unique=True),
        ),
        min_size=1,
        max_size=5,
        unique_by=lambda c: c[0],
    )
)
def test_every_generated_class_and_method_is_found_at_its_line(classes: list[tuple[str, list[str]]]) -> None:
    lines: list[str] = []
    expected: list[tuple[str, int]] = []
    for name, methods in classes:
        expected.append((name, len(lines) + 1))
        lines.append(f"class {name}:")
        for method in methods:
            expected.append((f"{name}.{method}", len(lines) + 1))
            lines.append(f"    def {method}(self):\n        return 1")
            lines.append("")
        lines.append("    pass")
    source = "\n".join(lines).encode()
    found = [(d.name, d.line) for d in python.extract(source).definitions]
    renumbered = []
    row = 1
    for text in "\n".join(lines).split("\n"):
        stripped = text.strip()
        if stripped.startswith(("class ", "def ")):
            renumbered.append(row)
        row += 1
    assert [n for n, _ in found] == [n for n, _ in expected]
    assert [line for _, line in found] == renumbered
