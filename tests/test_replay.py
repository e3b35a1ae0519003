"""`leanread bench replay` on small synthetic traces: the strategies' exact texts and tokens,
the engine in lockstep (changes, shell commands, unservable reads), the report, the CLI.

Sources are laid into a cache beforehand (a ``.source.json`` marker pointing at a tree), so
nothing is downloaded; `leanread bench replay` runs the same code on the shared traces.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from leanread.bench.replay import sandbox
from leanread.bench.replay.anchor_edits import OPENCODE_NOT_FOUND
from leanread.bench.replay.calls import FileSnapshot, ReadCall
from leanread.bench.replay.engine import TraceResult, replay
from leanread.bench.replay.report import (
    chart_figure,
    chart_strategies,
    cross_check_applies,
    markdown,
    summary,
    write_outputs,
)
from leanread.bench.replay.run import ReplayRun, pick_strategies
from leanread.bench.replay.source import Source
from leanread.bench.replay.strategies import available
from leanread.bench.replay.strategies.leanread import Leanread
from leanread.bench.replay.tooldefs import OPENCODE, leanread_definitions
from leanread.bench.traces import Trace, load_trace
from leanread.cli.main import app
from leanread.result import ToolResult
from leanread.tokens import count_tokens

MOD = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
HEADER = {
    "instance_id": "acme__demo-1",
    "repo": "acme/demo",
    "version": "1.0",
    "agent": "test agent",
    "model": "none",
    "orig_repo_root": "/testbed",
}
needs_sandbox = pytest.mark.skipif(not sandbox.available(), reason="unshare cannot make namespaces here")


def _tree(tmp_path: Path) -> Path:
    tree = tmp_path / "cache" / "src" / "demo-1.0"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "mod.py").write_text(MOD)
    (tree / "README.txt").write_text("demo\n")
    marker = {"kind": "sdist", "root": str(tree), "archive": "demo-1.0.tar.gz", "note": ""}
    (tmp_path / "cache" / "src" / "demo-1.0.source.json").write_text(json.dumps(marker))
    return tree


def _trace(tmp_path: Path, ops: list[dict[str, Any]], name: str = "acme__demo-1__test") -> Path:
    folder = tmp_path / "traces"
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.jsonl"
    path.write_text("\n".join(json.dumps(row) for row in [HEADER, *ops]) + "\n")
    return path


def _source(tree: Path) -> Source:
    return Source("sdist", tree, "demo-1.0.tar.gz")


def _call(text: str, offset: int | None = None, limit: int | None = None) -> ReadCall:
    lines = tuple(text.splitlines())
    return ReadCall("pkg/mod.py", offset, limit, FileSnapshot("pkg/mod.py", lines, True, 1, len(text), "h"))


# --- the anchors' texts, by hand -----------------------------------------------------------------


def test_anchor_texts_and_tokens_for_a_small_file(tmp_path: Path) -> None:
    strategies = {name: cls(tmp_path) for name, cls in available().items() if "leanread" not in name}
    texts = {name: s.read(_call(MOD)) for name, s in strategies.items()}
    assert texts["opencode"] == (
        "<path>pkg/mod.py</path>\n<type>file</type>\n<content>\n"
        "1: def add(a, b):\n2:     return a + b\n3: \n4: \n5: def sub(a, b):\n6:     return a - b\n"
        "\n(End of file - total 6 lines)\n</content>"
    )
    assert texts["kilo-plain"] == (
        "<path>pkg/mod.py</path>\n<type>file</type>\n<content>\n"
        "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
        "\n(End of file - total 6 lines)\n</content>"
    )
    assert texts["opencode-dedup"] == texts["opencode"]
    assert texts["claude-code"] == (
        "1\tdef add(a, b):\n2\t    return a + b\n3\t\n4\t\n5\tdef sub(a, b):\n6\t    return a - b"
    )
    assert texts["floor"] == "pkg/mod.py 1-6\ndef add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b"
    assert texts["swe-agent"] == (
        "[File: /pkg/mod.py (6 lines total)]\n1:def add(a, b):\n2:    return a + b\n3:\n4:\n5:def sub(a, b):\n"
        "6:    return a - b"
    )
    assert texts["bash"] == "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"  # cat
    tokens = {name: count_tokens(text) for name, text in texts.items()}
    assert tokens == {
        "opencode": 70,
        "kilo-plain": 56,
        "opencode-dedup": 70,
        "claude-code": 31,
        "swe-agent": 45,
        "floor": 31,
        "bash": 24,
    }

    # The same window again: the dedup anchors answer with their stubs, the floor with its header.
    again = {name: s.read(_call(MOD)) for name, s in strategies.items()}
    assert again["opencode"] == texts["opencode"] and again["kilo-plain"] == texts["kilo-plain"]
    assert again["claude-code"].startswith("File unchanged since last read.")
    assert "Lines 1-6 are unchanged since your earlier read" in again["opencode-dedup"]
    assert again["floor"] == "pkg/mod.py 1-6"
    assert {n: count_tokens(t) for n, t in again.items() if n in ("opencode-dedup", "claude-code", "floor")} == {
        "opencode-dedup": 46,
        "claude-code": 29,
        "floor": 7,
    }


def test_floor_shows_only_new_line_versions_after_a_change(tmp_path: Path) -> None:
    floor = available()["floor"](tmp_path)
    floor.read(_call(MOD))
    changed = MOD.replace("a - b", "b - a")
    assert floor.read(_call(changed)) == "pkg/mod.py 1-6\n@6\n    return b - a"
    assert floor.read(_call(changed, offset=5, limit=2)) == "pkg/mod.py 5-6"


def test_opencode_caps_at_50_kb_of_line_bytes_and_cuts_long_lines(tmp_path: Path) -> None:
    opencode = available()["opencode"](tmp_path)
    text = "".join("x" * 99 + "\n" for _ in range(600)) + "y" * 2500 + "\n"
    out = opencode.read(_call(text))
    assert out.endswith("(Output capped at 50 KB. Showing lines 1-512. Use offset=513 to continue.)\n</content>")
    tail = opencode.read(_call(text, offset=601))
    assert "601: " + "y" * 2000 + "... (line truncated to 2000 chars)" in tail


def test_strategies_are_found_one_per_file_in_report_order() -> None:
    assert list(available()) == [
        "bash",
        "opencode",
        "kilo-plain",
        "opencode-dedup",
        "claude-code",
        "swe-agent",
        "floor",
        "leanread",
        "leanread-dedup-off",
        "leanread-dedup-on",
        "leanread+focus",
        "leanread-cli",
        "leanread-outline",
        "bash-leanread",
        "leanread-navigate",
        "bash-leanread-lossless",
    ]
    assert [cls.name for cls in pick_strategies(["leanread", "floor"])] == ["floor", "leanread"]


# --- the engine ------------------------------------------------------------------------------------


def _ops() -> list[dict[str, Any]]:
    return [
        {"op": "read", "path": "pkg/mod.py", "offset": None, "limit": None, "step": 1},
        {"op": "read", "path": "pkg/mod.py", "offset": None, "limit": None, "step": 2},
        {"op": "edit", "path": "pkg/mod.py", "old": "return a - b", "new": "return b - a", "step": 3},
        {"op": "shell", "cmd": "cd /testbed && sed -i 's/a + b/b + a/' pkg/mod.py", "mutates": ["pkg/mod.py"]},
        {"op": "read", "path": "pkg/mod.py", "offset": 1, "limit": 3, "step": 5},
        {"op": "grep", "pattern": "def \\(add\\|sub\\)", "path": "pkg", "flags": ["-n"], "step": 6},
        {"op": "read", "path": "pkg/absent.py", "offset": None, "limit": None, "step": 7},
        {"op": "read", "path": "pkg/mod.py", "offset": 50, "limit": None, "step": 8},
        {"op": "read", "path": "/workspace/outside.py", "offset": None, "limit": None, "step": 9},
        {"op": "list", "path": ".", "cmd": "ls", "step": 10},
        {"op": "write", "path": "notes.txt", "content": "one\ntwo\n", "step": 11},
        {"op": "read", "path": "notes.txt", "offset": None, "limit": None, "step": 12},
    ]


@needs_sandbox
def test_replay_keeps_every_strategy_on_the_same_bytes(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    trace = load_trace(_trace(tmp_path, _ops()))
    result = replay(trace, _source(tree), list(available().values()), tmp_dir=tmp_path)
    assert result.divergences == []
    assert result.reads == 4
    assert [(u["step"], u["why"]) for u in result.unservable] == [
        (7, "not in the release"),
        (8, "window starts past the end (line 50 of 6)"),
        (9, "outside the repository"),
    ]
    assert result.changes == {"edit through leanread": 1, "write through leanread": 1}
    assert result.shell == {"run": 1}
    assert (tree / "pkg" / "mod.py").read_text() == MOD  # the cache is never touched
    step5 = next(r for r in result.rows if r["step"] == 5)
    # Everyone read the file after both changes: sed's and the edit's.
    texts = {
        name: cls(tree).read(_call(MOD.replace("a + b", "b + a").replace("a - b", "b - a"), 1, 3))
        for name, cls in available().items()
        if name in ("opencode", "kilo-plain")
    }
    assert step5["tokens"]["opencode"] == count_tokens(texts["opencode"])
    assert step5["tokens"]["kilo-plain"] == count_tokens(texts["kilo-plain"])
    grep = next(r for r in result.rows if r["op"] == "grep")
    assert grep["matches"] == 2
    notes = result.notes["leanread"]
    # a 6-line file: no marker or stub pays for its short lines (leanread.marks), each read shows them
    assert notes["reads: full"] == 4 and "reads: elided" not in notes and notes["edits through leanread"] == 1
    assert result.tokens["opencode"]["read"] > result.tokens["leanread"]["read"] > result.tokens["floor"]["read"]


def test_a_planted_lie_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read result that shows a line differently from the file fails the truthfulness check."""
    tree = _tree(tmp_path)
    ops = [
        {"op": "read", "path": "pkg/mod.py", "offset": None, "limit": None, "step": 1},
        {"op": "read", "path": "pkg/mod.py", "offset": 2, "limit": 3, "step": 2},
    ]
    honest = Leanread.read

    def lying(self: Leanread, call: ReadCall) -> str:
        if call.step == 1:
            original = self.session.read

            def tampered(*args: Any, **kwargs: Any) -> ToolResult:
                result = original(*args, **kwargs)
                return ToolResult(result.text.replace("return a + b", "return a * b"), metadata=result.metadata)

            monkeypatch.setattr(self.session, "read", tampered)
            try:
                return honest(self, call)
            finally:
                monkeypatch.setattr(self.session, "read", original)
        return honest(self, call)

    monkeypatch.setattr(Leanread, "read", lying)
    result = replay(load_trace(_trace(tmp_path, ops)), _source(tree), [Leanread], tmp_dir=tmp_path)
    assert len(result.divergences) == 1
    assert "step 1" in result.divergences[0] and "return a * b" in result.divergences[0]


def test_a_stub_after_an_outside_change_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """leanread answering a re-read of a changed file with its unchanged stub would be a lie."""
    tree = _tree(tmp_path)
    ops = [
        {"op": "read", "path": "pkg/mod.py", "offset": None, "limit": None, "step": 1},
        {"op": "insert", "path": "pkg/mod.py", "line": 0, "new": "import os", "step": 2},
        {"op": "read", "path": "pkg/mod.py", "offset": 1, "limit": 7, "step": 3},
    ]
    honest = Leanread.read
    stub = (
        "<path>pkg/mod.py</path>\n<type>file</type>\n<content>\n(Lines 1-7 unchanged since you read them, still in "
        "your context. Use fresh=true to see them again.)\n\n(End of file - total 7 lines)\n</content>"
    )

    def stale(self: Leanread, call: ReadCall) -> str:
        if call.step != 3:
            return honest(self, call)
        result = self.session.read(call.path, offset=1, limit=7)
        fake = ToolResult(stub, metadata=dict(result.metadata, mode="stub"))
        monkeypatch.setattr(self.session, "read", lambda *a, **k: fake)
        return honest(self, call)

    monkeypatch.setattr(Leanread, "read", stale)
    result = replay(load_trace(_trace(tmp_path, ops)), _source(tree), [Leanread], tmp_dir=tmp_path)
    assert len(result.divergences) == 1
    assert "does not have" in result.divergences[0] or "the file has" in result.divergences[0]


def test_refused_edit_is_retried_after_the_read_it_names(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    ops = [
        {"op": "read", "path": "pkg/mod.py", "offset": 1, "limit": 2, "step": 1},
        {"op": "edit", "path": "pkg/mod.py", "old": "return a - b", "new": "return b - a", "step": 2},
        {"op": "edit", "path": "pkg/mod.py", "old": "no such text", "new": "x", "step": 3},
    ]
    result = replay(load_trace(_trace(tmp_path, ops)), _source(tree), list(available().values()), tmp_dir=tmp_path)
    assert result.changes == {
        "edit through leanread": 1,
        "edit refused by leanread, then skipped: old text not found": 1,
    }
    notes = result.notes["leanread"]
    assert notes["edits through leanread after the read its refusal named"] == 1
    assert notes["reads a refusal named"] == 1 and notes["edits refused"] == 1
    assert result.divergences == []


def test_replay_charges_each_anchor_its_own_refusal(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    ops = [
        {"op": "read", "path": "pkg/mod.py", "offset": 1, "limit": 6, "step": 1},
        # The release does not hold this line; opencode's line-trimmed matcher does not either.
        {"op": "edit", "path": "pkg/mod.py", "old": "return a * b", "new": "return b", "step": 2},
        # Not exact (indentation), but opencode's trimmed lines find it: it applies the edit.
        {"op": "edit", "path": "pkg/mod.py", "old": "return a - b\n", "new": "  return b - a\n", "step": 3},
    ]
    result = replay(load_trace(_trace(tmp_path, ops)), _source(tree), list(available().values()), tmp_dir=tmp_path)
    refused, loose = (row["tokens"] for row in result.rows if row["op"] == "edit")
    assert refused["opencode"] == count_tokens(OPENCODE_NOT_FOUND)
    assert refused["kilo-plain"] == count_tokens(OPENCODE_NOT_FOUND)
    claude = "<tool_use_error>String to replace not found in file.\nString: return a * b</tool_use_error>"
    assert refused["claude-code"] == count_tokens(claude)
    assert loose["opencode"] == count_tokens("Edit applied successfully.")


# --- the report and the command --------------------------------------------------------------------


def _small_run(tmp_path: Path) -> ReplayRun:
    tree = _tree(tmp_path)
    ops = [op for op in _ops() if op["op"] != "shell"]
    run = ReplayRun(list(available().values()))
    run.results.append(replay(load_trace(_trace(tmp_path, ops)), _source(tree), run.strategies, tmp_dir=tmp_path))
    return run


def test_a_report_without_opencode_states_no_ratio_to_it(tmp_path: Path) -> None:
    """The goals are ratios to opencode: a run of other strategies (``--strategy bash …``) shows
    ``—`` for them and states no goal as "not met" (it printed nan and "0 divergences — not met")."""
    tree = _tree(tmp_path)
    ops = [op for op in _ops() if op["op"] != "shell"]
    run = ReplayRun([s for s in available().values() if s.name in ("leanread", "leanread-outline", "floor")])
    run.results.append(replay(load_trace(_trace(tmp_path, ops)), _source(tree), run.strategies, tmp_dir=tmp_path))
    text = markdown(run, "cmd")
    assert "nan" not in text and "Goal (issue 6)" not in text and "Goal (issue 7)" not in text
    row = next(line for line in text.splitlines() if line.startswith("| leanread | "))
    assert row.split(" | ")[2] == "—"


def test_report_ratios_markdown_and_json(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    run = _small_run(tmp_path)
    s = summary(run)
    assert s["servable_reads"] == 4 and s["divergences"] == []
    assert s["strategies"]["opencode"]["ratio_read"] == 1.0
    assert 0 < s["strategies"]["floor"]["ratio_read"] < s["strategies"]["kilo-plain"]["ratio_read"] < 1
    text = markdown(run, "leanread bench replay --traces t")
    assert "Command: `leanread bench replay --traces t`" in text
    assert "| opencode | " in text and "Goal (issue 6): leanread ≤ 0.72" in text
    paths = write_outputs(run, tmp_path / "out", "cmd")
    data = json.loads(paths["json"].read_text())
    assert data["traces"][0]["servable_reads"] == 4
    assert data["summary"]["strategies"]["leanread"]["tokens"]["read"] == run.results[0].tokens["leanread"]["read"]
    assert paths["chart"].read_bytes().startswith(b"\x89PNG")


def test_chart_draws_measured_strategies_with_labels_apart(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    run = _small_run(tmp_path)
    figures = summary(run)["strategies"]
    assert figures["leanread+focus"]["measurable"] is False  # no op of this trace carries a question
    drawn = chart_strategies(figures)
    shell_only = ("bash", "leanread-cli", "bash-leanread", "bash-leanread-lossless")  # no op here has a shell cmd
    assert drawn == [name for name in figures if name not in ("leanread+focus", *shell_only)]
    fig = chart_figure(run)
    fig.canvas.draw()
    labels = fig.axes[0].get_xticklabels()
    assert [label.get_text() for label in labels] == drawn
    boxes = [label.get_window_extent() for label in labels]
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
    plt.close(fig)


def test_cli_replays_a_folder_offline(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    _tree(tmp_path)
    _trace(tmp_path, [op for op in _ops() if op["op"] != "shell"])
    out = tmp_path / "out"
    bench = tmp_path / "BENCH.md"
    bench.write_text("# Benchmarks\n")
    args = ["bench", "replay", "--traces", str(tmp_path / "traces"), "--cache", str(tmp_path / "cache")]
    args += ["--out", str(out), "--jobs", "1", "--append", str(bench)]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    assert (out / "results.json").is_file() and (out / "replay.png").is_file()
    appended = bench.read_text()
    assert appended.startswith("# Benchmarks\n\n## Replay of 1 real agent traces")
    assert "![tokens per strategy](out/replay.png)" in appended


def test_trace_result_totals() -> None:
    result = TraceResult("t", {}, Source("sdist", Path("."), "a"))
    result.tokens["x"] = __import__("collections").Counter({"read": 3, "grep": 2, "edit": 1})
    assert result.total("x") == 6 and result.total("x", ("read", "grep")) == 5


def test_trace_loading_keeps_the_header() -> None:
    trace = Trace("n", HEADER, ())
    assert (trace.package, trace.version) == ("demo", "1.0")


# --- leanread+focus: measured only where a trace gives a question ----------------------------------


def _long_module() -> str:
    """Sixty small functions and one about parsing a header: a whole read is worth pruning."""
    parts = [f"def total_of_the_numbers_{n}(numbers):\n    return sum(numbers) + {n}\n" for n in range(60)]
    header = [
        "def parse_header(value):",
        '    """Split a Content-Type style header into its main value and its parameters."""',
        "    main, _, rest = value.partition(';')",
        "    params = dict(item.strip().partition('=')[::2] for item in rest.split(';') if item.strip())",
        "    return main, params",
    ]
    parts.insert(30, "\n".join(header) + "\n")
    return "\n\n".join(parts)


def test_focus_strategy_uses_the_question_a_trace_op_carries(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    (tree / "pkg" / "long.py").write_text(_long_module())
    question = "How does parse_header split the value?"
    ops = [
        {"op": "read", "path": "pkg/long.py", "offset": None, "limit": None, "step": 1, "focus": question},
        {
            "op": "grep",
            "pattern": "def ",
            "path": "pkg",
            "flags": ["-n"],
            "step": 2,
            "context_focus_question": question,
        },
        {"op": "read", "path": "pkg/long.py", "offset": None, "limit": None, "step": 3, "focus": question},
    ]
    run = ReplayRun(pick_strategies(["opencode", "leanread", "leanread+focus"]))
    run.results.append(replay(load_trace(_trace(tmp_path, ops)), _source(tree), run.strategies, tmp_dir=tmp_path))
    result = run.results[0]
    assert result.divergences == []
    assert result.notes["leanread+focus"] == {"focus questions: read": 2, "reads: focus": 2, "focus questions: grep": 1}
    first, again = (next(r for r in result.rows if r["step"] == step)["tokens"] for step in (1, 3))
    assert again["leanread+focus"] < first["leanread+focus"]  # the same question again: markers
    assert result.tokens["leanread+focus"]["read"] < result.tokens["leanread"]["read"] // 3
    assert result.tokens["leanread+focus"]["grep"] < result.tokens["leanread"]["grep"] // 2
    text = markdown(run, "cmd")
    assert "| leanread+focus | " in text and "not measurable" not in text


def test_focus_strategy_without_questions_is_reported_not_measurable(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    ops = [op for op in _ops() if op["op"] == "read"]
    run = ReplayRun(pick_strategies(["opencode", "leanread", "leanread+focus"]))
    run.results.append(replay(load_trace(_trace(tmp_path, ops)), _source(tree), run.strategies, tmp_dir=tmp_path))
    text = markdown(run, "cmd")
    assert "| leanread+focus | " not in text
    assert (
        "leanread+focus: not measurable on these traces: no read or grep carries a focus question; its figures "
        "here would be those of the strategy it falls back to." in text
    )


def test_tool_definitions_are_charged_once_per_trace(tmp_path: Path) -> None:
    run = _small_run(tmp_path)
    s = summary(run)
    ours = leanread_definitions()
    assert set(ours.tools) == {"read", "grep", "edit", "write", "ls"}
    assert ours.tokens <= 2_500
    lean, oc, floor = (s["strategies"][n] for n in ("leanread", "opencode", "floor"))
    assert lean["definitions_per_trace"] == ours.tokens
    assert oc["definitions_per_trace"] == 1_708 and floor["definitions_per_trace"] == 0
    traces = len(run.results)
    assert lean["all_with_definitions"] == lean["all"] + ours.tokens * traces
    assert lean["ratio_all_with_definitions"] == round(
        (lean["all"] + ours.tokens * traces) / (oc["all"] + 1_708 * traces), 4
    )
    text = markdown(run, "cmd")
    assert f"- opencode: 1,708 (read 448, grep 294, glob 272, edit 457, write 237); {OPENCODE.source}." in text


def test_issue_6_cross_check_only_on_the_shared_set(tmp_path: Path) -> None:
    run = _small_run(tmp_path)
    assert not cross_check_applies(summary(run))
    assert "issue 6 cross-check" not in markdown(run, "cmd")
    assert cross_check_applies({"traces": 32, "servable_reads": 282})


def test_dedup_strategies_cost_what_their_setting_does(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    (tree / "pkg" / "long.py").write_text(_long_module())  # big enough for a stub to pay
    ops = [{"op": "read", "path": "pkg/long.py", "offset": None, "limit": None, "step": n} for n in (1, 2)]
    run = ReplayRun(pick_strategies(["leanread", "leanread-dedup-on", "leanread-dedup-off"]))
    run.results.append(replay(load_trace(_trace(tmp_path, ops)), _source(tree), run.strategies, tmp_dir=tmp_path))
    result = run.results[0]
    assert result.notes["leanread"] == result.notes["leanread-dedup-on"] == {"reads: full": 1, "reads: stub": 1}
    assert result.notes["leanread-dedup-off"]["reads: full"] == 2
    first = next(r for r in result.rows if r["step"] == 1)["tokens"]["leanread-dedup-off"]
    assert result.tokens["leanread-dedup-off"]["read"] == 2 * first > result.tokens["leanread"]["read"]
