"""lineindex: line counts, windows read through sparse checkpoints, the per-version cache."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leanread import Limits, MemoryLedger, Session
from leanread.errors import InvalidArgument, NotAFile, PathError
from leanread.files import lineindex
from leanread.files.fileversion import StaleIndex
from leanread.files.indexcache import LineIndexCache
from leanread.files.lineindex import LineIndex, _nth_newline


def expected_lines(data: bytes) -> list[bytes]:
    """The reference split: on b"\\n", no extra empty line after a final newline."""
    if not data:
        return []
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    return lines


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    ("data", "total", "final"),
    [
        (b"", 0, False),
        (b"\n", 1, True),
        (b"\n\n", 2, True),
        (b"a", 1, False),
        (b"a\n", 1, True),
        (b"a\nb", 2, False),
        (b"a\nb\n", 2, True),
        (b"a\r\nb\r\n", 2, True),
        (b"a\rb\r", 1, False),  # a lone CR is not a line ending here: the caller checks cr_count
    ],
)
def test_counts(tmp_path: Path, data: bytes, total: int, final: bool) -> None:
    index = LineIndex.build(write(tmp_path / "f", data), stride=2)
    assert (index.total_lines, index.final_newline, index.size) == (total, final, len(data))
    assert index.lf_count == data.count(b"\n")
    assert index.read_lines(tmp_path / "f", 1, 10) == expected_lines(data)


def test_windows_exact(tmp_path: Path) -> None:
    data = b"one\r\ntwo\n\nfour\xc3\xa9\nfive"
    path = write(tmp_path / "f", data)
    index = LineIndex.build(path, stride=3)
    assert index.read_lines(path, 1, 2) == [b"one\r", b"two"]
    assert index.read_lines(path, 3, 2) == [b"", "four\u00e9".encode()]
    assert index.read_lines(path, 4, 100) == ["four\u00e9".encode(), b"five"]
    assert index.read_lines(path, 5, 1) == [b"five"]
    assert index.read_lines(path, 6, 1) == []
    assert index.read_lines(path, 2, 0) == []
    assert (index.lf_count, index.cr_count, index.crlf_count) == (4, 1, 1)


def test_line_offset(tmp_path: Path) -> None:
    data = b"ab\ncd\n\nef"
    path = write(tmp_path / "f", data)
    index = LineIndex.build(path, stride=1)
    assert [index.line_offset(path, n) for n in range(1, 6)] == [0, 3, 6, 7, len(data)]
    with pytest.raises(InvalidArgument):
        index.line_offset(path, 6)


def test_crlf_pair_across_chunk_boundary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("leanread.files.lineindex.CHUNK_BYTES", 4)
    data = b"abc\r\ndef\r\ng"  # the first \r\n straddles bytes 3|4
    path = write(tmp_path / "f", data)
    index = LineIndex.build(path, stride=1)
    assert (index.crlf_count, index.cr_count, index.lf_count) == (2, 2, 2)
    assert index.read_lines(path, 1, 3) == [b"abc\r", b"def\r", b"g"]


def test_long_lines_scan_is_bounded(tmp_path: Path) -> None:
    data = b"x" * 200_000 + b"\n" + b"short\n" * 10 + b"y" * 150_000
    path = write(tmp_path / "f", data)
    index = LineIndex.build(path, stride=4096)
    # one checkpoint at the start, then one right after each long line
    assert index.checkpoints <= 3 + len(data) // 4096
    assert index.read_lines(path, 2, 2) == [b"short", b"short"]
    assert index.read_lines(path, 12, 5) == [b"y" * 150_000]
    assert index.read_lines(path, 1, 1) == [b"x" * 200_000]


def test_many_lines_between_checkpoints(tmp_path: Path) -> None:
    data = b"".join(b"%d\n" % n for n in range(1, 50_001))
    path = write(tmp_path / "f", data)
    index = LineIndex.build(path)  # default 64 KiB stride: thousands of lines per checkpoint
    assert index.total_lines == 50_000
    assert index.read_lines(path, 49_801, 100) == [b"%d" % n for n in range(49_801, 49_901)]
    assert index.read_lines(path, 49_999, 100) == [b"49999", b"50000"]


@settings(max_examples=100, deadline=None)
@given(gaps=st.lists(st.integers(0, 9), min_size=40, max_size=400))
def test_nth_newline(gaps: list[int]) -> None:
    buf = b"".join(b"a" * gap + b"\n" for gap in gaps)
    positions = [i for i, byte in enumerate(buf) if byte == 10]
    for k in range(1, len(positions) + 1):
        assert _nth_newline(buf, k) == positions[k - 1]


def test_file_descriptor_source(tmp_path: Path) -> None:
    path = write(tmp_path / "f", b"a\nb\nc\n")
    fd = os.open(path, os.O_RDONLY)
    try:
        index = LineIndex.build(fd, stride=1)
        assert index.read_lines(fd, 2, 5) == [b"b", b"c"]
        assert os.lseek(fd, 0, os.SEEK_CUR) == 0  # pread leaves the position alone
    finally:
        os.close(fd)


def test_bad_arguments(tmp_path: Path) -> None:
    path = write(tmp_path / "f", b"a\n")
    index = LineIndex.build(path)
    with pytest.raises(InvalidArgument):
        index.read_lines(path, 0, 1)
    with pytest.raises(InvalidArgument):
        index.read_lines(path, 1, -1)
    with pytest.raises(InvalidArgument):
        LineIndex.build(path, stride=0)


def test_refuses_special_files_without_hanging(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(NotAFile):
        LineIndex.build(fifo)  # O_NONBLOCK: opening a FIFO with no writer returns at once
    with pytest.raises(NotAFile):
        LineIndex.build(tmp_path)
    with pytest.raises(PathError):
        LineIndex.build(tmp_path / "missing")
    index = LineIndex.build(write(tmp_path / "f", b"a\n"))
    with pytest.raises(NotAFile):
        index.read_lines(fifo, 1, 1)


def test_read_after_change_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "f", b"a\nb\n")
    index = LineIndex.build(path)
    path.write_bytes(b"a\nb\nc\n")
    with pytest.raises(StaleIndex):
        index.read_lines(path, 1, 1)
    os.utime(path, ns=(index.mtime_ns, index.mtime_ns + 1))
    path.write_bytes(b"A\nB\n")  # same size
    os.utime(path, ns=(index.mtime_ns, index.mtime_ns + 1_000_000_000))
    with pytest.raises(StaleIndex):
        index.read_lines(path, 1, 1)


def test_cache_same_object_and_rebuild(tmp_path: Path) -> None:
    path = write(tmp_path / "f", b"a\nb\n")
    real = os.path.realpath(path)
    cache = LineIndexCache()
    st1 = os.stat(real)
    first = cache.get(real, st1.st_size, st1.st_mtime_ns)
    assert cache.get(real, st1.st_size, st1.st_mtime_ns) is first
    path.write_bytes(b"x\ny\nz")
    os.utime(real, ns=(st1.st_mtime_ns, st1.st_mtime_ns + 5_000_000_000))
    st2 = os.stat(real)
    second = cache.get(real, st2.st_size, st2.st_mtime_ns)
    assert second is not first
    assert second.read_lines(real, 1, 5) == [b"x", b"y", b"z"]
    assert cache.get(real, st2.st_size, st2.st_mtime_ns) is second
    assert len(cache) == 1  # the older version of the path was replaced
    # a stale stat from the caller is refused, but the fresh index is kept for the retry
    with pytest.raises(StaleIndex):
        cache.get(real, st1.st_size, st1.st_mtime_ns)
    assert cache.get(real, st2.st_size, st2.st_mtime_ns) is second


def _replace_same_size_same_mtime(path: Path, data: bytes) -> None:
    """Swap in ``data`` (same size) as rsync -a or cp -p would: a new file renamed over the old
    one, its mtime set back to the old one's."""
    old = os.stat(path)
    assert len(data) == old.st_size
    fresh = path.with_name(path.name + ".tmp")
    fresh.write_bytes(data)
    os.utime(fresh, ns=(old.st_atime_ns, old.st_mtime_ns))
    os.replace(fresh, path)


def _rewrite_in_place_same_mtime(path: Path, data: bytes) -> None:
    """Overwrite the same inode with ``data`` (same size) and restore the mtime with os.utime."""
    old = os.stat(path)
    assert len(data) == old.st_size
    deadline = time.monotonic() + 2
    while os.stat(path).st_ctime_ns == old.st_ctime_ns and time.monotonic() < deadline:
        time.sleep(0.01)  # coarse file-system clocks: let the ctime tick before the rewrite
        os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns))
    with open(path, "r+b") as handle:
        handle.write(data)
    os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns))


def test_index_remembers_inode_and_ctime(tmp_path: Path) -> None:
    path = write(tmp_path / "f", b"a\nb\n")
    st_ = os.stat(path)
    index = LineIndex.build(path)
    assert (index.ino, index.ctime_ns) == (st_.st_ino, st_.st_ctime_ns)
    assert index.version == (st_.st_size, st_.st_mtime_ns, st_.st_ino, st_.st_ctime_ns)


def test_read_after_same_size_same_mtime_replace_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "f", b"old\nold\n")
    index = LineIndex.build(path)
    _replace_same_size_same_mtime(path, b"new\nnew\n")
    assert (os.stat(path).st_size, os.stat(path).st_mtime_ns) == (index.size, index.mtime_ns)
    with pytest.raises(StaleIndex) as info:
        index.read_lines(path, 1, 1)
    assert str(info.value) == (
        f"{path} changed since it was indexed (same size and modification time, but replaced or rewritten); "
        "read it again."
    )


def test_read_after_in_place_rewrite_with_restored_mtime_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "f", b"old\nold\n")
    index = LineIndex.build(path)
    _rewrite_in_place_same_mtime(path, b"new\nnew\n")
    assert os.stat(path).st_ino == index.ino
    with pytest.raises(StaleIndex):
        index.read_lines(path, 1, 1)


@pytest.mark.parametrize("swap", [_replace_same_size_same_mtime, _rewrite_in_place_same_mtime])
def test_cache_serves_the_new_version_after_a_same_size_same_mtime_swap(
    tmp_path: Path, swap: Callable[[Path, bytes], None]
) -> None:
    path = write(tmp_path / "f", b"old\nold\n")
    real = os.path.realpath(path)
    cache = LineIndexCache()
    st1 = os.stat(real)
    first = cache.get(real, st1.st_size, st1.st_mtime_ns, ino=st1.st_ino, ctime_ns=st1.st_ctime_ns)
    swap(path, b"new\nnew\n")
    st2 = os.stat(real)
    assert (st2.st_size, st2.st_mtime_ns) == (st1.st_size, st1.st_mtime_ns)
    second = cache.get(real, st2.st_size, st2.st_mtime_ns, ino=st2.st_ino, ctime_ns=st2.st_ctime_ns)
    assert second is not first
    assert second.read_lines(real, 1, 5) == [b"new", b"new"]
    # the caller's older stat is refused, saying what changed
    with pytest.raises(StaleIndex) as info:
        cache.get(real, st1.st_size, st1.st_mtime_ns, ino=st1.st_ino, ctime_ns=st1.st_ctime_ns)
    assert str(info.value) == (
        f"{real} changed since it was stat-ed (same size and modification time, but replaced or rewritten); "
        "read it again."
    )


def test_cache_without_inode_and_ctime_stats_for_them(tmp_path: Path) -> None:
    path = write(tmp_path / "f", b"old\nold\n")
    real = os.path.realpath(path)
    cache = LineIndexCache()
    st1 = os.stat(real)
    first = cache.get(real, st1.st_size, st1.st_mtime_ns)
    assert cache.get(real, st1.st_size, st1.st_mtime_ns) is first
    _replace_same_size_same_mtime(path, b"new\nnew\n")
    second = cache.get(real, st1.st_size, st1.st_mtime_ns)  # same size and mtime as before
    assert second is not first
    assert second.read_lines(real, 1, 2) == [b"new", b"new"]
    path.write_bytes(b"longer\n" * 3)
    with pytest.raises(StaleIndex) as info:
        cache.get(real, st1.st_size, st1.st_mtime_ns)
    assert str(info.value) == f"{real} changed since it was stat-ed (8 bytes, now 21); read it again."


@pytest.mark.parametrize("swap", [_replace_same_size_same_mtime, _rewrite_in_place_same_mtime])
def test_session_reads_the_new_version_of_an_indexed_file(tmp_path: Path, swap: Callable[[Path, bytes], None]) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    path = write(root / "big.log", b"".join(b"old %d\n" % n for n in range(1, 7)))
    session = Session([root], ledger=MemoryLedger(), limits=Limits(index_bytes=16))
    first = session.read("big.log", offset=2, limit=2)
    assert first.text == (
        "<path>big.log</path>\n<type>file</type>\n<content>\nold 2\nold 3\n\n"
        "(Showing lines 2-3 of 6. Use offset=4 to continue.)\n</content>"
    )
    swap(path, b"a\n" + b"b" * 10 + b"\nc\n" + b"d" * 20 + b"\n")  # 36 bytes, other line starts
    again = session.read("big.log", offset=2, limit=2)
    assert again.text == (
        "<path>big.log</path>\n<type>file</type>\n<content>\nbbbbbbbbbb\nc\n\n"
        "(Showing lines 2-3 of 4. Use offset=4 to continue.)\n</content>"
    )


def test_cache_is_bounded_lru(tmp_path: Path) -> None:
    cache = LineIndexCache(max_entries=2)
    paths = [os.path.realpath(write(tmp_path / f"f{i}", b"%d\n" % i)) for i in range(3)]
    stats = [os.stat(p) for p in paths]
    a = cache.get(paths[0], stats[0].st_size, stats[0].st_mtime_ns)
    cache.get(paths[1], stats[1].st_size, stats[1].st_mtime_ns)
    assert cache.get(paths[0], stats[0].st_size, stats[0].st_mtime_ns) is a  # 0 is now most recent
    cache.get(paths[2], stats[2].st_size, stats[2].st_mtime_ns)  # evicts 1
    assert len(cache) == 2
    assert cache.get(paths[0], stats[0].st_size, stats[0].st_mtime_ns) is a


def test_cache_threads_share_one_build(tmp_path: Path) -> None:
    path = os.path.realpath(write(tmp_path / "f", b"line\n" * 10_000))
    st_ = os.stat(path)
    cache = LineIndexCache(stride=64)
    got: list[LineIndex] = []
    lock = threading.Lock()

    def worker() -> None:
        index = cache.get(path, st_.st_size, st_.st_mtime_ns)
        with lock:
            got.append(index)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(got) == 8
    assert all(index is got[0] for index in got)


_PIECES = st.one_of(
    st.text(alphabet=st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",)), max_size=12),
    st.sampled_from(["", "x" * 40, "\u00e9\u4e2d\U0001f600", "\t", "\r"]),
)


@st.composite
def files(draw: st.DrawFn) -> bytes:
    lines = draw(st.lists(_PIECES, max_size=40))
    endings = draw(st.lists(st.sampled_from(["\n", "\r\n"]), min_size=len(lines), max_size=len(lines)))
    text = "".join(line + ending for line, ending in zip(lines, endings, strict=True))
    if lines and draw(st.booleans()):
        text = text[: -len(endings[-1])]  # no final newline
    return text.encode("utf-8")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    data=files(),
    stride=st.integers(1, 16),
    first=st.integers(1, 45),
    count=st.integers(0, 45),
    chunk=st.sampled_from([1, 3, 7, 64, 1 << 20]),
    window_read=st.sampled_from([1, 5, 64, 64 * 1024]),
)
def test_windows_match_split(
    tmp_path: Path, data: bytes, stride: int, first: int, count: int, chunk: int, window_read: int
) -> None:
    path = write(tmp_path / "prop", data)
    saved = lineindex.CHUNK_BYTES, lineindex._WINDOW_READ
    lineindex.CHUNK_BYTES, lineindex._WINDOW_READ = chunk, window_read  # exercise every boundary
    try:
        index = LineIndex.build(path, stride=stride)
        window = index.read_lines(path, first, count)
    finally:
        lineindex.CHUNK_BYTES, lineindex._WINDOW_READ = saved
    reference = expected_lines(data)
    assert index.total_lines == len(reference)
    assert index.final_newline == data.endswith(b"\n")
    assert (index.cr_count, index.crlf_count) == (data.count(b"\r"), data.count(b"\r\n"))
    assert window == reference[first - 1 : first - 1 + count]
