"""What a newcomer meets in the first five minutes: the CLI's help, its errors and the small
refusals that name the next step (issue 20)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from leanread import Session

COMMANDS = ["read", "grep", "ls", "serve", "demo", "bench"]


def _leanread(*args: str, cwd: Path, columns: int = 80) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": str(columns), "TERM": "dumb"}
    return subprocess.run(
        [sys.executable, "-m", "leanread", *args], cwd=cwd, capture_output=True, text=True, timeout=60, env=env
    )


@pytest.mark.parametrize("command", COMMANDS)
def test_help_reads_well_at_80_columns(command: str, tmp_path: Path) -> None:
    done = _leanread(command, "--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    # option descriptions start by column 34 (click's 30-column name cap, its gap and indent), so a
    # wrapped description keeps at least 46 columns a line
    descriptions = [line for line in lines if line.startswith("  --")]
    assert descriptions, done.stdout
    for line in descriptions:
        name, _, text = line[2:].partition("  ")
        assert len(name) > 30 or text.strip() == "" or line.index(text.strip()) <= 34, line


def test_read_help_wraps_a_description_in_full_lines(tmp_path: Path) -> None:
    out = _leanread("read", "--help", cwd=tmp_path).stdout
    assert (
        "  --format <str>             plain: lines as in the file; tab: `41<TAB>code`;\n"
        "                             colon: `41: code`; catn: `cat -n`; visible: tabs\n"
        "                             as ^I, controls as ^X, `$` at line ends.\n"
    ) in out


def test_match_id_without_session_names_the_flag(tmp_path: Path) -> None:
    done = _leanread("read", "--match-id", "m1", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        "--match-id needs --session: match ids live in a ledger session, so run "
        "`leanread grep PATTERN --session NAME`, then `leanread read --match-id m1 --session NAME`.\n"
    )


def test_char_offset_without_offset_says_what_it_needs(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("abcdef\n")
    result = Session([tmp_path]).read("a.txt", char_offset=3)
    assert result.is_error
    assert result.text == "char_offset needs offset: pass offset=N too to read line N from that character on."


def test_a_relative_path_is_looked_for_in_every_root(tmp_path: Path) -> None:
    roots = [tmp_path / name for name in ("a", "b", "c")]
    for root in roots:
        root.mkdir()
    (roots[0] / "only_a.txt").write_text("A\n")
    (roots[1] / "only_b.txt").write_text("B\n")
    (roots[1] / "both.txt").write_text("B\n")
    (roots[2] / "both.txt").write_text("C\n")
    (roots[0] / "first.txt").write_text("first\n")
    (roots[2] / "first.txt").write_text("third\n")
    session = Session(roots)
    assert session.read("only_a.txt").text.startswith("<path>only_a.txt</path>")
    assert session.read("first.txt").text.startswith("<path>first.txt</path>")  # the first root wins
    found = session.read("only_b.txt")
    assert found.text.startswith(f"<path>{roots[1] / 'only_b.txt'}</path>")
    both = session.read("both.txt")
    assert both.is_error and both.text == (
        f"both.txt is not in the first workspace root but is in 2 others ({roots[1] / 'both.txt'}, "
        f"{roots[2] / 'both.txt'}); pass the absolute path of the one you mean."
    )
    missing = session.read("nothing.txt")
    assert missing.text == (
        "File not found: nothing.txt. Check the spelling, or list its folder to see what exists. "
        f"(Looked in every workspace root: {', '.join(str(r) for r in roots)}.)"
    )
    assert session.edit("only_b.txt", "B", "BB").is_error is False  # the grant of that read holds
    assert (roots[1] / "only_b.txt").read_text() == "BB\n"
