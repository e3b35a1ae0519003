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
        "  --offset <int>             1-based line number to start from (0 is taken as\n"
        "                             1). Default: 1.\n"
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
