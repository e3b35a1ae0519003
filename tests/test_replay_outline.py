"""The ``leanread-outline`` replay strategy: outlines for whole reads of big files, follow-up
reads (through the same Session) for the later-used lines nothing had shown, charged to the op
that needed them, and the report's figures. Synthetic files, nothing downloaded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from leanread.bench.replay.calls import FileSnapshot, ReadCall
from leanread.bench.replay.engine import replay
from leanread.bench.replay.report import markdown, outline_figures
from leanread.bench.replay.run import ReplayRun, pick_strategies
from leanread.bench.replay.source import Source
from leanread.bench.replay.strategies.leanread_outline import LeanreadOutline, enclosing, gap, replaced_lines
from leanread.bench.traces import load_trace
from leanread.code.outline import outline
from leanread.tokens import count_tokens
from leanread.view.outlineview import render_outline_unchanged

HEADER = {
    "instance_id": "acme__big-1",
    "repo": "acme/big",
    "version": "1.0",
    "agent": "test agent",
    "model": "none",
    "orig_repo_root": "/testbed",
}


#: Each function's last line: long enough that the outline is well under half the module's bytes.
RETURN = "    return b  # the sum, as the caller expects it"


def big_module() -> str:
    """A 416-line module: a docstring and an import (lines 1-2), 100 four-line functions
    ``f0``..``f99`` (``fN`` at line 4N+3, its last line 4N+5, a blank line after), then a class at
    line 403 with an attribute (404), a decorated property (405-407) and a method (409-411),
    then a top-level statement (413-416)."""
    rows = ['"""Big."""', "import os"]
    for n in range(100):
        rows += [f"def f{n}(a):", f"    b = a + {n}", RETURN, ""]
    rows += [
        "class Big:",
        "    attr = 1",
        "    @property",
        "    def value(self):",
        "        return 1",
        "",
        "    def method(self):",
        "        x = 1",
        "        return x",
        "",
        "TABLE = {",
        "    'a': 1,",
        "}",
        "print(os.sep)",
    ]
    return "\n".join(rows) + "\n"


def _lines(text: str) -> FileSnapshot:
    lines = tuple(text.splitlines())
    return FileSnapshot("pkg/big.py", lines, True, 1, len(text), "h")


def test_the_synthetic_module_is_as_documented() -> None:
    lines = big_module().splitlines()
    assert len(lines) == 416
    assert lines[4 * 7 + 3 - 1] == "def f7(a):" and lines[4 * 7 + 5 - 1] == RETURN
    assert lines[402] == "class Big:" and lines[408] == "    def method(self):" and lines[415] == "print(os.sep)"


def test_enclosing_definition_and_gaps() -> None:
    made = outline("pkg/big.py", big_module().splitlines())
    assert enclosing(made.symbols, 32) is not None and enclosing(made.symbols, 32).name == "f7"  # type: ignore[union-attr]
    method = enclosing(made.symbols, 410)
    assert method is not None and method.name == "Big.method" and (method.first, method.last) == (409, 411)
    big = enclosing(made.symbols, 404)
    assert big is not None and big.name == "Big"
    assert gap(made.symbols, big, 404) == 404  # the attribute, up to the property's decorator
    assert gap(made.symbols, method, 410) is None  # nothing nested in a method
    assert enclosing(made.symbols, 416) is None and gap(made.symbols, None, 416) == 0  # past every definition
    assert enclosing(made.symbols, 2) is None and gap(made.symbols, None, 2) == 2  # up to f0 at line 3


def test_replaced_lines() -> None:
    file = _lines(big_module())
    assert replaced_lines(file, f"    b = a + 7\n{RETURN}") == range(32, 34)
    assert replaced_lines(file, "    b = a + 7\n") == range(32, 33)
    assert replaced_lines(file, "not there") == range(0)
    assert replaced_lines(file, "") == range(0)


def _replay(tmp_path: Path, ops: list[dict[str, Any]]) -> Any:
    tree = tmp_path / "src" / "big-1.0"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "big.py").write_text(big_module())
    folder = tmp_path / "traces"
    folder.mkdir()
    trace = folder / "acme__big-1__test.jsonl"
    trace.write_text("\n".join(json.dumps(row) for row in [HEADER, *ops]) + "\n")
    classes = pick_strategies(["opencode", "floor", "leanread", "leanread-outline"])
    return replay(load_trace(trace), Source("sdist", tree, "big-1.0.tar.gz"), classes, tmp_dir=tmp_path), classes


def test_follow_ups_are_read_once_and_charged_to_the_op_that_needs_them(tmp_path: Path) -> None:
    ops = [
        {"op": "read", "path": "pkg/big.py", "offset": None, "limit": None, "step": 1},
        # f7's body (lines 32-33): nothing showed it; a follow-up reads f7 whole, then the edit
        {"op": "edit", "path": "pkg/big.py", "old": "    b = a + 7\n", "new": "    b = a + 70\n", "step": 2},
        # lines 30-36: 31 and 35 are f7's and f8's signatures (the outline), 32-33 came with the
        # follow-up and the edit's excerpt; f8's body (36) is new: a follow-up of f8
        {"op": "read", "path": "pkg/big.py", "offset": 30, "limit": 7, "step": 3},
        # the class: the attribute (404) is outside its methods: a window of the gap (line 404);
        # the body 407 of Big.value (its decorator 405 was an outline row): Big.value; 410-411: Big.method
        {"op": "read", "path": "pkg/big.py", "offset": 403, "limit": 9, "step": 4},
        # the same window again: everything is held, no follow-up, a stub as leanread's
        {"op": "read", "path": "pkg/big.py", "offset": 403, "limit": 9, "step": 5},
        # 414-415 are in TABLE (413-415): symbol; 416 is in no definition: a window to the end
        {"op": "read", "path": "pkg/big.py", "offset": 414, "limit": 3, "step": 6},
    ]
    result, classes = _replay(tmp_path, ops)
    assert result.divergences == []
    notes = result.notes["leanread-outline"]
    assert notes["reads: outline"] == 1
    assert notes["edits through leanread"] == 1  # granted: the follow-up showed the lines first
    assert result.notes["leanread"]["edits through leanread"] == 1
    # one read per op: symbols f7 (step 2) and f8 (3); ranges 404-411 (4: the attribute's window,
    # Big.value and Big.method) and 413-416 (6: TABLE and the window of line 416)
    assert {k: v for k, v in notes.items() if k.startswith("follow-up reads")} == {
        "follow-up reads: symbol": 2,
        "follow-up reads: range": 2,
    }
    # used non-blank lines, each once, by where the model had them from:
    # step 2: 32 (follow-up); step 3: 31, 35 (outline), 32 (the edit's new line), 33, 36
    # (follow-up: an edit written as sent shows no excerpt); step 4: 403, 405 (the decorator's row), 406 (def value,
    # shown under 405-407), 409 (outline), 404, 407, 410, 411 (follow-ups); step 6: 414-416
    # (follow-ups)
    used = {k.split(": ")[1]: v for k, v in notes.items() if k.startswith("used lines")}
    assert used == {"follow-up": 10, "outline": 6, "other output": 1}
    rows = {r["step"]: r["tokens"] for r in result.rows if r.get("step")}
    assert rows[5]["leanread-outline"] == rows[5]["leanread"]  # the same stub
    for step in (2, 3, 4, 6):  # follow-ups were charged to these ops
        assert rows[step]["leanread-outline"] > rows[step]["leanread"]
    before_edits = notes["follow-up tokens: before edits"]
    assert 0 < before_edits < result.tokens["leanread-outline"]["edit"]
    assert rows[2]["leanread-outline"] == before_edits + rows[2]["leanread"]  # then the same edit result

    run = ReplayRun(classes, [result])
    figures = outline_figures(notes, result.tokens["leanread-outline"], result.tokens["opencode"])
    assert figures is not None
    assert figures["follow_up_reads"] == 4 and figures["outlines"] == 1
    assert figures["reads_with_follow_ups"] == result.tokens["leanread-outline"]["read"] + before_edits
    text = markdown(run, "leanread bench replay")
    assert "leanread-outline: 1 whole reads answered with an outline; 4 follow-up reads (2 range, 2 symbol)" in text
    assert "| trace | source | reads | opencode | floor | leanread | leanread-outline |" in text
    assert result.tokens["leanread"]["read"] > result.tokens["leanread-outline"]["read"]
    # the change was made once on the shared copy (leanread's), and by leanread-outline on the
    # file as it was before (no divergence at step 3 says it met the edited file it expected)
    assert result.changes == {"edit through leanread": 1}


def test_a_whole_re_read_of_an_outlined_file_is_a_checked_stub(tmp_path: Path) -> None:
    whole = {"op": "read", "path": "pkg/big.py", "offset": None, "limit": None}
    result, _ = _replay(tmp_path, [dict(whole, step=1), dict(whole, step=2)])
    assert result.divergences == []
    notes = result.notes["leanread-outline"]
    assert notes["reads: outline"] == 1 and notes["reads: outline stub"] == 1
    rows = {r["step"]: r["tokens"] for r in result.rows if r.get("step")}
    assert rows[2]["leanread-outline"] == count_tokens(render_outline_unchanged("pkg/big.py"))


def test_an_outline_stub_that_stands_for_another_outline_is_a_divergence(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "big.py").write_text(big_module())
    strategy = LeanreadOutline(tmp_path)
    call = ReadCall("pkg/big.py", None, None, _lines(big_module()), 7)
    strategy._outline_texts["r1"] = "<path>pkg/big.py</path>\n<type>outline</type>\n<content>\n(older)\n</content>"
    strategy._check_stub(call, ["r1"])
    assert strategy.divergences == [
        "step 7: read pkg/big.py 1+: the outline stub points to ['r1'], which did not give this outline"
    ]


def test_no_outline_no_figures() -> None:
    from collections import Counter

    assert outline_figures(Counter({"reads: full": 3}), Counter(), Counter()) is None
