"""A big file that grows while it is indexed (a log being written) is served as of a snapshot."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from leanread import Limits, MemoryLedger, Session
from leanread.files import lineindex
from leanread.files.fileversion import StaleIndex
from leanread.files.indexcache import LineIndexCache
from leanread.files.lineindex import LineIndex

LIMITS = Limits(index_bytes=64 * 1024)


def _line(k: int) -> str:
    return f"{k:07d} request served in {k % 97} ms"


def _log(lines: int) -> bytes:
    return "".join(_line(k) + "\n" for k in range(1, lines + 1)).encode()


def _after_first_read(monkeypatch: pytest.MonkeyPatch, change: object) -> None:
    """Run ``change()`` once, right after the index pass has read its first chunk."""
    real = lineindex._pread
    done: list[bool] = []

    def pread(fd: int, length: int, offset: int, name: str) -> bytes:
        data = real(fd, length, offset, name)
        if not done:
            done.append(True)
            change()  # type: ignore[operator]
        return data

    monkeypatch.setattr(lineindex, "_pread", pread)


def test_a_file_that_grows_mid_pass_is_indexed_up_to_its_last_whole_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "app.log"
    path.write_bytes(_log(3) + b"0000004 half a li")  # the writer is mid-line
    monkeypatch.setattr(lineindex, "CHUNK_BYTES", 64)

    def grow() -> None:
        with path.open("ab") as handle:
            handle.write(b"ne\n0000005 more\n")

    _after_first_read(monkeypatch, grow)
    index = LineIndex.build(str(path), name="app.log")
    assert index.growing
    assert (index.size, index.total_lines, index.final_newline) == (len(_log(3)), 3, True)
    assert index.content_hash == lineindex.hashlib.sha256(_log(3)).hexdigest()
    assert index.read_lines(str(path), 1, 10) == [_line(k).encode() for k in (1, 2, 3)]


def test_a_file_that_shrinks_mid_pass_is_refused_by_its_display_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "app.log"
    path.write_bytes(_log(50))
    monkeypatch.setattr(lineindex, "CHUNK_BYTES", 64)
    _after_first_read(monkeypatch, lambda: path.write_bytes(b"short\n"))
    with pytest.raises(StaleIndex) as info:
        LineIndexCache().current(str(path), name="logs/app.log")
    assert str(info.value) == "logs/app.log shrank while it was being indexed; read it again."


def test_read_of_a_file_grown_mid_pass_says_it_is_growing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "app.log"
    path.write_bytes(_log(3000))
    size = path.stat().st_size

    def grow() -> None:
        with path.open("ab") as handle:
            handle.write(_log(3005)[size:] + b"0003006 par")

    monkeypatch.setattr(lineindex, "CHUNK_BYTES", 4096)
    _after_first_read(monkeypatch, grow)
    result = Session([tmp_path], ledger=MemoryLedger(), limits=LIMITS).read("app.log", offset=2999)
    assert not result.is_error, result.text
    body = result.text.split("<content>\n", 1)[1].split("\n")
    assert body[:3] == [_line(2999), _line(3000), ""]
    assert body[3] == (
        f"(The file is growing: this shows its first 3000 lines as of {size} bytes; read again for more.)"
    )
    assert body[4] == "(End of file - total 3000 lines)"


def test_reads_while_a_writer_appends_a_thousand_lines_a_second(tmp_path: Path) -> None:
    path = tmp_path / "app.log"
    path.write_bytes(_log(5000))
    stop = threading.Event()

    def writer() -> None:
        k = 5001
        with path.open("ab", buffering=0) as handle:
            while not stop.is_set():
                handle.write(b"".join((_line(n) + "\n").encode() for n in range(k, k + 10)))
                k += 10
                time.sleep(0.01)

    thread = threading.Thread(target=writer)
    thread.start()
    session = Session([tmp_path], ledger=MemoryLedger(), limits=LIMITS)
    try:
        growing = 0
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:
            result = session.read("app.log", offset=4990, limit=30, fresh=True)
            assert not result.is_error, result.text
            body = result.text.split("<content>\n", 1)[1].split("\n")
            shown = body[: body.index("")]
            assert shown == [_line(k) for k in range(4990, 4990 + len(shown))]
            growing += "(The file is growing:" in result.text
    finally:
        stop.set()
        thread.join()
    assert growing  # at least one read saw the file grow
