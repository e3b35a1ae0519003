"""render: pure functions from lines to the model-visible text; every notice as an exact string."""

from __future__ import annotations

import pytest

from leanread.config.settings import Limits
from leanread.view.formats import decorate
from leanread.view.render import (
    CUT_MARKER,
    Window,
    cut_line,
    envelope,
    render_unchanged,
    render_window,
    select_window,
    unchanged_marker,
)

DEFAULT = Limits()


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [("plain", "    return x"), ("tab", "41\t    return x"), ("colon", "41:     return x")],
)
def test_decorate(fmt: str, expected: str) -> None:
    assert decorate(41, "    return x", fmt) == expected  # type: ignore[arg-type]


def test_decorate_keeps_empty_lines_and_tabs() -> None:
    assert decorate(7, "", "tab") == "7\t"
    assert decorate(7, "", "colon") == "7: "
    assert decorate(7, "\tx", "plain") == "\tx"


def test_cut_line_leaves_short_lines_alone() -> None:
    line = "y" * 2000
    assert cut_line(line, 2000) is line
    assert cut_line("", 1) == ""


def test_cut_line_marks_the_full_length() -> None:
    assert cut_line("abcdefgh", 3) == "abc… [line cut: 8 chars in all]"
    assert cut_line("z" * 12345, 2000) == "z" * 2000 + "… [line cut: 12345 chars in all]"
    assert CUT_MARKER.format(length=2001) == "… [line cut: 2001 chars in all]"


def test_cut_line_counts_characters_not_bytes() -> None:
    assert cut_line("é" * 5, 5) == "é" * 5
    assert cut_line("日本語テキスト", 3) == "日本語… [line cut: 7 chars in all]"


def test_select_window_whole_file() -> None:
    w = select_window(["a", "b", "c"], 1, 2000, DEFAULT, "plain")
    assert w == Window(first=1, last=3, total=3, lines=("a", "b", "c"), cut_lines=(), stop="eof")
    assert w.next_offset is None
    assert w.full_ranges == ((1, 3),)


def test_select_window_line_limit() -> None:
    w = select_window([str(i) for i in range(1, 11)], 4, 3, DEFAULT, "plain")
    assert (w.first, w.last, w.total, w.stop) == (4, 6, 10, "limit")
    assert w.lines == ("4", "5", "6")
    assert w.next_offset == 7


def test_select_window_limit_reaching_eof_exactly_is_eof() -> None:
    w = select_window(["a", "b", "c"], 2, 2, DEFAULT, "plain")
    assert (w.first, w.last, w.stop, w.next_offset) == (2, 3, "eof", None)


def test_select_window_empty_file() -> None:
    w = select_window([], 1, 2000, DEFAULT, "plain")
    assert (w.first, w.last, w.total, w.lines, w.stop) == (1, 0, 0, (), "eof")
    assert w.full_ranges == ()


def test_select_window_byte_cap_boundary_is_inclusive() -> None:
    # 10 bytes per line (9 chars + newline); a 30-byte cap holds exactly 3 lines.
    lines = ["abcdefgh" + str(i) for i in range(1, 10)]
    w = select_window(lines, 1, 2000, Limits(max_bytes=30), "plain")
    assert (w.last, w.stop, w.next_offset) == (3, "bytes", 4)
    w = select_window(lines, 1, 2000, Limits(max_bytes=29), "plain")
    assert (w.last, w.stop, w.next_offset) == (2, "bytes", 3)


def test_select_window_byte_cap_counts_decoration_and_utf8() -> None:
    lines = ["é" * 4] * 5  # 8 bytes + newline = 9 plain; tab adds "N\t" = 11
    assert select_window(lines, 1, 2000, Limits(max_bytes=27), "plain").last == 3
    assert select_window(lines, 1, 2000, Limits(max_bytes=27), "tab").last == 2
    assert select_window(lines, 1, 2000, Limits(max_bytes=27), "colon").last == 2


def test_select_window_always_shows_one_line() -> None:
    w = select_window(["x" * 500, "y"], 1, 2000, Limits(max_bytes=10), "plain")
    assert (w.first, w.last, w.lines, w.stop) == (1, 1, ("x" * 500,), "bytes")


def test_select_window_cuts_long_lines_and_excludes_them_from_full_ranges() -> None:
    lines = ["a", "b" * 30, "c", "d" * 11, "e"]
    w = select_window(lines, 1, 2000, Limits(max_line_chars=10), "plain")
    assert w.lines == (
        "a",
        "b" * 10 + "… [line cut: 30 chars in all]",
        "c",
        "d" * 10 + "… [line cut: 11 chars in all]",
        "e",
    )
    assert w.cut_lines == ((2, 30), (4, 11))
    assert w.full_ranges == ((1, 1), (3, 3), (5, 5))


def _doc(*body: str, path: str = "src/app.py") -> str:
    return "\n".join([f"<path>{path}</path>", "<type>file</type>", "<content>", *body, "</content>"])


def test_envelope_exact() -> None:
    assert envelope("a.txt", "file", ["x", "y"]) == (
        "<path>a.txt</path>\n<type>file</type>\n<content>\nx\ny\n</content>"
    )


def test_render_eof_notice() -> None:
    w = select_window(["import os", "", "x = 1"], 1, 2000, DEFAULT, "plain")
    text = render_window("src/app.py", w, "plain", DEFAULT, final_newline=True)
    assert text == _doc("import os", "", "x = 1", "", "(End of file - total 3 lines)")


def test_render_eof_notice_without_final_newline() -> None:
    w = select_window(["a", "b"], 1, 2000, DEFAULT, "plain")
    text = render_window("src/app.py", w, "plain", DEFAULT, final_newline=False)
    assert text == _doc("a", "b", "", "(End of file - total 2 lines; no newline at end of file)")


def test_render_partial_range_notice() -> None:
    lines = [f"line {i}" for i in range(1, 121)]
    w = select_window(lines, 41, 40, DEFAULT, "plain")
    text = render_window("src/app.py", w, "plain", DEFAULT, final_newline=True)
    assert text == _doc(*lines[40:80], "", "(Showing lines 41-80 of 120. Use offset=81 to continue.)")


def test_render_byte_cap_notice() -> None:
    lines = ["x" * 99] * 1000  # 100 bytes a line: 512 lines fill 50 KB exactly
    w = select_window(lines, 1, 2000, DEFAULT, "plain")
    text = render_window("big.txt", w, "plain", DEFAULT, final_newline=True)
    assert text == _doc(
        *lines[:512],
        "",
        "(Output capped at 50 KB. Showing lines 1-512 of 1000. Use offset=513 to continue.)",
        path="big.txt",
    )


def test_render_tab_and_colon_decorate_each_line() -> None:
    w = select_window(["a", "b", "c"], 2, 1, DEFAULT, "tab")
    assert render_window("f", w, "tab", DEFAULT, final_newline=True) == _doc(
        "2\tb", "", "(Showing lines 2-2 of 3. Use offset=3 to continue.)", path="f"
    )
    w = select_window(["a", "b", "c"], 2, 5, DEFAULT, "colon")
    assert render_window("f", w, "colon", DEFAULT, final_newline=True) == _doc(
        "2: b", "3: c", "", "(End of file - total 3 lines)", path="f"
    )


def test_render_empty_file_notice() -> None:
    w = select_window([], 1, 2000, DEFAULT, "plain")
    assert render_window("e.txt", w, "plain", DEFAULT, final_newline=False) == _doc(
        "(Empty file - 0 lines)", path="e.txt"
    )


def test_render_one_cut_line_notice() -> None:
    long = "q" * 2500
    w = select_window(["a", long], 1, 2000, DEFAULT, "plain")
    assert render_window("f", w, "plain", DEFAULT, final_newline=True) == _doc(
        "a",
        "q" * 2000 + "… [line cut: 2500 chars in all]",
        "",
        "(Line 2 is longer than 2000 characters and was cut where marked; "
        "read the rest with offset=2, char_offset=2001.)",
        "(End of file - total 2 lines)",
        path="f",
    )


def test_render_several_cut_lines_with_a_partial_range() -> None:
    limits = Limits(max_line_chars=3)
    w = select_window(["abcd", "ab", "abcdef", "x"], 1, 3, limits, "plain")
    assert render_window("f", w, "plain", limits, final_newline=True) == _doc(
        "abc… [line cut: 4 chars in all]",
        "ab",
        "abc… [line cut: 6 chars in all]",
        "",
        "(Lines 1, 3 are longer than 3 characters and were cut where marked; "
        "read the rest of line N with offset=N, char_offset=4.)",
        "(Showing lines 1-3 of 4. Use offset=4 to continue.)",
        path="f",
    )


def test_render_unchanged_stub_keeps_the_window_notice() -> None:
    window = select_window([f"l{i}" for i in range(1, 121)], 1, 120, Limits(), "plain")
    assert render_unchanged("src/app.py", window, Limits(), final_newline=True) == _doc(
        "(Lines 1-120 unchanged since you read them, still in your context. Use fresh=true to see them again.)",
        "",
        "(End of file - total 120 lines)",
    )


def test_render_unchanged_stub_of_one_line_mid_file() -> None:
    window = select_window([f"l{i}" for i in range(1, 10)], 3, 1, Limits(), "plain")
    assert render_unchanged("a.txt", window, Limits(), final_newline=True) == _doc(
        "(Line 3 unchanged since you read it, still in your context. Use fresh=true to see it again.)",
        "",
        "(Showing lines 3-3 of 9. Use offset=4 to continue.)",
        path="a.txt",
    )


def test_unchanged_marker_names_the_old_numbers_when_lines_moved() -> None:
    assert unchanged_marker(15, 20, 15) == "… lines 15-20 unchanged since you read them …"
    assert unchanged_marker(40, 80, 38) == "… lines 40-80 unchanged since you read them as lines 38-78 …"
    assert unchanged_marker(7, 7, 9) == "… line 7 unchanged since you read it as line 9 …"
    assert unchanged_marker(7, 7, 7) == "… line 7 unchanged since you read it …"


@pytest.mark.parametrize("name", ["max_lines", "max_bytes", "max_line_chars", "sniff_bytes"])
def test_limits_must_be_positive(name: str) -> None:
    with pytest.raises(ValueError, match=rf"^Limits\.{name} must be at least 1\.$"):
        Limits(**{name: 0})
