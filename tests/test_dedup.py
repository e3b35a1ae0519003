"""The ``dedup`` setting: a re-read gets a stub always (``on``), only against recent results
(``recent``, the default), or never (``off``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from leanread import Limits, Session
from leanread.config.settings import load_settings
from leanread.errors import ConfigError
from leanread.ledger.dedup import RECENT_CALLS, old_calls
from leanread.ledger.store import MemoryLedger

DEF = "def function_{0}(argument_one, argument_two): return {0}"
BODY = "".join(f"{DEF.format(i)}\n" for i in range(1, 11))
STUB = (
    "<path>defs.py</path>\n<type>file</type>\n<content>\n"
    "(Lines 1-10 unchanged since you read them, still in your context. Use fresh=true to see them again.)\n\n"
    "(End of file - total 10 lines)\n</content>"
)
FULL = f"<path>defs.py</path>\n<type>file</type>\n<content>\n{BODY}\n(End of file - total 10 lines)\n</content>"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "defs.py").write_text(BODY)
    return tmp_path


def session(repo: Path, dedup: str) -> Session:
    return Session([repo], ledger=MemoryLedger(), limits=Limits(dedup=dedup))


def reread_after(tools: Session, calls_between: int) -> str:
    tools.read("defs.py")
    for _ in range(calls_between):
        tools.ls()
    return tools.read("defs.py").text


def test_default_is_recent() -> None:
    assert Limits().dedup == "recent"


def test_recent_stubs_until_the_earlier_result_is_forty_calls_old(repo: Path) -> None:
    assert reread_after(session(repo, "recent"), RECENT_CALLS - 2) == STUB  # read r1, re-read r40
    assert reread_after(session(repo, "recent"), RECENT_CALLS - 1) == FULL  # re-read r41


def test_recent_counts_from_the_newest_visible_result(repo: Path) -> None:
    tools = session(repo, "recent")
    assert reread_after(tools, RECENT_CALLS - 1) == FULL  # r41 shows it again, so it is recent again
    assert tools.read("defs.py").text == STUB


def test_on_stubs_however_old(repo: Path) -> None:
    assert reread_after(session(repo, "on"), 100) == STUB


def test_off_never_stubs(repo: Path) -> None:
    assert reread_after(session(repo, "off"), 0) == FULL


def test_off_keeps_edit_grants(repo: Path) -> None:
    tools = session(repo, "off")
    tools.read("defs.py")
    assert not tools.edit("defs.py", "return 3\n", "return 33\n").is_error


def test_old_calls_are_forty_calls_back_and_never_a_harness_own() -> None:
    assert old_calls("r41", ["r1", "r2", "toolu_01", "r1"]) == ["r1"]
    assert old_calls("call-9", ["r1"]) == []


def test_recent_keeps_what_recent_calls_showed(repo: Path) -> None:
    tools = session(repo, "recent")
    tools.read("defs.py", offset=1, limit=5)
    for _ in range(RECENT_CALLS):
        tools.ls()
    tools.read("defs.py", offset=6, limit=5)  # r42: r1 is old, lines 6-10 are recent
    text = tools.read("defs.py").text
    assert text == FULL.replace(
        "".join(f"{DEF.format(i)}\n" for i in range(6, 11)), "… lines 6-10 unchanged since you read them …\n"
    )


def test_config_key(repo: Path) -> None:
    (repo / "leanread.toml").write_text('dedup = "off"\n')
    assert load_settings(repo).limits.dedup == "off"
    (repo / "leanread.toml").write_text('dedup = "never"\n')
    with pytest.raises(ConfigError) as caught:
        load_settings(repo)
    assert str(caught.value) == f"dedup in {repo / 'leanread.toml'} must be one of recent, on, off (got 'never')."
