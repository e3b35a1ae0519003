"""Outlines of real files, exact: each fixture under ``fixtures/outline`` (real open-source files,
their sources and licences in its README) against its golden ``.outline`` file.

After a deliberate change to outlines, rewrite the golden files with
``LEANREAD_UPDATE_GOLDEN=1 pytest tests/test_outline_fixtures.py`` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from leanread.code.outline import outline
from leanread.config.settings import Limits
from leanread.view.outlineview import render_outline
from leanread.view.render import cut_line

FIXTURES = Path(__file__).parent / "fixtures" / "outline"
#: fixture file → (the path it is outlined as, the language the outline must say)
CASES = {
    "direct_url.py.txt": ("direct_url.py", "python"),
    "nbagg_mpl.js": ("nbagg_mpl.js", "javascript"),
    "cancellation.ts": ("cancellation.ts", "typescript"),
    "main.go": ("main.go", "go"),
    "proxy.go": ("proxy.go", "go"),
    "main.rs": ("main.rs", "rust"),
    "MutablePair.java": ("MutablePair.java", "java"),
    "datetime.h": ("datetime.h", "c"),
    "extension.cpp": ("extension.cpp", "cpp"),
    "README.md": ("README.md", "markdown"),
    "metaschema.json": ("metaschema.json", "json"),
    "ci.yml": ("ci.yml", "yaml"),
    "pyproject.toml": ("pyproject.toml", "toml"),
    "dpkg.log": ("dpkg.log", "log"),
}


def _lines(name: str) -> list[str]:
    lines = (FIXTURES / name).read_text(encoding="utf-8").split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _rendered(name: str) -> str:
    """The model-visible outline of fixture ``name``: the text between ``<content>`` and
    ``</content>``, a trailing newline added."""
    path, _ = CASES[name]
    lines = _lines(name)
    text, _ = render_outline(path, outline(path, lines), lambda n: lines[n - 1], Limits())
    return text.split("<content>\n", 1)[1].rsplit("\n</content>", 1)[0] + "\n"


@pytest.mark.parametrize("name", sorted(CASES))
def test_outline_of_a_real_file_is_exactly_its_golden(name: str) -> None:
    golden = FIXTURES / f"{name}.outline"
    got = _rendered(name)
    if os.environ.get("LEANREAD_UPDATE_GOLDEN"):
        golden.write_text(got, encoding="utf-8")
    assert got == golden.read_text(encoding="utf-8")
    path, language = CASES[name]
    assert outline(path, _lines(name)).language == language


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_row_shows_the_line_its_first_number_names(name: str) -> None:
    lines = _lines(name)
    limit = Limits().max_line_chars
    rows = [row for row in _rendered(name).split("\n")[1:] if row and row[0].isdigit()]
    assert rows
    for row in rows:
        label, text = row.split("\t", 1)
        first, _, last = label.partition("-")
        assert cut_line(lines[int(first) - 1], limit) == text, row
        assert not last or int(last) > int(first)
