"""The bash-agent replay strategies: ``bash`` prints what the agent's own commands printed,
``leanread-cli`` what ``leanread read`` in one ``$LEANREAD_SESSION`` prints."""

from __future__ import annotations

import re
import stat
import subprocess
from pathlib import Path

from leanread.bench.replay.calls import GrepCall, Hit, ReadCall, snapshot
from leanread.bench.replay.engine import _scratch_folder
from leanread.bench.replay.strategies import available
from leanread.bench.replay.strategies.bash_agent import Bash, LeanreadCli
from leanread.bench.replay.strategies.bash_leanread import BashLeanread
from leanread.tokens import count_tokens

LINES = [f"line {i}" for i in range(1, 13)]


def call(root: Path, offset: int | None, limit: int | None, cmd: str) -> ReadCall:
    file = snapshot(root, "f.txt")
    assert file is not None
    return ReadCall("f.txt", offset, limit, file, cmd=cmd)


def test_bash_prints_what_the_commands_printed(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("".join(f"{line}\n" for line in LINES))
    bash = Bash(tmp_path)
    for cmd, offset, limit in [
        ("nl -ba f.txt | sed -n '3,5p'", 3, 3),
        ("sed -n '3,5p' f.txt", 3, 3),
        ("head -n 4 f.txt", None, 4),
        ("cat f.txt", None, None),
        ("cat -n f.txt", None, None),
    ]:
        shell = subprocess.run(["sh", "-c", cmd], cwd=tmp_path, capture_output=True, text=True, check=True)
        assert bash.read(call(tmp_path, offset, limit, cmd)) == shell.stdout, cmd


def test_leanread_cli_is_the_commands_stdout_in_one_session(tmp_path: Path) -> None:
    # eight lines of 14 tokens: their stub pays (leanread.marks)
    (tmp_path / "f.txt").write_text(
        "".join(f"{line} of a file whose windows are long enough to stub\n" for line in LINES)
    )
    cli = LeanreadCli(tmp_path)
    first = cli.read(call(tmp_path, 3, 8, "sed -n '3,10p' f.txt"))
    again = cli.read(call(tmp_path, 3, 8, "sed -n '3,10p' f.txt"))
    assert first.endswith("(Showing lines 3-10 of 12. Use offset=11 to continue.)\n</content>\n")
    assert "(Lines 3-10 unchanged since you read them" in again
    assert {"bash", "leanread-cli"} <= set(available())


class _Impatient(BashLeanread):
    check_seconds = 0.3


def test_a_passed_command_too_slow_to_check_is_counted_and_charged_as_traced(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("one\n")
    strategy = _Impatient(tmp_path)
    fast = GrepCall(("one",), (".",), hits=(Hit("f.txt", 1, "one", True),), cmd="grep -rn one . | sort")
    slow = GrepCall(("one",), (".",), hits=(Hit("f.txt", 1, "one", True),), cmd="sleep 2; grep -rn one .")
    assert strategy.grep(fast) == strategy.grep(slow) == "f.txt:1:one"
    assert strategy.notes["shell: passed, not checked: ran over 0.3 s here"] == 1
    assert strategy.divergences == []
    strategy.finish()


def test_each_replay_gets_a_new_private_folder_whose_name_tokenizes_alike(tmp_path: Path) -> None:
    """A bash agent's absolute paths are printed as they run in the scratch copy: its folder's
    name must cost the same tokens in every run (nine digits), or figures move between runs."""
    folders = [_scratch_folder(tmp_path) for _ in range(20)]
    assert len(set(folders)) == 20
    assert all(re.fullmatch(r"leanread-replay-[0-9]{9}", f.name) for f in folders)
    assert all(stat.S_IMODE(f.stat().st_mode) == 0o700 for f in folders)
    assert len({count_tokens(f"{f}/repo/django/conf/global_settings.py:12:") for f in folders}) == 1
