"""The symbol index of a workspace on disk: definitions found across files (aliases, re-exports,
module paths), uses labelled by how sure they are, and the index kept true from file stats and
hashes, with ignore rules and the deny list honoured."""

from __future__ import annotations

import os
import textwrap
import time
from pathlib import Path

import pytest

from leanread.config.policy import Policy
from leanread.symbols.find import definitions, references
from leanread.symbols.render import definitions_rows, references_rows
from leanread.symbols.store import MAX_FILE_BYTES, SymbolStore


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


PROJECT = {
    "pkg/__init__.py": """
        from .store import Store as Store
        from .sub import *
        """,
    "pkg/store.py": """
        class Store:
            def get(self, key):
                return self.items[key]

            def put(self, key, value):
                self.get(key)
        """,
    "pkg/sub/__init__.py": """
        from .tools import helper, _hidden
        __all__ = ["helper"]
        """,
    "pkg/sub/tools.py": """
        def helper():
            return 1

        def _hidden():
            return 2
        """,
    "app.py": """
        from pkg import Store as S, helper
        import pkg.store
        import pkg as p

        def main():
            s = S()
            s.get(1)
            S.get(s, 2)
            pkg.store.Store().put(1, 2)
            p.Store.get(None, 1)
            helper()
        """,
    "tests/test_store.py": """
        class Store:
            def get(self):
                return None
        """,
    "web/store.ts": """
        export class Store<T> {
          get(key: string): T | undefined { return undefined; }
        }
        export function make(): Store<number> { return new Store(); }
        """,
    "web/index.ts": """
        export { Store as Box, make } from "./store.js";
        export * from "./extra";
        """,
    "web/extra.ts": """
        export const LIMIT = 3;
        """,
    "web/app.ts": """
        import { Box, make } from "./index";
        import * as store from "./store";
        const b: Box<number> = make();
        b.get("a");
        store.make();
        new Box();
        """,
}


@pytest.fixture
def store(tmp_path: Path) -> SymbolStore:
    root = tmp_path / "root"
    _write(root, PROJECT)
    made = SymbolStore(str(root), path=tmp_path / "index.sqlite3")
    made.refresh()
    return made


def _defs(store: SymbolStore, query: str) -> list[tuple[str, str, int, str]]:
    return [(f.path, f.definition.name, f.definition.line, f.via) for f in definitions(store, query)]


def _refs(store: SymbolStore, query: str) -> list[tuple[str, int, str, str]]:
    return [(r.path, r.line, r.label, r.enclosing) for r in references(store, query).found]


def test_a_qualified_name_finds_its_definition_and_ranks_tests_last(store: SymbolStore) -> None:
    assert _defs(store, "Store.get") == [
        ("pkg/store.py", "Store.get", 2, ""),
        ("web/store.ts", "Store.get", 2, ""),
        ("tests/test_store.py", "Store.get", 2, ""),
    ]
    assert _defs(store, "helper") == [("pkg/sub/tools.py", "helper", 1, "")]
    assert _defs(store, "missing") == []


def test_aliases_module_paths_and_reexports_are_followed(store: SymbolStore) -> None:
    assert _defs(store, "S") == [("pkg/store.py", "Store", 1, "alias S")]
    assert _defs(store, "S.put") == [("pkg/store.py", "Store.put", 5, "alias S")]
    assert _defs(store, "pkg.Store.get") == [("pkg/store.py", "Store.get", 2, "module")]
    assert _defs(store, "pkg.helper") == [("pkg/sub/tools.py", "helper", 1, "module")]
    # a star import brings only what __all__ lists: _hidden is found by its name alone
    assert _defs(store, "pkg._hidden") == [("pkg/sub/tools.py", "_hidden", 4, "by name only")]
    assert _defs(store, "Box") == [("web/store.ts", "Store", 1, "alias Box")]
    assert _defs(store, "Box.get") == [("web/store.ts", "Store.get", 2, "alias Box")]


def test_uses_are_labelled_by_how_they_were_resolved(store: SymbolStore) -> None:
    assert _refs(store, "pkg.Store.get") == [
        ("app.py", 7, "name-only", "main"),
        ("app.py", 8, "import-resolved", "main"),
        ("app.py", 10, "import-resolved", "main"),
        ("pkg/store.py", 6, "same-file", "Store.put"),
    ]
    assert _refs(store, "Box.get") == [("web/app.ts", 4, "name-only", "")]  # b is a variable: its type is unknown
    assert _refs(store, "helper") == [
        ("app.py", 1, "import-resolved", ""),
        ("app.py", 11, "import-resolved", "main"),
        ("pkg/sub/__init__.py", 1, "import-resolved", ""),
    ]
    assert _refs(store, "make") == [
        ("web/app.ts", 1, "import-resolved", ""),
        ("web/app.ts", 3, "import-resolved", "b"),
        ("web/app.ts", 5, "import-resolved", ""),
        ("web/index.ts", 1, "import-resolved", ""),
    ]


def test_the_list_of_several_definitions_gives_each_its_read_call(store: SymbolStore) -> None:
    text = "\n".join(definitions_rows("Store.get", definitions(store, "Store.get"), lambda p: p))
    assert text == (
        "3 definitions of Store.get, likeliest first:\n"
        "pkg/store.py:2-3 (in Store): def get(self, key):\n"
        '  read(path="pkg/store.py", offset=2, limit=2)\n'
        "web/store.ts:2 (in Store): get(key: string): T | undefined { return undefined; }\n"
        '  read(path="web/store.ts", offset=2, limit=1)\n'
        "tests/test_store.py:2-3 (in Store): def get(self):\n"
        '  read(path="tests/test_store.py", offset=2, limit=2)'
    )


def test_the_uses_are_grouped_by_file_and_definition_with_what_was_not_resolved(store: SymbolStore) -> None:
    found = references(store, "S.get")
    root = store.root

    def line_text(path: str, line: int) -> str:
        return Path(root, path).read_text().split("\n")[line - 1]

    assert "\n".join(references_rows("S.get", found.targets, found.found, lambda p: p, line_text, limit=3)) == (
        "Uses of S.get (defined at pkg/store.py:2): 4 uses in 2 files (2 import-resolved, 1 same-file, 1 name-only).\n"
        "app.py · main\n"
        "  8 import-resolved:     S.get(s, 2)\n"
        "  10 import-resolved:     p.Store.get(None, 1)\n"
        "pkg/store.py · Store.put\n"
        "  6 same-file:         self.get(key)\n"
        "(+1 name-only not shown; narrow with path, or grep the name.)\n"
        "(name-only: the name get on something the index cannot follow, such as a local variable or a call's "
        "result; it may be another definition of the name.)"
    )


def test_an_edit_is_seen_by_the_next_answer_and_a_touch_reads_nothing(tmp_path: Path) -> None:
    root = tmp_path / "root"
    _write(root, {"a.py": "def one():\n    pass\n", "sub/b.py": "def two():\n    pass\n"})
    store = SymbolStore(str(root), path=tmp_path / "i.sqlite3")
    first = store.refresh()
    assert (first.built, first.read, store.file_count()) == (True, 2, 2)
    assert store.refresh().read == 0
    (root / "a.py").write_text("def one_renamed():\n    pass\n")
    assert store.refresh().read == 1
    assert _defs(store, "one") == [] and _defs(store, "one_renamed") == [("a.py", "one_renamed", 1, "")]
    os.utime(root / "sub" / "b.py", ns=(1, 1))  # touched: mtime moved, bytes did not
    touched = store.refresh()
    assert (touched.read, touched.checked) == (0, 2)
    (root / "sub" / "deep").mkdir()
    (root / "sub" / "deep" / "c.ts").write_text("export function three() {}\n")
    (root / "a.py").unlink()
    again = store.refresh()
    assert (again.read, again.removed) == (1, 1)
    assert _defs(store, "three") == [("sub/deep/c.ts", "three", 1, "")]
    assert store.file_count() == 2


def test_a_code_file_where_no_code_file_was_is_indexed_and_a_new_ignored_folder_is_not(tmp_path: Path) -> None:
    root = tmp_path / "root"
    _write(root, {".gitignore": "build/\n", "a.py": "def one():\n    pass\n", "docs/index.md": "# docs\n"})
    (root / "empty").mkdir()
    then = time.time() - 3600  # no folder's mtime can stay as it was when a file is made in it
    for path in [root, *root.rglob("*")]:
        os.utime(path, (then, then))
    store = SymbolStore(str(root), path=tmp_path / "i.sqlite3")
    store.refresh()
    _write(root, {"docs/conf.py": "def two():\n    pass\n", "empty/deep/b.py": "def three():\n    pass\n"})
    assert store.refresh().read == 2
    assert _defs(store, "two") == [("docs/conf.py", "two", 1, "")]
    assert _defs(store, "three") == [("empty/deep/b.py", "three", 1, "")]
    _write(root, {"build/gen.py": "def generated():\n    pass\n"})  # a new folder .gitignore leaves out
    assert store.refresh().read == 0
    assert _defs(store, "generated") == []


def test_ignored_denied_binary_and_big_files_are_left_out_and_counted(tmp_path: Path) -> None:
    root = tmp_path / "root"
    _write(
        root,
        {
            ".gitignore": "build/\n",
            "build/gen.py": "def generated():\n    pass\n",
            ".aws/helper.py": "def secret():\n    pass\n",
            "ok.py": "def fine():\n    pass\n",
        },
    )
    (root / "blob.py").write_bytes(b"\x7fELF\x02\x01" + bytes(100))
    (root / "big.js").write_bytes(b"var a = 1;\n" * (MAX_FILE_BYTES // 11 + 1))
    store = SymbolStore(str(root), Policy(), path=tmp_path / "i.sqlite3")
    store.refresh()
    assert _defs(store, "generated") == [] and _defs(store, "secret") == []
    assert _defs(store, "fine") == [("ok.py", "fine", 1, "")]
    assert store.skipped().counts == {"binary": 1, "deny-listed": 1, "over 2 MiB": 1}
    (root / ".gitignore").write_text("")
    assert store.refresh().built
    assert _defs(store, "generated") == [("build/gen.py", "generated", 1, "")]


def test_the_index_is_kept_on_disk_and_a_new_process_reads_only_what_changed(tmp_path: Path) -> None:
    root = tmp_path / "root"
    _write(root, {"a.py": "def one():\n    pass\n", "b.py": "def two():\n    pass\n"})
    SymbolStore(str(root), path=tmp_path / "i.sqlite3").refresh()
    (root / "b.py").write_text("def two_b():\n    pass\n")
    reopened = SymbolStore(str(root), path=tmp_path / "i.sqlite3")
    done = reopened.refresh()
    assert (done.built, done.read) == (False, 1)
    assert _defs(reopened, "two_b") == [("b.py", "two_b", 1, "")]


def test_an_index_file_of_an_older_schema_is_made_anew(tmp_path: Path) -> None:
    import sqlite3

    root = tmp_path / "root"
    _write(root, {"a.py": "class A:\n    def run(self):\n        pass\n"})
    path = tmp_path / "i.sqlite3"
    old = sqlite3.connect(path)
    old.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    old.execute("INSERT INTO meta VALUES ('schema', '{\"schema\": 1}')")
    old.execute("CREATE TABLE definitions (file INTEGER, name TEXT, tail TEXT)")  # no columns added since
    old.execute("INSERT INTO definitions VALUES (1, 'stale', 'stale')")
    old.commit()
    old.close()
    store = SymbolStore(str(root), path=path)
    assert store.refresh().read == 1
    assert _defs(store, "A.run") == [("a.py", "A.run", 2, "")] and _defs(store, "stale") == []


def test_a_qualifier_the_index_cannot_follow_falls_back_to_the_last_name_and_says_so(store: SymbolStore) -> None:
    assert _defs(store, "store.put") == [("pkg/store.py", "Store.put", 5, "by name only")]
    rows = definitions_rows("s.get", definitions(store, "s.get"), lambda p: p)
    assert rows[:2] == [
        "3 definitions of s.get, likeliest first:",
        "pkg/store.py:2-3 (in Store) [by name only]: def get(self, key):",
    ]
