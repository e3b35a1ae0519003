"""ripgrep's output cut into files however it arrives, and counted whatever the names hold."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from leanread.files.rgsearch import FileHits, _Blocks, count_files
from leanread.files.ripgrep import RgOptions


def _messages(files: list[tuple[str, int]]) -> bytes:
    out: list[str] = []
    for path, hits in files:
        out.append(json.dumps({"type": "begin", "data": {"path": {"text": path}}}, separators=(",", ":")))
        for n in range(hits):
            match = {"path": {"text": path}, "lines": {"text": f"x{n}\n"}, "line_number": n + 1}
            out.append(json.dumps({"type": "match", "data": match}, separators=(",", ":")))
        end = {"path": {"text": path}, "binary_offset": None, "stats": {"matched_lines": hits}}
        out.append(json.dumps({"type": "end", "data": end}, separators=(",", ":")))
    return ("\n".join(out) + "\n").encode()


@given(
    files=st.lists(st.tuples(st.sampled_from(["a.py", "b/c.txt", "d e.md"]), st.integers(0, 40)), max_size=4),
    cuts=st.lists(st.integers(1, 300), max_size=40),
)
def test_any_chunking_gives_the_same_files(files: list[tuple[str, int]], cuts: list[int]) -> None:
    data = _messages(files)
    whole = _Blocks(None)
    whole.feed(data)
    pieces = _Blocks(None)
    start = 0
    for size in cuts:
        pieces.feed(data[start : start + size])
        start += size
    pieces.feed(data[start:])
    expected = [FileHits(path, hits) for path, hits in files]
    assert [(f.path, f.count) for f in whole.files] == [(f.path, f.count) for f in expected]
    assert pieces.files == whole.files


@given(
    files=st.lists(st.tuples(st.sampled_from(["a.py", "b/c.txt", "d e.md"]), st.integers(1, 40)), max_size=5),
    keep=st.integers(0, 3000),
    cuts=st.lists(st.integers(1, 300), max_size=40),
)
def test_past_the_bytes_kept_files_are_counted_however_the_output_arrives(
    files: list[tuple[str, int]], keep: int, cuts: list[int]
) -> None:
    data = _messages(files)
    whole = _Blocks(None, keep)
    whole.feed(data)
    pieces = _Blocks(None, keep)
    start = 0
    for size in cuts:
        pieces.feed(data[start : start + size])
        start += size
    pieces.feed(data[start:])
    assert pieces.files == whole.files
    assert [(f.path, f.count) for f in whole.files] == files
    kept = [f.block for f in whole.files if f.block is not None]
    assert [f.block is not None for f in whole.files] == [True] * len(kept) + [False] * (len(files) - len(kept))
    assert sum(map(len, kept)) <= keep
    all_kept = _Blocks(None)
    all_kept.feed(data)
    assert kept == [f.block for f in all_kept.files[: len(kept)]]
    if len(kept) < len(files):  # the first file not kept would have passed the bytes kept
        assert sum(map(len, kept)) + len(all_kept.files[len(kept)].block or b"") > keep


def test_a_name_with_a_line_break_is_counted_as_one_file(root: Path) -> None:
    (root / "new\nline.txt").write_text("".join(f"hit {i}\n" for i in range(30)))
    (root / "plain.txt").write_text("hit\n")
    binary: list[str] = []
    counts = count_files("hit", [str(root)], RgOptions(), cwd=str(root), binary=binary)
    assert sorted((Path(f.path).name, f.count) for f in counts) == [("new\nline.txt", 30), ("plain.txt", 1)]
    assert binary == []


def test_a_pattern_matching_the_empty_string_keeps_the_first_spans_of_a_long_line(root: Path) -> None:
    line = "ab" * 2000
    (root / "long.txt").write_text(f"{line}\nshort\n")
    from leanread.files.rgsearch import MAX_SPANS, parse_hits, search_json

    found = search_json("a*", [str(root / "long.txt")], RgOptions(), cwd=str(root)) or []
    hits = parse_hits(found[0].block or b"")
    assert [(h.line, h.raw) for h in hits] == [(1, f"{line}\n".encode()), (2, b"short\n")]
    assert hits[0].spans == tuple((2 * i, 2 * i + 1) for i in range(MAX_SPANS))  # read past the JSON
    assert hits[1].spans == ((0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 5))
