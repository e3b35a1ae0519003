"""A command that needs an optional extra which is not installed says in one sentence which extra
to install, never with a traceback; ``bench replay`` keeps its results and exits 0 without the
chart. Each extra is made missing for real: a subprocess sets ``sys.modules[name] = None``
before running the CLI, so every import of it fails as in a plain ``pip install .``."""

from __future__ import annotations

import importlib.metadata
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from leanread.bench.documents import docx_bytes, epub_bytes, odt_bytes, pdf_bytes, png_bytes
from leanread.bench.replay.report import NO_CHART
from leanread.config.extras import EXTRA_OF, missing_extra

#: Run ``leanread ARGS…`` with the modules named (comma-separated) by the first argument made missing.
WITHOUT = (
    "import runpy, sys\n"
    "for name in sys.argv[1].split(','):\n"
    "    sys.modules[name] = None\n"
    "sys.argv = ['leanread', *sys.argv[2:]]\n"
    "runpy.run_module('leanread', run_name='__main__', alter_sys=True)\n"
)
PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def _without(modules: str, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", WITHOUT, modules, *args], capture_output=True, text=True, timeout=300, cwd=cwd
    )


def _lay_out_replay(tmp_path: Path) -> tuple[Path, Path]:
    tree = tmp_path / "cache" / "src" / "demo-1.0"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "mod.py").write_text("".join(f"value_{n} = {n}\n" for n in range(1, 61)))
    marker = {"kind": "sdist", "root": str(tree), "archive": "demo-1.0.tar.gz", "note": ""}
    (tmp_path / "cache" / "src" / "demo-1.0.source.json").write_text(json.dumps(marker))
    header = {"instance_id": "acme__demo-1", "repo": "acme/demo", "version": "1.0", "agent": "a", "model": "m"}
    ops = [
        {"op": "read", "path": "pkg/mod.py", "offset": None, "limit": None, "step": 1},
        {"op": "read", "path": "pkg/mod.py", "offset": 10, "limit": 5, "step": 2},
    ]
    (tmp_path / "traces").mkdir()
    trace = tmp_path / "traces" / "acme__demo-1__test.jsonl"
    trace.write_text("\n".join(json.dumps(row) for row in [header, *ops]) + "\n")
    return tmp_path / "traces", tmp_path / "cache"


def test_replay_without_matplotlib_keeps_its_results_and_names_the_extra(tmp_path: Path) -> None:
    traces, cache = _lay_out_replay(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "replay.png").write_bytes(b"\x89PNG an earlier run's chart")
    args = ["bench", "replay", "--traces", str(traces), "--cache", str(cache), "--out", str(out), "--jobs", "1"]
    done = _without("matplotlib", *args, "--strategy", "leanread", "--strategy", "opencode")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1] == NO_CHART
    assert NO_CHART == (
        "No chart was drawn: replay.png needs matplotlib, which the bench extra installs: "
        "pip install 'leanread[bench]'."
    )
    results = json.loads((out / "results.json").read_text())
    assert [trace["servable_reads"] for trace in results["traces"]] == [2]
    markdown = (out / "replay.md").read_text()
    assert done.stdout == markdown and "![tokens per strategy]" not in markdown
    assert sorted(path.name for path in out.iterdir()) == ["replay.md", "results.json"]  # no stale chart


@pytest.mark.parametrize(
    ("module", "extra"),
    [("matplotlib", "bench"), ("pypdf", "docs"), ("PIL", "docs"), ("docx", "docs"), ("ebooklib", "docs")],
)
def test_bench_documents_names_the_missing_extra(module: str, extra: str) -> None:
    done = _without(module, "bench", "documents")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        f"leanread bench documents needs {module}, which the {extra} extra installs: pip install 'leanread[{extra}]'.\n"
    )


def test_bench_documents_quotes_a_refused_read() -> None:
    done = _without("striprtf", "bench", "documents")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "leanread bench documents could not read menu.rtf: Reading RTF files needs the optional document support: "
        "pip install 'leanread[docs]'.\n"
    )


def test_inspect_without_jinja2_names_its_extra() -> None:
    done = _without("jinja2", "inspect", "--port", "0", "--ledger", "memory")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "leanread inspect needs jinja2, which the inspect extra installs: pip install 'leanread[inspect]'.\n"
    )


DOCUMENTS = [
    ("pypdf", "report.pdf", "PDF files"),
    ("docx", "notes.docx", "DOCX files"),
    ("odf", "notes.odt", "ODT files"),
    ("ebooklib", "guide.epub", "EPUB files"),
    ("striprtf", "menu.rtf", "RTF files"),
    ("PIL", "shot.png", "images"),
]


@pytest.fixture
def documents(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "report.pdf").write_bytes(pdf_bytes([["Quarterly report", "Revenue rose."]]))
    (folder / "notes.docx").write_bytes(docx_bytes())
    (folder / "notes.odt").write_bytes(odt_bytes())
    (folder / "guide.epub").write_bytes(epub_bytes())
    (folder / "menu.rtf").write_text(r"{\rtf1\ansi Soup of the day\par}")
    (folder / "shot.png").write_bytes(png_bytes(40, 30))
    return folder


@pytest.mark.parametrize(("module", "name", "kind"), DOCUMENTS)
def test_a_cli_read_without_the_docs_extra_is_one_sentence(
    documents: Path, module: str, name: str, kind: str
) -> None:
    done = _without(module, "read", name, "--root", str(documents))
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == f"Reading {kind} needs the optional document support: pip install 'leanread[docs]'.\n"


@pytest.mark.anyio
async def test_the_server_without_the_docs_extra_answers_each_read_in_one_sentence(documents: Path) -> None:
    modules = ",".join(module for module, _, _ in DOCUMENTS)
    args = ["-c", WITHOUT, modules, "serve", "--root", str(documents), "--ledger", "memory"]
    async with Client(StdioServerParameters(command=sys.executable, args=args)) as client:
        answers = [await client.call_tool("read", {"path": name}) for _, name, _ in DOCUMENTS]
    assert [(a.is_error, "".join(getattr(b, "text", "") for b in a.content)) for a in answers] == [
        (True, f"Reading {kind} needs the optional document support: pip install 'leanread[docs]'.")
        for _, _, kind in DOCUMENTS
    ]


@pytest.mark.parametrize("module", ["onnxruntime", "tokenizers"])
def test_dense_focus_without_its_extra_is_one_sentence(tmp_path: Path, module: str) -> None:
    (tmp_path / "mod.py").write_text("".join(f"def f{n}():\n    return {n}\n\n" for n in range(1, 80)))
    args = ["read", "mod.py", "--root", str(tmp_path), "--focus", "What does f7 return?", "--focus-backend", "hybrid"]
    done = _without(module, *args)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == f"Dense scoring needs {module}: pip install 'leanread[dense]'\n"


def _requirement_name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert match is not None
    return match.group(0).lower().replace("_", "-")


def test_the_table_is_the_extras_of_pyproject() -> None:
    extras = tomllib.loads(PYPROJECT.read_text())["project"]["optional-dependencies"]
    wanted = {_requirement_name(r): extra for extra, reqs in extras.items() if extra != "dev" for r in reqs}
    providers = importlib.metadata.packages_distributions()
    of_module = {
        module: {name.lower().replace("_", "-") for name in providers.get(module, [])} for module in EXTRA_OF
    }
    for module, extra in EXTRA_OF.items():  # each module is installed by a distribution of its extra
        assert any(wanted.get(dist) == extra for dist in of_module[module]), (module, of_module[module])
    for dist, extra in wanted.items():  # each distribution of an extra has its module in the table
        assert any(dist in dists and EXTRA_OF[m] == extra for m, dists in of_module.items()), dist


def test_a_module_of_no_extra_is_left_to_surface() -> None:
    assert missing_extra(ModuleNotFoundError("No module named 'yaml'", name="yaml")) is None
    assert missing_extra(ModuleNotFoundError("x", name="leanread.nothing")) is None
    named = missing_extra(ModuleNotFoundError("x", name="matplotlib.pyplot"), "leanread bench replay")
    assert str(named) == (
        "leanread bench replay needs matplotlib, which the bench extra installs: pip install 'leanread[bench]'."
    )
