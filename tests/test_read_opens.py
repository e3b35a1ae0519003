"""A read opens a small file once: the bytes read to tell its kind are the ones decoded."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from leanread import Session
from leanread.files import safeopen
from leanread.ledger.store import MemoryLedger
from leanread.tools.read.pipeline import WHOLE_BYTES


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    opened: list[str] = []
    real: Callable[..., int] = safeopen.open_regular

    def counting(path: str, *args: Any, **kwargs: Any) -> int:
        opened.append(Path(path).name)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(safeopen, "open_regular", counting)
    return opened


def test_a_small_file_is_opened_once_and_a_bigger_one_twice(
    session: Session, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "small.py").write_text("".join(f"s{i} = {i}\n" for i in range(300)))
    (root / "bigger.txt").write_text("".join(f"line {i:07d}\n" for i in range(WHOLE_BYTES // 13 + 10)))
    opened = _counted(monkeypatch)
    small = session.read("small.py", mode="full")
    bigger = session.read("bigger.txt", limit=3)
    assert opened == ["small.py", "bigger.txt", "bigger.txt"]
    assert small.text.count("\n") > 300 and "s299 = 299" in small.text
    assert "line 0000002" in bigger.text


def test_a_file_longer_than_its_stat_says_is_read_whole_all_the_same() -> None:
    # /proc files stat as 0 bytes: the first read gets more than that, so the text read reads again
    session = Session(["/proc/self"], ledger=MemoryLedger())
    shown = session.read("status")
    assert not shown.is_error, shown.text
    assert "\nName:\t" in shown.text and "\nPid:\t" in shown.text
