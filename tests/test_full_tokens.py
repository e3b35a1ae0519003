"""``full_tokens``: every answer's metadata says what the plain full answer it stands for costs,
checked against the real plain answer (a read with ``mode="full"`` in a fresh session)."""

from __future__ import annotations

import json
import shutil
import tarfile
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leanread import MemoryLedger, Session
from leanread.bench.documents import png_bytes
from leanread.memo import LRU
from leanread.result import ToolResult
from leanread.tokens import count_tokens
from leanread.tools.read import image as image_reader


def plain_read(root: Path, path: str, **args: Any) -> ToolResult:
    """The plain full read of a request: a session that has seen nothing reads it with ``mode="full"``."""
    result = Session([root], ledger=MemoryLedger()).read(path, mode="full", **args)
    assert not result.is_error and result.metadata["mode"] == "full", result.text
    return result


def module(functions: int, body: int = 3) -> str:
    """A Python module of ``functions`` functions of ``body`` lines each, a class around half of them."""
    out = ['"""A generated module."""', "import os", ""]
    for i in range(functions):
        indent = "    " if i % 2 else ""
        if i % 2 == 0:
            out.append(f"class Holder{i}:")
            out.append(f'    """Holds item {i}."""')
            indent = "    "
        out.append(f"{indent}def function_{i}(self, value):")
        out += [f"{indent}    total_{j} = value * {i + j}  # step {j} of {body}" for j in range(body)]
        out.append(f"{indent}    return total_{body - 1}")
        out.append("")
    return "\n".join(out) + "\n"


def markdown(sections: int) -> str:
    return "".join(
        f"# Part {i}\n\n" + "".join(f"Sentence {j} of part {i}.\n" for j in range(12)) for i in range(sections)
    )


#: Files whose whole read gives an outline: one that fits one window, one over ``max_lines``, one
#: over ``max_bytes`` in few lines, and Markdown.
OUTLINED = {
    "fits.py": module(60),
    "long.py": module(500),
    "wide.py": "".join(f"def f{i}(x):\n    return '{'w' * 180}{i}'\n\n" for i in range(400)),
    "notes.md": markdown(30),
}


@pytest.mark.parametrize("name", sorted(OUTLINED))
def test_an_outline_and_its_stub_cost_the_plain_read_of_the_whole_file(root: Path, session: Session, name: str) -> None:
    (root / name).write_text(OUTLINED[name])
    plain = plain_read(root, name)
    first = session.read(name)
    again = session.read(name)
    assert (first.metadata["mode"], again.metadata["mode"]) == ("outline", "stub")
    assert first.metadata["full_tokens"] == again.metadata["full_tokens"] == plain.metadata["tokens"]
    assert again.metadata["tokens"] < first.metadata["tokens"] < plain.metadata["tokens"]
    later = session.read(name, mode="outline", offset=150)
    assert later.metadata["full_tokens"] == plain_read(root, name, offset=150).metadata["tokens"]


def test_a_symbol_read_costs_the_plain_read_of_the_whole_file(root: Path, session: Session) -> None:
    (root / "long.py").write_text(OUTLINED["long.py"])
    (root / "fits.py").write_text(OUTLINED["fits.py"])
    for name, symbol in (("long.py", "Holder300.function_301"), ("fits.py", "function_0"), ("long.py", "Holder2")):
        result = session.read(name, symbol=symbol)
        assert result.metadata["mode"] == "full", result.text
        assert result.metadata["full_tokens"] == plain_read(root, name).metadata["tokens"]
        assert result.metadata["tokens"] < result.metadata["full_tokens"]


def test_a_symbol_found_in_the_workspace_costs_the_plain_read_of_its_whole_file(root: Path) -> None:
    shutil.copy(tarfile.__file__, root / "tarfile.py")
    whole = plain_read(root, "tarfile.py").metadata["tokens"]
    by_path = Session([root], ledger=MemoryLedger()).read("tarfile.py", symbol="TarInfo.frombuf")
    for where in (None, "."):  # the workspace's definitions, then the root folder's
        session = Session([root], ledger=MemoryLedger())
        found = session.read(where, symbol="TarInfo.frombuf")
        assert found.text.startswith("(TarInfo.frombuf: defined in tarfile.py, lines "), found.text
        assert found.metadata["full_tokens"] == by_path.metadata["full_tokens"] == whole
        assert found.metadata["tokens"] == count_tokens(found.text) < whole
        again = session.read(where, symbol="TarInfo.frombuf")
        assert again.metadata["mode"] == "stub" and again.metadata["full_tokens"] == whole


def test_a_big_class_found_in_the_workspace_its_map_costs_the_whole_files_read_instructions_included(
    root: Path,
) -> None:
    (root / "pkg").mkdir()
    (root / "pkg" / "AGENTS.md").write_text("Run the tests with make test before every commit.\n")
    shutil.copy(tarfile.__file__, root / "pkg" / "tarfile.py")
    whole = plain_read(root, "pkg/tarfile.py")
    assert "<system-reminder>" in whole.text
    for symbol in ("TarInfo", "TarInfo.frombuf"):
        found = Session([root], ledger=MemoryLedger()).read(symbol=symbol)
        assert found.metadata["full_tokens"] == whole.metadata["tokens"], symbol
    mapped = Session([root], ledger=MemoryLedger()).read(symbol="TarInfo")
    assert mapped.text.startswith("(TarInfo: a class in pkg/tarfile.py, lines "), mapped.text
    assert mapped.metadata["tokens"] == count_tokens(mapped.text)


def test_a_list_of_definitions_and_none_cost_what_they_show(root: Path, session: Session) -> None:
    shutil.copy(tarfile.__file__, root / "tarfile.py")
    (root / "other.py").write_text("class Other:\n    def frombuf(self):\n        return b''\n")
    listed = session.read(symbol="frombuf")
    assert listed.text.startswith("2 definitions of frombuf, likeliest first:\n"), listed.text
    none = session.read(symbol="NoSuchName")
    uses = session.grep(symbol="TarInfo.frombuf")
    for result in (listed, none, uses):
        assert result.metadata["full_tokens"] == result.metadata["tokens"] == count_tokens(result.text)


def test_instruction_files_count_in_both(root: Path) -> None:
    (root / "pkg").mkdir()  # an instruction file below the root (the root's own the client loads)
    (root / "pkg" / "AGENTS.md").write_text("Run the tests with make test before every commit.\n" * 3)
    (root / "pkg" / "long.py").write_text(OUTLINED["long.py"])
    (root / "pkg" / "small.py").write_text(module(3))
    for name, args in (
        ("pkg/long.py", {}),
        ("pkg/small.py", {"offset": 2, "limit": 5}),
        ("pkg/long.py", {"symbol": "Holder4"}),
    ):
        session = Session([root], ledger=MemoryLedger())
        result = session.read(name, **args)
        assert "<system-reminder>" in result.text
        plain = plain_read(root, name, **{k: v for k, v in args.items() if k != "symbol"})
        assert "<system-reminder>" in plain.text
        assert result.metadata["full_tokens"] == plain.metadata["tokens"]


@pytest.mark.parametrize(
    ("size", "sent", "image_tokens"),
    [
        ((300, 200), (300, 200), 80),  # 300 * 200 / 750
        ((2400, 1000), (2000, 833), 1366),  # the API scales 2000x833 to 1568x653 first
        ((1200, 1200), (1200, 1200), 1600),  # 1,920 by the formula: the API scales it to about 1,600
    ],
)
def test_an_image_read_counts_its_image_and_a_stub_saves_it(
    root: Path,
    session: Session,
    monkeypatch: pytest.MonkeyPatch,
    size: tuple[int, int],
    sent: tuple[int, int],
    image_tokens: int,
) -> None:
    name = "shot.png"
    (root / name).write_bytes(png_bytes(*size, "navy"))
    first = session.read(name)
    again = session.read(name)
    assert (first.images[0].width, first.images[0].height) == sent
    assert first.metadata["image_tokens"] == image_tokens
    assert first.metadata["tokens"] == first.metadata["full_tokens"] == count_tokens(first.text) + image_tokens
    assert again.metadata["unchanged_since"] == [first.metadata["call_id"]]
    assert again.metadata["tokens"] == count_tokens(again.text) < 60
    assert again.metadata["full_tokens"] == first.metadata["tokens"]
    monkeypatch.setattr(image_reader, "_FULL_TOKENS", LRU(4))  # a process that did not make the full answer
    assert session.read(name).metadata["full_tokens"] == first.metadata["tokens"]


def test_a_notebook_read_its_stub_and_markers_cost_its_cells(root: Path) -> None:
    cells = [{"cell_type": "code", "source": [f"value_{i} = {i}\n", "print(value_{i})"], "metadata": {},
              "outputs": [], "execution_count": i} for i in range(40)]  # fmt: skip
    notebook = {"cells": cells, "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    (root / "lab").mkdir()
    (root / "lab" / "AGENTS.md").write_text("Clear the outputs before you commit a notebook.\n")
    (root / "lab" / "work.ipynb").write_text(json.dumps(notebook))
    session = Session([root], ledger=MemoryLedger())
    first = session.read("lab/work.ipynb", offset=5, limit=30)
    again = session.read("lab/work.ipynb", offset=5, limit=30)
    part = session.read("lab/work.ipynb", offset=20, limit=30)
    assert "<system-reminder>" in first.text
    assert (again.metadata["mode"], part.metadata["mode"]) == ("stub", "elided")

    def plain(offset: int, attached: bool) -> int:
        """A notebook's plain read is its cells (``mode="full"`` gives its JSON); the instruction
        file only with the session's first read below ``lab``."""
        other = Session([root], ledger=MemoryLedger())
        if attached:
            other.read("lab/work.ipynb", offset=40, limit=1)
        return int(other.read("lab/work.ipynb", offset=offset, limit=30, fresh=True).metadata["tokens"])

    assert first.metadata["full_tokens"] == first.metadata["tokens"] == plain(5, False)
    assert again.metadata["full_tokens"] == plain(5, True) < plain(5, False)
    assert part.metadata["full_tokens"] == plain(20, True)


def test_grep_ls_edit_and_write_say_their_plain_cost(root: Path, session: Session) -> None:
    for i in range(6):
        (root / f"part_{i}.py").write_text(
            "".join(
                f'def step_{i}_{j}(item):\n    """Handle step {j} of stage {i}."""\n    return item\n' for j in range(6)
            )
        )
    (root / "shipping.py").write_text(
        'def parcel_cost(item):\n    """The shipping cost of a parcel from its weight."""\n    return item\n'
    )
    question = "Where is the shipping cost of a parcel computed from its weight?"
    focused = session.grep("^def ", after=2, focus=question)
    assert "kept_matches" in focused.metadata["focus"]
    unfocused = Session([root], ledger=MemoryLedger()).grep("^def ", after=2)
    assert focused.metadata["full_tokens"] == unfocused.metadata["tokens"] > focused.metadata["tokens"]
    for result in (
        unfocused,
        session.grep("^def ", files_only=True),
        session.ls(),
        session.read("."),
        session.edit("shipping.py", "return item", "return item * 2"),
        session.write("new.py", "x = 1\n"),
    ):
        assert not result.is_error, result.text
        assert result.metadata["full_tokens"] == result.metadata["tokens"] > 0


STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("window"), st.integers(1, 283), st.integers(1, 120)),
        st.tuples(st.just("whole"), st.just(0), st.just(0)),
        st.tuples(st.just("symbol"), st.integers(0, 39), st.just(0)),
        st.tuples(st.just("tab"), st.integers(1, 283), st.integers(1, 60)),
        st.tuples(st.just("outline"), st.integers(1, 283), st.just(0)),
        st.tuples(st.just("change"), st.integers(0, 39), st.just(0)),
        st.tuples(st.just("forget"), st.just(0), st.just(0)),
    ),
    min_size=1,
    max_size=7,
)


@settings(max_examples=25, deadline=None)
@given(STEPS)
def test_every_read_after_any_history_costs_its_plain_read(steps: list[tuple[str, int, int]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        path = root / "mod.py"
        path.write_text(module(40))
        session = Session([root], ledger=MemoryLedger())
        for kind, a, b in steps:
            plain_args: dict[str, Any] = {}
            if kind == "change":  # an outside edit: the next reads are diffs or markers
                text = path.read_text().replace(f"value * {a} ", f"value * {a + 1000} ", 1)
                path.write_text(text)
                continue
            if kind == "forget":
                session.forget([c for c in session.ledger.call_states(session.id)][-1:])
                continue
            if kind == "window":
                result = session.read("mod.py", offset=a, limit=b)
                plain_args = {"offset": a, "limit": b}
            elif kind == "tab":
                result = session.read("mod.py", offset=a, limit=b, format="tab")
                plain_args = {"offset": a, "limit": b}
            elif kind == "outline":
                result = session.read("mod.py", mode="outline", offset=a)
                plain_args = {"offset": a}
            elif kind == "symbol":
                result = session.read("mod.py", symbol=f"function_{a}" if a % 2 == 0 else f"Holder{a - 1}.function_{a}")
            else:
                result = session.read("mod.py")
            assert not result.is_error, result.text
            assert result.metadata["full_tokens"] == plain_read(root, "mod.py", **plain_args).metadata["tokens"], (
                kind,
                result.metadata["mode"],
            )
