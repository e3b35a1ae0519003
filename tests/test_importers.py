"""``leanread bench import``: agents' own logs as replay traces, checked on real samples.

``fixtures/importers/psf__requests-1142.traj.json`` is the first 8 steps of a real mini-swe-agent
trajectory (github.com/gruckion/mini-swe-agent, MIT); the expected ops are the same steps of
``shared/traces``. The SWE-agent Java trajectories of ``shared/traces-raw`` are read where they are
(no licence is given for them, so they are not copied here)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from leanread.bench.importers import converter, import_files
from leanread.bench.importers.shell import ShellMapper
from leanread.bench.replay.linerange import resolve_lines
from leanread.errors import LeanreadError

FIXTURES = Path(__file__).parent / "fixtures" / "importers"
CHECKOUT = Path(__file__).resolve().parents[1]
SHARED = next((p for p in (CHECKOUT.parent / "shared", CHECKOUT.parent.parent / "shared") if p.is_dir()), None)
JAVA = SHARED / "traces-raw" / "swe-agent-java" if SHARED else None
needs_java = pytest.mark.skipif(JAVA is None or not JAVA.is_dir(), reason="shared/traces-raw is not here")


def rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def test_mini_swe_agent_sample_gives_the_shared_traces_ops() -> None:
    (trace,) = converter("mini-swe-agent")(FIXTURES / "psf__requests-1142.traj.json", {})
    assert trace.ops == rows(FIXTURES / "psf__requests-1142.mini-expected.jsonl")
    assert trace.header["n_steps"] == 8
    assert trace.header["agent"] == "mini-swe-agent 1.15.0 (bash only)"
    assert trace.header["final_patch_dropped_files"] == 1
    assert trace.header["final_patch"].startswith("diff --git a/requests/models.py")


@pytest.mark.parametrize(
    ("cmd", "ops"),
    [
        ("cat a.py", [{"op": "read", "path": "a.py", "offset": None, "limit": None, "cmd": "cat a.py"}]),
        (
            "nl -ba /testbed/a.py | sed -n '3,5p;9,9p'",
            [
                {
                    "op": "read",
                    "path": "a.py",
                    "offset": 3,
                    "limit": 3,
                    "cmd": "nl -ba /testbed/a.py | sed -n '3,5p;9,9p'",
                },
                {
                    "op": "read",
                    "path": "a.py",
                    "offset": 9,
                    "limit": 1,
                    "cmd": "nl -ba /testbed/a.py | sed -n '3,5p;9,9p'",
                },
            ],
        ),
        (
            "tail -n 20 a.py",
            [{"op": "read", "path": "a.py", "offset": None, "limit": None, "tail": 20, "cmd": "tail -n 20 a.py"}],
        ),
        (
            'cd /testbed && grep -rn "x y" src --include=*.py',
            [
                {
                    "op": "grep",
                    "pattern": "x y",
                    "path": "src",
                    "flags": ["-rn", "--include=*.py"],
                    "cmd": 'grep -rn "x y" src --include=*.py',
                }
            ],
        ),
        ("find . -name '*.cfg'", [{"op": "glob", "pattern": "*.cfg", "path": ".", "cmd": "find . -name '*.cfg'"}]),
        ("cat <<'EOF' > n.txt\nhello\nEOF", [{"op": "write", "path": "n.txt", "content": "hello\n"}]),
        ("sed -i 's/a/b/' a.py", [{"op": "shell", "cmd": "sed -i 's/a/b/' a.py", "mutates": ["a.py"]}]),
        ("git checkout a.py", [{"op": "shell", "cmd": "git checkout a.py", "mutates": True}]),
        (
            "sed -n '/def f/,/return/p' a.py",
            [{"op": "shell", "reads": ["a.py"], "cmd": "sed -n '/def f/,/return/p' a.py"}],
        ),
        ("pytest -q", [{"op": "shell", "cmd": "pytest -q"}]),
    ],
)
def test_shell_commands_map_as_the_shared_traces_do(cmd: str, ops: list[dict[str, object]]) -> None:
    assert ShellMapper("/testbed").ops(cmd) == ops


def test_a_python_script_the_agent_wrote_mutates_the_files_it_opens_for_writing() -> None:
    mapper = ShellMapper("/testbed")
    script = "p = 'pkg/mod.py'\nwith open(p, 'w') as f:\n    f.write('x')\n"
    mapper.ops(f"cat <<'EOF' > fix.py\n{script}EOF")
    assert mapper.ops("python3 fix.py") == [{"op": "shell", "cmd": "python3 fix.py", "mutates": ["pkg/mod.py"]}]


OPENHANDS = {
    "fncall_messages": [
        {"role": "system", "content": "You are OpenHands agent."},
        {"role": "user", "content": "Fix it."},
        *[
            m
            for n, (name, args, answer) in enumerate(
                [
                    (
                        "str_replace_editor",
                        {"command": "view", "path": "/workspace/o__r__1.0/a.py", "view_range": [3, -1]},
                        "x",
                    ),
                    (
                        "str_replace_editor",
                        {"command": "str_replace", "path": "/workspace/o__r__1.0/a.py", "old_str": "a", "new_str": "b"},
                        "ERROR:\nNo replacement was performed, old_str `a`\nmore",
                    ),
                    (
                        "execute_bash",
                        {"command": "cd /workspace/o__r__1.0 && grep -n foo a.py"},
                        "3:foo\n[Command finished with exit code 0]",
                    ),
                    ("think", {"thought": "hmm"}, "ok"),
                    ("execute_bash", {"command": "C-c", "is_input": "true"}, "^C"),
                ]
            )
            for m in (
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {"id": f"t{n}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
                    ],
                },
                {"role": "tool", "tool_call_id": f"t{n}", "name": name, "content": answer},
            )
        ],
    ]
}


def test_openhands_calls_map_to_ops(tmp_path: Path) -> None:
    log = tmp_path / "o__r-1" / "run.json"
    log.parent.mkdir()
    log.write_text(json.dumps(OPENHANDS), "utf-8")
    (trace,) = converter("openhands")(log, {})
    assert trace.header["orig_repo_root"] == "/workspace/o__r__1.0"
    assert trace.header["n_steps"] == 4
    assert trace.ops == [
        {"op": "read", "path": "a.py", "offset": 3, "limit": None, "step": 1, "obs_chars": 1},
        {
            "op": "edit",
            "path": "a.py",
            "old": "a",
            "new": "b",
            "error": "No replacement was performed, old_str `a`",
            "step": 2,
            "obs_chars": 53,
        },
        {
            "op": "grep",
            "pattern": "foo",
            "path": "a.py",
            "flags": ["-n"],
            "cmd": "grep -n foo a.py",
            "step": 3,
            "obs_chars": 41,
        },
        {"op": "shell", "cmd": "C-c", "input": True, "step": 4, "obs_chars": 2},
    ]


@needs_java
def test_swe_agent_java_trajectory_maps_its_commands() -> None:
    assert JAVA is not None
    path = JAVA / "fasterxml__jackson-databind-3701.traj"
    (trace,) = converter("swe-agent")(path, json.loads((JAVA / "sources.json").read_text("utf-8")))
    node = "src/main/java/com/fasterxml/jackson/databind/node/NodeCursor.java"
    test = "src/test/java/com/fasterxml/jackson/databind/node/CustomJsonNodeTest.java"
    brief = [{k: v for k, v in op.items() if k not in ("new", "obs_chars", "cmd")} for op in trace.ops]
    assert brief[:5] == [
        {"op": "glob", "pattern": "NodeCursor.java", "path": "src", "step": 1},
        {"op": "read", "path": node, "offset": 134, "limit": 100, "step": 2},
        {
            "op": "edit",
            "path": node,
            "lines": [198, 198],
            "old": "            _contents = ((ObjectNode) n).fields();\n",
            "step": 3,
        },
        {"op": "write", "path": test, "content": "\n", "step": 4},
        {"op": "edit", "path": test, "lines": [1, 1], "old": "\n", "step": 5},
    ]
    assert trace.ops[2]["new"] == "            _contents = n.fields();\n"
    assert trace.header["tree"] == {
        "kind": "debian-source",
        "package": "jackson-databind",
        "version": "2.14.0-1+deb12u1",
    }
    assert trace.header["orig_repo_root"] == "/fasterxml__jackson-databind"
    assert trace.header["resolved"] is False


@needs_java
def test_bench_import_cli_writes_one_trace_per_trajectory(tmp_path: Path) -> None:
    assert JAVA is not None
    files = sorted(str(p) for p in JAVA.glob("*.traj"))
    done = subprocess.run(
        [sys.executable, "-m", "leanread", "bench", "import", "swe-agent", *files, "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        env={**os.environ},
        check=True,
    )
    assert [Path(line).name for line in done.stdout.splitlines()] == [Path(f).stem + ".jsonl" for f in files]
    header = rows(tmp_path / "fasterxml__jackson-core-891.jsonl")[0]
    assert header["op_counts"] == {"glob": 1, "read": 1, "edit": 2, "write": 2, "shell": 2}


def test_unknown_format_is_named(tmp_path: Path) -> None:
    with pytest.raises(LeanreadError, match="Unknown trace format nope; choose from swe-agent, mini-swe-agent"):
        import_files("nope", [], tmp_path)


def test_line_range_edit_takes_the_files_lines_widened_until_unique(tmp_path: Path) -> None:
    file = tmp_path / "A.java"
    file.write_text("a\n}\nb\n}\nc\n", "utf-8")
    op = resolve_lines({"op": "edit", "path": "A.java", "lines": [4, 4], "new": "} // end\n"}, file)
    assert (op["old"], op["new"]) == ("b\n}\nc\n", "b\n} // end\nc\n")
    assert resolve_lines({"op": "edit", "lines": [2, 2], "new": "x\n", "error": "no"}, file) == {
        "op": "edit",
        "lines": [2, 2],
        "new": "x\n",
        "error": "no",
    }
