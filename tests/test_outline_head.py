"""The head of an outline: the opening comment and docstring, and the module's imports (guarded
ones whole), wherever they sit among the statements before the first definition: a run of more
than three lines of them, like a long licence, left out and said by one line that names its lines;
caps said the same way. Exact outlines of files shaped after real ones
(``fixtures/head``, sources in its SOURCES.txt), the licence read back with the offset its line
names, the edit grants that follow, and properties over generated Python modules."""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leanread import MemoryLedger, Session
from leanread.code.outline import outline
from leanread.config.settings import Limits
from leanread.view.outlineview import render_outline

FIXTURES = Path(__file__).parent / "fixtures" / "head"
NOTE = re.compile(r"^… lines (\d+)(?:-(\d+))?: (.+), left out; read (?:them|it) with offset=(\d+), limit=(\d+) …$")


def _fixture(name: str) -> Path:
    """The fixture file outlined as ``name`` (Python ones are stored as ``.py.txt``)."""
    return FIXTURES / (f"{name}.txt" if name.endswith(".py") else name)


def _lines(text: str) -> list[str]:
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _rendered(name: str, lines: list[str]) -> tuple[list[str], tuple[int, ...]]:
    """The rows of the outline of ``lines`` (the header left out), and the lines it shows whole."""
    text, whole = render_outline(name, outline(name, lines), lambda n: lines[n - 1], Limits())
    return text.split("<content>\n", 1)[1].rsplit("\n</content>", 1)[0].split("\n")[1:], whole


HEADS = {
    "tarfile.py": [
        "1\t#!/usr/bin/env python3",
        "2\t#-------------------------------------------------------------------",
        "3\t# tarfile.py",
        "… lines 4-28: a licence, left out; read them with offset=4, limit=25 …",
        '29\t"""Read from and write to tar format archives.',
        '30\t"""',
        '32\tversion     = "0.9.0"',
        '33\t__author__  = "Lars Gust\\u00e4bel (lars@gustaebel.de)"',
        "38\tfrom builtins import open as bltn_open",
        "39\timport sys",
        "40\timport os",
        "41\t",
        "42\ttry:",
        "43\t    import pwd",
        "44\texcept ImportError:",
        "45\t    pwd = None",
        "48\tsymlink_exception = (AttributeError, NotImplementedError)",
        '54\t__all__ = ["TarFile", "TarInfo", "is_tarfile", "TarError", "ReadError",',
        '57\tNUL = b"\\0"                     # the null character',
        "60\tdef stn(s, length, encoding, errors):",
    ],
    "direct_url.py": [
        '1\t"""Direct URL data structures (PEP 610)."""',
        "2\t",
        "3\tfrom __future__ import annotations",
        '5\t__lazy_modules__ = {"collections.abc", "urllib.parse"}',
        "… lines 7-18: imports, left out; read them with offset=7, limit=12 …",
        '20\t__all__ = ["DirectUrl"]',
        '22\tif sys.platform == "win32":',
        "23\t    import winreg",
        "25\t    def _registry(key):",
        "27\telse:",
        "28\t    import pwd",
        "30\t    def _registry(key):",
        "34\tclass DirectUrl:",
        "38\ttry:",
        "39\t    from _direct_url import *",
        "40\texcept ImportError:",
        "41\t    pass",
    ],
    "heapq.py": [
        '1\t"""Heap queue algorithm (a.k.a. priority queue).',
        "2\tline 2 of a long module docstring that explains the heap invariant.",
        "3\tline 3 of a long module docstring that explains the heap invariant.",
        "4\tline 4 of a long module docstring that explains the heap invariant.",
        "5\tline 5 of a long module docstring that explains the heap invariant.",
        "6\tline 6 of a long module docstring that explains the heap invariant.",
        "7\tline 7 of a long module docstring that explains the heap invariant.",
        "8\tline 8 of a long module docstring that explains the heap invariant.",
        "9\tline 9 of a long module docstring that explains the heap invariant.",
        "10\tline 10 of a long module docstring that explains the heap invariant.",
        "11\tline 11 of a long module docstring that explains the heap invariant.",
        "12\tline 12 of a long module docstring that explains the heap invariant.",
        "13\tline 13 of a long module docstring that explains the heap invariant.",
        "14\tline 14 of a long module docstring that explains the heap invariant.",
        "15\tline 15 of a long module docstring that explains the heap invariant.",
        "16\tline 16 of a long module docstring that explains the heap invariant.",
        "17\tline 17 of a long module docstring that explains the heap invariant.",
        "18\tline 18 of a long module docstring that explains the heap invariant.",
        "19\tline 19 of a long module docstring that explains the heap invariant.",
        "20\tline 20 of a long module docstring that explains the heap invariant.",
        "… lines 21-30: the rest of the docstring, left out; read them with offset=21, limit=10 …",
        "34\t__all__ = ['heappush', 'heappop']",
        "36\tdef heappush(heap, item):",
        "39-40\tdef heappop(heap):",
        "43\ttry:",
        "44\t    from _heapq import *",
        "45\texcept ImportError:",
        "46\t    pass",
        "47\ttry:",
        "48\t    from _heapq import _heapreplace_max",
        "49\texcept ImportError:",
        "50\t    pass",
    ],
    "cli.js": [
        "… lines 1-7: a licence, left out; read them with offset=1, limit=7 …",
        "8\t'use strict';",
        "9\t",
        "10\tconst fs = require('fs');",
        "11\tconst React = __toESM(require('react'));",
        "12\tvar pkg = require('./package.json').version, DEBUG = false;",
        "14-16\tfunction main(argv) {",
        "19\ttry {",
        "20\t  chalk = require('chalk');",
        "21\t} catch (e) {",
        "22\t  chalk = null;",
        "23\t}",
    ],
    "index.mjs": [
        "1\t// SPDX-License-Identifier: Apache-2.0",
        "2\t// Copyright 2021 The Example Authors.",
        "3\t",
        "4\timport { readFile } from 'node:fs/promises';",
        "5\texport * from './errors.mjs';",
        "9\timport { parse } from './parse.mjs';",
        "11\texport async function load(path) {",
        "15\timport { stringify } from './stringify.mjs';",
        "17\texport function dump(value) {",
    ],
    "watcher.ts": [
        "… lines 1-4: a licence, left out; read them with offset=1, limit=4 …",
        "6\timport * as fs from 'fs';",
        "7\timport { URI } from 'vs/base/common/uri';",
        "11\timport type { Event } from './event';",
        "12\texport { Emitter } from './emitter';",
        "13\timport path = require('path');",
        "15-19\texport class Watcher {",
        "16-18\t\twatch(uri: URI): Event<void> {",
    ],
    "proxy.go": [
        "… lines 1-13: a licence, left out; read them with offset=1, limit=13 …",
        "15\t// Package proxy keeps a connection open to a Git server.",
        "16\tpackage proxy",
        "… lines 18-21: imports, left out; read them with offset=18, limit=4 …",
        "24\ttype Proxy struct {",
        "28\tfunc (p *Proxy) Run() error {",
    ],
    "reader.go": [
        "1\t// Copyright 2009 The Go Authors. All rights reserved.",
        "2\t// Use of this source code is governed by a BSD-style",
        "3\t// license that can be found in the LICENSE file.",
        "4\t",
        "5\tpackage bytes",
        "6\t",
        '7\timport "errors"',
        "11\tfunc (r *Reader) Len() int {",
    ],
    "main.rs": [
        "… lines 1-9: a licence, left out; read them with offset=1, limit=9 …",
        "11\t//! Renders the error codes of the compiler.",
        "12\t",
        "13\t#![feature(rustc_private)]",
        "14\t",
        "15\textern crate rustc_driver;",
        "19\tuse std::env;",
        "20\t#[cfg(unix)]",
        "21\tuse std::os::unix::fs::PermissionsExt;",
        "23\tfn main() {",
    ],
    "lib.rs": [
        "… lines 1-6: a licence, left out; read them with offset=1, limit=6 …",
        "8\t//! Walks directories.",
        "10\tmod walk;",
        "11\tpub use crate::walk::{Walk, WalkBuilder};",
        "12\tuse std::io;",
        "14\tpub fn walk() -> io::Result<()> {",
    ],
    "Pair.java": [
        "… lines 1-16: a licence, left out; read them with offset=1, limit=16 …",
        "17\tpackage org.apache.commons.lang3.tuple;",
        "18\t",
        "19\timport static java.util.Objects.requireNonNull;",
        "20\t",
        "21\timport java.util.Map;",
        "26\tpublic class Pair<L, R> {",
    ],
    "LongAdder.java": [
        "… lines 1-18: a licence, left out; read them with offset=1, limit=18 …",
        "20\tpackage java.util.concurrent.atomic;",
        "21\t",
        "22\timport java.io.Serializable;",
        "27-30\tpublic class LongAdder extends Striped64 implements Serializable {",
        "28-29\t    public void add(long x) {",
    ],
    "util.h": [
        "1\t/*",
        "2\t * util.h - small helpers",
        "… lines 3-8: a licence, left out; read them with offset=3, limit=6 …",
        "9\t#ifndef UTIL_H",
        "… lines 12-17: imports, left out; read them with offset=12, limit=6 …",
        "21\tint util_init(void);",
        "23-26\tstatic int util_max(int a, int b)",
    ],
    "app.cpp": [
        "… lines 1-4: a licence, left out; read them with offset=1, limit=4 …",
        "… lines 6-10: imports, left out; read them with offset=6, limit=5 …",
        "12-14\tnamespace app {",
        "13\tint run() { return 0; }",
    ],
    "table.cc": [
        "1\t// Copyright (c) 2011 The LevelDB Authors. All rights reserved.",
        "2\t// Use of this source code is governed by a BSD-style license that can be",
        "3\t// found in the LICENSE file. See the AUTHORS file for names of contributors.",
        "… lines 5-8: imports, left out; read them with offset=5, limit=4 …",
        "10-14\tnamespace leveldb {",
        "12\tTable::~Table() { delete rep_; }",
        "16\t#if defined(LEVELDB_TESTS)",
        '17\t#include "util/testutil.h"',
        "18\t#endif",
    ],
}


@pytest.mark.parametrize("name", sorted(HEADS))
def test_the_head_leaves_out_long_imports_and_a_long_licence_and_says_where(name: str) -> None:
    rows, _ = _rendered(name, _lines(_fixture(name).read_text(encoding="utf-8")))
    assert rows == HEADS[name]


#: What each fixture's head leaves out, in order, and a word each part left out holds.
LEFT_OUT = {
    "tarfile.py": [("a licence", "opyright")],  # its imports' run holds a row (``pwd = None``): shown
    "Pair.java": [("a licence", "icense")],
    "proxy.go": [("a licence", "icense"), ("imports", '"net/http"')],
    "watcher.ts": [("a licence", "opyright")],
    "util.h": [("a licence", "icense"), ("imports", "#include <windows.h>")],
    "lib.rs": [("a licence", "ermission")],
}


@pytest.mark.parametrize("name", sorted(LEFT_OUT))
def test_what_a_head_left_out_reads_back_with_the_offset_its_line_names(tmp_path: Path, name: str) -> None:
    shutil.copy(_fixture(name), tmp_path / name)
    lines = _lines((tmp_path / name).read_text(encoding="utf-8"))
    session = Session([tmp_path], ledger=MemoryLedger())
    notes = [found for row in session.read(name, mode="outline").text.split("\n") if (found := NOTE.match(row))]
    assert [note.group(3) for note in notes] == [what for what, _ in LEFT_OUT[name]]
    for note, (_, word) in zip(notes, LEFT_OUT[name], strict=True):
        first, limit = int(note.group(4)), int(note.group(5))
        assert first == int(note.group(1)) and first + limit - 1 == int(note.group(2) or first)
        part = lines[first - 1 : first - 1 + limit]
        assert any(word in line for line in part)
        window = session.read(name, offset=first, limit=limit)
        assert window.text.split("<content>\n", 1)[1].split("\n")[:limit] == part


def test_head_lines_shown_are_granted_for_edits_and_lines_left_out_are_not(tmp_path: Path) -> None:
    shutil.copy(_fixture("tarfile.py"), tmp_path / "tarfile.py")
    shutil.copy(_fixture("heapq.py"), tmp_path / "heapq.py")
    session = Session([tmp_path], ledger=MemoryLedger())
    session.read("tarfile.py", mode="outline")
    session.read("heapq.py", mode="outline")
    refused = session.edit("tarfile.py", "# All rights reserved.", "# All rights reserved!")
    assert refused.is_error
    assert refused.text == (
        "old_string spans line 6 of tarfile.py, but you have not seen line 6 of its current version, so "
        "nothing was edited; read it first (offset=6, limit=1) and retry."
    )
    guarded = session.edit(
        "tarfile.py", "try:\n    import pwd\nexcept ImportError:", "try:\n    import pwd  # posix\nexcept ImportError:"
    )
    assert not guarded.is_error, guarded.text
    after_version = session.edit("tarfile.py", "import sys\nimport os\n", "import os\nimport sys\n")
    assert not after_version.is_error, after_version.text
    cut = session.edit("heapq.py", "line 25 of a long", "line 25 of the long")
    assert cut.is_error and "read it first (offset=25, limit=1)" in cut.text
    shown = session.edit("heapq.py", "line 20 of a long", "line 20 of the long")
    assert not shown.is_error, shown.text
    session.read("tarfile.py", offset=4, limit=25)
    assert not session.edit("tarfile.py", "# All rights reserved.", "# All rights reserved!").is_error
    shutil.copy(_fixture("proxy.go"), tmp_path / "proxy.go")
    session.read("proxy.go", mode="outline")
    imports = ('\t"fmt"\n\t"net/http"\n', '\t"fmt"\n\t"log"\n\t"net/http"\n')
    assert "read them first (offset=19, limit=2)" in session.edit("proxy.go", *imports).text
    session.read("proxy.go", offset=18, limit=4)  # the imports, as their line names them
    assert not session.edit("proxy.go", *imports).is_error


def test_imports_among_the_definitions_are_rows_on_the_page_that_holds_them(tmp_path: Path) -> None:
    source = _fixture("tarfile.py").read_text(encoding="utf-8")
    functions = "".join(f"\ndef f{k}():\n    return {k}\n" for k in range(300))
    accelerator = "\ntry:\n    from _tarfile import f0\nexcept ImportError:\n    pass\n"
    (tmp_path / "tarfile.py").write_text(source + functions + accelerator)
    session = Session([tmp_path], ledger=MemoryLedger())
    whole = session.read("tarfile.py", mode="outline").text.split("\n")
    assert "… lines 4-28: a licence, left out; read them with offset=4, limit=25 …" in whole
    assert whole[-6:] == [
        "963\tdef f299():",
        "966\ttry:",
        "967\t    from _tarfile import f0",
        "968\texcept ImportError:",
        "969\t    pass",
        "</content>",
    ]
    page = session.read("tarfile.py", offset=950, mode="outline").text.split("\n")
    assert not any(NOTE.match(row) for row in page) and "43\t    import pwd" not in page
    assert page[-6:] == [
        "963\tdef f299():",
        "966\ttry:",
        "967\t    from _tarfile import f0",
        "968\texcept ImportError:",
        "969\t    pass",
        "</content>",
    ]


# --- properties over generated Python modules -----------------------------------------------------

_LICENCE = [
    "# Copyright (c) 2020 The Authors.",
    "#",
    "# Permission is hereby granted, free of charge, to any person obtaining a copy",
    "# of this software, to deal in the Software without restriction.",
    "#",
    '# THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND.',
]
_STATEMENTS = {
    "import": lambda k: [f"import mod_{k}"],
    "from": lambda k: [f"from pkg_{k} import (", "    a,", "    b,", ")"],
    "guarded": lambda k: ["try:", f"    import opt_{k}", "except ImportError:", f"    opt_{k} = None"],
    "checking": lambda k: ["if TYPE_CHECKING:", f"    from types_{k} import T{k}"],
    "value": lambda k: [f"VALUE_{k} = {k}"],
    "comment": lambda k: [f"# note {k}"],
    "blank": lambda k: [""],
    "function": lambda k: [f"def f_{k}():", f"    return {k}"],
}


@st.composite
def _modules(draw: st.DrawFn) -> list[str]:
    lines: list[str] = []
    if draw(st.booleans()):
        lines += [*_LICENCE, ""]
    if draw(st.booleans()):
        size = draw(st.integers(1, 30))
        lines += ['"""Module.', *(f"Line {k} of its docstring." for k in range(size)), '"""', ""]
    kinds = draw(st.lists(st.sampled_from(sorted(_STATEMENTS)), min_size=1, max_size=40))
    for index, kind in enumerate([*kinds, "function"]):
        lines += _STATEMENTS[kind](index)
    return lines


def _imports_before_the_first_function(lines: list[str]) -> set[int]:
    """The lines of every import statement before the first top-level function (ast's view)."""
    found: set[int] = set()
    for node in ast.parse("\n".join(lines)).body:
        if isinstance(node, ast.FunctionDef):
            break
        for inner in ast.walk(node):
            if isinstance(inner, ast.Import | ast.ImportFrom):
                found.update(range(inner.lineno, (inner.end_lineno or inner.lineno) + 1))
    return found


@settings(max_examples=60, deadline=None)
@given(_modules())
def test_every_import_before_the_first_definition_is_shown_or_said_left_out(lines: list[str]) -> None:
    rows, whole = _rendered("generated.py", lines)
    shown: set[int] = set()
    left_out: dict[str, set[int]] = {}
    for row in rows:
        if note := NOTE.match(row):
            first, limit = int(note.group(4)), int(note.group(5))
            left_out.setdefault(note.group(3), set()).update(range(first, first + limit))
            continue
        label, text = row.split("\t", 1)
        number = int(label.split("-")[0])
        assert lines[number - 1] == text  # every row is the line its number names
        shown.add(number)
    assert set(whole) == shown  # the ledger counts exactly the rows shown
    imports = _imports_before_the_first_function(lines)
    assert imports <= shown | left_out.get("imports", set()) | left_out.get("more imports", set())
    assert not shown & left_out.get("imports", set())
    if lines[0] == _LICENCE[0]:
        assert left_out["a licence"] == set(range(1, len(_LICENCE) + 1))
    assert not shown & left_out.get("a licence", set())


def test_a_rust_comment_above_a_blank_line_is_not_the_next_items_doc() -> None:
    made = outline("lib.rs", _lines(_fixture("lib.rs").read_text(encoding="utf-8")))
    assert [(s.name, s.kind, s.first, s.line) for s in made.symbols] == [
        ("walk", "module", 10, 10),  # the crate's //! doc on line 8 is not the module's
        ("walk", "function", 14, 14),
    ]


def test_a_long_opening_comment_is_cut_and_a_licence_after_it_still_said() -> None:
    lines = [
        '"""Doc."""',
        *(f"# note {k}" for k in range(2, 25)),
        "",
        "# Copyright (c) 2020 The Authors.",
        "# Permission is hereby granted, free of charge, to any person",
        "# obtaining a copy of this software.",
        '# THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND.',
        "",
        "import os",
        "",
        "def f():",
        "    pass",
    ]
    rows, _ = _rendered("notes.py", lines)
    assert rows[19:] == [
        "20\t# note 20",
        "… lines 21-24: the rest of the opening comment, left out; read them with offset=21, limit=4 …",
        "… lines 26-29: a licence, left out; read them with offset=26, limit=4 …",
        "31\timport os",
        "33\tdef f():",
    ]


def test_a_guard_that_defines_past_its_imports_is_shown_not_left_out() -> None:
    functions = [line for k in range(80) for line in (f"def f{k}(a):", f"    return a + {k}", "")]
    guard = ["try:", "    from foo import Bar", "    import os", "    import sys", "except ImportError:"]
    lines = [*guard, "    class Bar:", "        pass", "", *functions]
    rows, _ = _rendered("guarddef.py", lines)
    assert rows[:7] == [*(f"{n}\t{line}" for n, line in enumerate(guard, 1)), "6\t    class Bar:", "9\tdef f0(a):"]
