"""``read(symbol=…)`` without a path and ``grep(symbol=…)`` through the library, MCP and the CLI."""

from __future__ import annotations

import email
import shutil
import textwrap
from pathlib import Path

import pytest
from conftest import text_of
from mcp.client import Client
from typer.testing import CliRunner

from leanread.cli.main import app
from leanread.ledger.store import MemoryLedger
from leanread.mcp.server import build_server
from leanread.session import Session

FILES = {
    "shop/__init__.py": "from .store import Store as Store\n",
    "shop/store.py": """
        class Store:
            def get(self, key):
                return self.items[key]

            def put(self, key, value):
                self.get(key)
        """,
    "shop/cache.py": """
        class Cache:
            def get(self, key):
                return None
        """,
    "app.py": """
        from shop import Store as S

        def main():
            S.get(S(), 1)
        """,
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    for name, text in FILES.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return folder


def test_one_definition_is_read_and_recorded_so_it_can_be_edited(root: Path) -> None:
    session = Session([root], ledger=MemoryLedger())
    result = session.read(symbol="Store.put")
    assert not result.is_error
    assert result.text == (
        "(Store.put: defined in shop/store.py, lines 5-6.)\n"
        "<path>shop/store.py</path>\n<type>file</type>\n<content>\n"
        "    def put(self, key, value):\n        self.get(key)\n\n(End of file - total 6 lines)\n</content>"
    )
    assert result.metadata["definitions"] == [
        {"path": "shop/store.py", "name": "Store.put", "kind": "method", "first": 5, "last": 6, "line": 5}
    ]
    edited = session.edit("shop/store.py", "        self.get(key)", "        return self.get(key)")
    assert not edited.is_error, edited.text


def test_several_definitions_come_as_a_ranked_list_and_none_as_one_sentence(root: Path) -> None:
    session = Session([root], ledger=MemoryLedger())
    assert session.read(symbol="get").text == (
        "2 definitions of get, likeliest first:\n"
        "shop/cache.py:2-3 (in Cache): def get(self, key):\n"
        '  read(path="shop/cache.py", offset=2, limit=2)\n'
        "shop/store.py:2-3 (in Store): def get(self, key):\n"
        '  read(path="shop/store.py", offset=2, limit=2)'
    )
    missing = session.read(symbol="Basket.total")
    assert (missing.is_error, missing.text) == (
        False,
        'No definition of Basket.total in the 4 indexed files; search the text with grep(pattern="total").',
    )


def test_an_edit_is_seen_by_the_next_lookup(root: Path) -> None:
    session = Session([root], ledger=MemoryLedger())
    assert session.read(symbol="Cache.clear").text.startswith("No definition of Cache.clear")
    (root / "shop" / "cache.py").write_text("class Cache:\n    def clear(self):\n        pass\n")
    assert session.read(symbol="Cache.clear").text.startswith("(Cache.clear: defined in shop/cache.py, lines 2-3.)")


def test_grep_symbol_lists_the_uses_labelled_and_narrows_to_a_path(root: Path) -> None:
    session = Session([root], ledger=MemoryLedger())
    assert session.grep(symbol="S.get").text == (
        "Uses of S.get (defined at shop/store.py:2): 2 uses in 2 files (1 import-resolved, 1 same-file).\n"
        "app.py · main\n"
        "  4 import-resolved:     S.get(S(), 1)\n"
        "shop/store.py · Store.put\n"
        "  6 same-file:         self.get(key)"
    )
    narrowed = session.grep(symbol="S.get", path="shop")
    assert narrowed.text.splitlines()[1:] == ["shop/store.py · Store.put", "  6 same-file:         self.get(key)"]
    both = session.grep("get", symbol="S.get")
    assert both.is_error and both.text == "Pass either pattern or symbol, not both; symbol finds a name's uses."
    neither = session.grep()
    assert neither.is_error and "or symbol=NAME" in neither.text


@pytest.mark.anyio
async def test_the_lookups_work_over_mcp(root: Path) -> None:
    async with Client(build_server([root], ledger=MemoryLedger())) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        one = await client.call_tool("read", {"symbol": "Store.get"})
        uses = await client.call_tool("grep", {"symbol": "Store.get"})
    assert "symbol" in tools["grep"].input_schema["properties"]
    assert text_of(one).startswith("(Store.get: defined in shop/store.py, lines 2-3.)\n<path>shop/store.py</path>")
    assert text_of(uses).startswith("Uses of Store.get (defined at shop/store.py:2): 2 uses in 2 files")


def test_the_lookups_work_from_the_command_line(root: Path) -> None:
    runner = CliRunner()
    read = runner.invoke(app, ["read", "--root", str(root), "--symbol", "Cache.get"])
    uses = runner.invoke(app, ["grep", "--root", str(root), "--symbol", "Store.get", "shop"])
    assert read.exit_code == 0 and read.stdout.startswith("(Cache.get: defined in shop/cache.py, lines 2-3.)")
    assert uses.exit_code == 0
    assert uses.stdout.splitlines()[1:] == ["shop/store.py · Store.put", "  6 same-file:         self.get(key)"]


def test_a_big_class_comes_as_its_members_map(root: Path) -> None:
    methods = "".join(f"    def m{i}(self):\n        return {i}\n\n" for i in range(12))
    (root / "shop" / "big.py").write_text("class Big:\n" + methods)
    text = Session([root], ledger=MemoryLedger()).read(symbol="Big").text
    lines = text.splitlines()
    assert lines[:4] == [
        "(Big: a class in shop/big.py, lines 1-36; its members:)",
        "1-36\tclass Big:",
        "2-3\t  def m0(self):",
        "5-6\t  def m1(self):",
    ]
    assert (
        lines[-1]
        == '(Read a member with read(path="shop/big.py", offset=2, limit=2), the whole with offset=1, limit=36.)'
    )
    assert len(lines) == 15


PART = """
    from email.message import MIMEPart


    class Part(MIMEPart):
        def kind(self):
            return self.get_content_type()


    class Own(MIMEPart):
        def get_content_type(self):
            return "text/plain"

        def kind(self):
            return self.get_content_type()
    """


@pytest.fixture
def mail(tmp_path: Path) -> Path:
    """A workspace of the standard library's email package and a module subclassing its MIMEPart."""
    folder = tmp_path / "mail"
    shutil.copytree(Path(email.__file__).parent, folder / "email", ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "shop").mkdir()
    (folder / "shop" / "part.py").write_text(textwrap.dedent(PART).lstrip("\n"))
    return folder


def _line_of(path: Path, *parts: str, after: str = "") -> int:
    """The number of the first line of ``path``, from the line starting with ``after`` on, that
    holds every one of ``parts``."""
    lines = path.read_text().split("\n")
    start = next(n for n, line in enumerate(lines) if line.startswith(after))
    return next(n + 1 for n in range(start, len(lines)) if all(p in lines[n] for p in parts))


def test_a_uses_row_shows_its_line_as_the_file_has_it(mail: Path) -> None:
    generator = mail / "email" / "generator.py"
    number = _line_of(generator, "'type'", "get_content_type")
    line = generator.read_text().split("\n")[number - 1]
    assert "'type'       : part.get_content_type()," in line  # runs of spaces, and the indentation
    result = Session([mail], ledger=MemoryLedger()).grep(symbol="Message.get_content_type")
    assert f"  {number} name-only: {line}" in result.text.split("\n")


def test_a_long_uses_row_is_cut_around_the_use_as_grep_cuts_it(root: Path) -> None:
    line = "VALUES = [" + "0, " * 150 + "Store.get(None, 1)]"
    (root / "wide.py").write_text(f"from shop.store import Store\n\n{line}\n")
    result = Session([root], ledger=MemoryLedger()).grep(symbol="Store.get", path="wide.py")
    assert len(line) == 479 and line[466:469] == "get"
    assert result.text.split("\n")[1:] == [
        "wide.py · VALUES",
        f"  3 import-resolved: …{line[239:]} [line cut: match at column 467 of 479 chars; read on with offset=3, "
        "char_offset=240]",
    ]


def test_self_in_a_subclass_is_labelled_by_where_its_base_is(mail: Path) -> None:
    message = mail / "email" / "message.py"
    in_subclass = _line_of(message, "self.get_content_type()", after="class MIMEPart(Message):")
    result = Session([mail], ledger=MemoryLedger()).grep(symbol="Message.get_content_type")
    labels = {(r["path"], r["line"]): (r["label"], r["enclosing"]) for r in result.metadata["references"]}
    assert labels[("email/message.py", in_subclass)] == ("same-file", "MIMEPart.iter_attachments")
    assert labels[("shop/part.py", 6)] == ("import-resolved", "Part.kind")  # Part(MIMEPart), MIMEPart(Message)
    assert labels[("shop/part.py", 14)] == ("name-only", "Own.kind")  # Own has its own get_content_type
    assert "shop/part.py · Part.kind\n  6 import-resolved:         return self.get_content_type()\n" in result.text


def test_a_definition_in_a_file_whose_name_is_escaped_is_read_and_its_uses_shown(root: Path) -> None:
    (root / "two\nlines.py").write_text("def only_here():\n    return only_here()\n")
    session = Session([root], ledger=MemoryLedger())
    read = session.read(symbol="only_here")
    assert read.text == (
        "(only_here: defined in two\\x0alines.py, lines 1-2.)\n<path>two\\x0alines.py</path>\n<type>file</type>\n"
        "<content>\ndef only_here():\n    return only_here()\n\n(End of file - total 2 lines)\n</content>"
    )
    uses = session.grep(symbol="only_here")
    assert uses.text == (
        "Uses of only_here (defined at two\\x0alines.py:1): 1 use in 1 file (1 same-file).\n"
        "two\\x0alines.py · only_here\n  2 same-file:     return only_here()"
    )
