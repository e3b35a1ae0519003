"""The read tool through ``Session.read``: envelopes, notices, errors, paging, real files."""

from __future__ import annotations

import argparse
import codecs
import hashlib
import inspect
import json.decoder
import os
import re
import tempfile
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from leanread import Limits, Session, ToolResult, count_tokens
from leanread.tools import description
from leanread.tools.read import PARAMETERS, ReadRequest
from leanread.view.frame import frame_like
from leanread.view.render import byte_size


def doc(path: str, *body: str) -> str:
    """The expected envelope around ``body`` lines."""
    return "\n".join([f"<path>{path}</path>", "<type>file</type>", "<content>", *body, "</content>"])


def split_page(result: ToolResult) -> tuple[list[str], list[str]]:
    """The content lines and the notice lines of a full (not stub) read result, found through
    the metadata: ``last_line - offset + 1`` lines after ``<content>``, then a blank line."""
    assert not result.is_error, result.text
    meta = result.metadata
    head = f"<path>{meta['path']}</path>\n<type>file</type>\n<content>\n"
    assert result.text.startswith(head)
    assert result.text.endswith("\n</content>")
    inner = result.text[len(head) : -len("\n</content>")].split("\n")
    count = meta["last_line"] - meta["offset"] + 1
    if count == 0:
        return [], inner
    assert len(inner) > count and inner[count] == "", "a blank line separates lines and notices"
    return inner[:count], inner[count + 1 :]


def read_all(session: Session, path: str, **kwargs: Any) -> tuple[list[str], list[ToolResult]]:
    """Follow ``next_offset`` from line 1 with fresh reads; return the lines and the results."""
    lines: list[str] = []
    results: list[ToolResult] = []
    offset: int | None = 1
    while offset is not None:
        result = session.read(path, offset=offset, fresh=True, **kwargs)
        assert not result.is_error, result.text
        assert result.metadata["offset"] == offset
        shown, _ = split_page(result)
        lines.extend(shown)
        results.append(result)
        offset = result.metadata["next_offset"]
        assert len(results) <= 10_000
    return lines, results


# --- the envelope and each notice, exactly -------------------------------------------------


def test_whole_small_file(session: Session, root: Path) -> None:
    data = b"import os\n\ndef main():\n    return 0\n"
    (root / "app.py").write_bytes(data)
    result = session.read("app.py")
    assert result.is_error is False
    assert result.text == doc(
        "app.py", "import os", "", "def main():", "    return 0", "", "(End of file - total 4 lines)"
    )
    assert result.metadata == {
        "call_id": "r1",
        "path": "app.py",
        "type": "file",
        "offset": 1,
        "last_line": 4,
        "total_lines": 4,
        "next_offset": None,
        "truncated": None,
        "cut_lines": [],
        "unchanged_since": None,
        "content_hash": hashlib.sha256(data).hexdigest(),
        "size": len(data),
        "mtime_ns": (root / "app.py").stat().st_mtime_ns,
        "tokens": count_tokens(result.text),
        "full_tokens": count_tokens(result.text),
        "encoding": "utf-8",
        "bom": False,
        "newline": "\n",
        "final_newline": True,
        "mode": "full",
        "instructions": [],
    }


def test_no_final_newline_notice(session: Session, root: Path) -> None:
    (root / "n.txt").write_bytes(b"a\nb")
    assert session.read("n.txt").text == doc(
        "n.txt", "a", "b", "", "(End of file - total 2 lines; no newline at end of file)"
    )


def test_single_line_without_newline(session: Session, root: Path) -> None:
    (root / "one.txt").write_bytes(b"only")
    assert session.read("one.txt").text == doc(
        "one.txt", "only", "", "(End of file - total 1 line; no newline at end of file)"
    )


def test_partial_range_notice(session: Session, root: Path) -> None:
    lines = [f"line {i}" for i in range(1, 121)]
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("\n".join(lines) + "\n")
    result = session.read("src/app.py", offset=41, limit=40)
    assert result.text == doc(
        "src/app.py", *lines[40:80], "", "(Showing lines 41-80 of 120. Use offset=81 to continue.)"
    )
    meta = result.metadata
    assert (meta["offset"], meta["last_line"], meta["total_lines"]) == (41, 80, 120)
    assert (meta["next_offset"], meta["truncated"]) == (81, "limit")


def test_last_window_ends_with_eof_notice(session: Session, root: Path) -> None:
    (root / "f.txt").write_text("".join(f"{i}\n" for i in range(1, 11)))
    result = session.read("f.txt", offset=8, limit=5)
    assert result.text == doc("f.txt", "8", "9", "10", "", "(End of file - total 10 lines)")
    assert result.metadata["next_offset"] is None


@pytest.mark.parametrize("offset", [None, 0, 1])
def test_offset_zero_and_none_mean_one(session: Session, root: Path, offset: int | None) -> None:
    (root / "f.txt").write_text("a\nb\n")
    result = session.read("f.txt", offset=offset, fresh=True)
    assert result.text == doc("f.txt", "a", "b", "", "(End of file - total 2 lines)")
    assert result.metadata["offset"] == 1


def test_offset_on_last_line(session: Session, root: Path) -> None:
    (root / "f.txt").write_text("a\nb\nc\n")
    assert session.read("f.txt", offset=3).text == doc("f.txt", "c", "", "(End of file - total 3 lines)")


def test_byte_cap_notice_and_continuation(session: Session, root: Path) -> None:
    lines = [f"{i:04d}" + "x" * 95 for i in range(1, 1001)]  # 100 bytes a line with its newline
    (root / "big.txt").write_text("\n".join(lines) + "\n")
    first = session.read("big.txt", mode="full")
    assert first.text == doc(
        "big.txt",
        *lines[:512],
        "",
        "(Output capped at 50 KB. Showing lines 1-512 of 1000. Use offset=513 to continue.)",
    )
    assert (first.metadata["truncated"], first.metadata["next_offset"]) == ("bytes", 513)
    second = session.read("big.txt", offset=513)
    assert second.text == doc("big.txt", *lines[512:], "", "(End of file - total 1000 lines)")


def test_byte_cap_counts_the_line_numbers_of_tab_format(session: Session, root: Path) -> None:
    lines = ["y" * 99] * 1000
    (root / "big.txt").write_text("\n".join(lines) + "\n")
    # "N\t" + 99 chars + newline: lines 1-9 take 102 bytes (918), 10-99 take 103 (9270),
    # 100+ take 104; 51200 - 10188 = 41012 = 394 * 104 + 36, so lines 1-493 fit.
    result = session.read("big.txt", format="tab", mode="full")
    body = [f"{n}\t{lines[n - 1]}" for n in range(1, 494)]
    assert result.text == doc(
        "big.txt",
        *body,
        "",
        "(Output capped at 50 KB. Showing lines 1-493 of 1000. Use offset=494 to continue.)",
    )


def test_byte_cap_notice_states_the_cap_truthfully(root: Path) -> None:
    # A cap below 1 KB must not be announced as "0 KB": the model is told a false limit.
    (root / "f.txt").write_text("aaaa\nbbbb\ncccc\n")
    result = Session([root], limits=Limits(max_bytes=10)).read("f.txt")
    assert result.metadata["truncated"] == "bytes"
    _, notices = split_page(result)
    assert notices[-1].endswith("Showing lines 1-2 of 3. Use offset=3 to continue.)")
    assert "capped at 0 KB" not in result.text


def test_long_line_cut_with_marker_and_notice(session: Session, root: Path) -> None:
    long = "ab" * 1500  # 3000 characters
    (root / "min.js").write_text(f"start\n{long}\nend\n")
    result = session.read("min.js")
    assert result.text == doc(
        "min.js",
        "start",
        long[:2000] + "… [line cut: 3000 chars in all]",
        "end",
        "",
        "(Line 2 is longer than 2000 characters and was cut where marked; "
        "read the rest with offset=2, char_offset=2001.)",
        "(End of file - total 3 lines)",
    )
    assert result.metadata["cut_lines"] == [2]
    assert result.metadata["truncated"] is None
    # the hint works: the rest of the line, then where to go on
    rest = session.read("min.js", offset=2, char_offset=2001)
    assert rest.text == doc(
        "min.js",
        long[2000:],
        "",
        "(End of line 2, characters 2001-3000 of 3000. Use offset=3 to continue.)",
    )


def test_line_of_exactly_the_cap_is_not_cut(session: Session, root: Path) -> None:
    line = "é" * 2000
    (root / "f.txt").write_text(line + "\n")
    assert session.read("f.txt").text == doc("f.txt", line, "", "(End of file - total 1 line)")


def test_empty_file(session: Session, root: Path) -> None:
    (root / "empty.txt").write_bytes(b"")
    result = session.read("empty.txt")
    assert result.text == doc("empty.txt", "(Empty file - 0 lines)")
    meta = result.metadata
    assert (meta["offset"], meta["last_line"], meta["total_lines"]) == (1, 0, 0)
    assert meta["next_offset"] is None
    # an empty file is never answered with a stub, and no offset is past its end
    assert session.read("empty.txt").text == doc("empty.txt", "(Empty file - 0 lines)")
    assert session.read("empty.txt", offset=5).text == doc("empty.txt", "(Empty file - 0 lines)")


def test_file_of_one_empty_line(session: Session, root: Path) -> None:
    (root / "nl.txt").write_bytes(b"\n")
    assert session.read("nl.txt").text == doc("nl.txt", "", "", "(End of file - total 1 line)")


def test_crlf_lines_shown_without_cr(session: Session, root: Path) -> None:
    (root / "win.txt").write_bytes(b"one\r\ntwo\r\n")
    result = session.read("win.txt")
    assert result.text == doc(
        "win.txt",
        "one",
        "two",
        "",
        "(File uses CRLF line endings; edits keep them.)",
        "(End of file - total 2 lines)",
    )
    assert result.metadata["newline"] == "\r\n"


def test_cr_only_file(session: Session, root: Path) -> None:
    (root / "mac.txt").write_bytes(b"one\rtwo")
    assert session.read("mac.txt").text == doc(
        "mac.txt",
        "one",
        "two",
        "",
        "(File uses CR line endings; edits keep them.)",
        "(End of file - total 2 lines; no newline at end of file)",
    )


def test_bom_is_stripped_from_the_shown_text(session: Session, root: Path) -> None:
    data = codecs.BOM_UTF8 + "título = 1\n".encode()
    (root / "bom.py").write_bytes(data)
    result = session.read("bom.py")
    assert result.text == doc("bom.py", "título = 1", "", "(End of file - total 1 line)")
    assert "\ufeff" not in result.text
    assert result.metadata["size"] == len(data)
    assert result.metadata["content_hash"] == hashlib.sha256(data).hexdigest()


def test_unicode_lines(session: Session, root: Path) -> None:
    lines = ["日本語のテキスト", "emoji 🎉 ok", "\tindent\u00a0nbsp", "a\u2028b"]
    (root / "u.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert session.read("u.txt").text == doc("u.txt", *lines, "", "(End of file - total 4 lines)")


@pytest.mark.parametrize(
    ("fmt", "body"),
    [("tab", ["2\tb", "3\t"]), ("colon", ["2: b", "3: "]), ("plain", ["b", ""])],
)
def test_formats(session: Session, root: Path, fmt: str, body: list[str]) -> None:
    (root / "f.txt").write_text("a\nb\n\nd\n")
    assert session.read("f.txt", offset=2, limit=2, format=fmt).text == doc(
        "f.txt", *body, "", "(Showing lines 2-3 of 4. Use offset=4 to continue.)"
    )


def test_path_shown_is_relative_with_posix_separators(session: Session, root: Path) -> None:
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "c.txt").write_text("x\n")
    result = session.read(str(root / "a" / "b" / "c.txt"))
    assert result.text.startswith("<path>a/b/c.txt</path>\n")
    assert result.metadata["path"] == "a/b/c.txt"


# --- errors: one sentence, is_error, never an exception ------------------------------------


def _error(result: ToolResult) -> str:
    assert result.is_error is True
    assert set(result.metadata) == {"call_id"}
    return result.text


def test_error_outside_via_dotdot(session: Session, root: Path) -> None:
    (root.parent / "secret.txt").write_text("s\n")
    assert _error(session.read("../secret.txt")) == (
        f"../secret.txt resolves outside the workspace ({os.path.realpath(root)}); use a path inside it."
    )


def test_error_symlink_to_etc_passwd(session: Session, root: Path) -> None:
    os.symlink("/etc/passwd", root / "pw")
    assert _error(session.read("pw")) == (
        f"pw resolves outside the workspace ({os.path.realpath(root)}); use a path inside it."
    )


def test_error_symlink_loop(session: Session, root: Path) -> None:
    os.symlink("loop", root / "loop")
    assert _error(session.read("loop")) == ("loop is a symbolic-link loop; read the file it was meant to point to.")


def test_error_missing(session: Session) -> None:
    assert _error(session.read("src/missing.py")) == (
        "File not found: src/missing.py. Check the spelling, or list its folder to see what exists."
    )


def test_directory_is_listed(session: Session, root: Path) -> None:
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "b.py").write_text("")
    (root / "pkg" / "a.py").write_text("")
    result = session.read("pkg")
    assert result.text == (
        "<path>pkg</path>\n<type>directory</type>\n<content>\n"
        "a.py\nb.py\nsub/\n\n(End of directory - total 3 entries; ls shows the tree below it)\n</content>"
    )
    assert result.metadata["type"] == "directory"
    page = session.read("pkg", offset=1, limit=2)
    assert page.text.endswith("\na.py\nb.py\n\n(Showing entries 1-2 of 3. Use offset=3 to continue.)\n</content>")


def test_error_png(session: Session, root: Path) -> None:
    # A real PNG is sent as image content (tests/test_documents.py); a corrupt one is refused.
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 1992)
    assert _error(session.read("logo.png")) == (
        "logo.png looks like an image (2000 bytes) but is corrupt or truncated; it cannot be shown."
    )


def test_error_undecodable_bytes(session: Session, root: Path) -> None:
    (root / "blob.dat").write_bytes(bytes(range(128, 256)))
    assert _error(session.read("blob.dat")) == (
        "blob.dat is neither UTF-8 nor a text encoding leanread can detect (128 bytes); leanread cannot show it."
    )


def test_error_bom_then_invalid_utf8(session: Session, root: Path) -> None:
    (root / "bom.txt").write_bytes(codecs.BOM_UTF8 + b"ab\xff\n")
    assert _error(session.read("bom.txt")) == (
        "bom.txt starts with a utf-8 byte-order mark but is not valid utf-8 "
        "(bad byte at offset 5 of 7); leanread cannot show it."
    )


def test_latin1_word_is_shown_as_written(session: Session, root: Path) -> None:
    # A short Latin-1 file: showing it decoded as another script (cp1006 "naﺅve") is wrong text.
    (root / "latin.txt").write_bytes("naïve\n".encode("latin-1"))
    result = session.read("latin.txt")
    assert not result.is_error
    assert split_page(result)[0] == ["naïve"]


def test_error_offset_past_eof(session: Session, root: Path) -> None:
    (root / "f.txt").write_text("a\nb\nc\n")
    assert _error(session.read("f.txt", offset=4)) == (
        "offset=4 is past the end of f.txt, which has 3 lines; use an offset from 1 to 3."
    )


def test_error_negative_offset(session: Session, root: Path) -> None:
    (root / "f.txt").write_text("a\n")
    assert _error(session.read("f.txt", offset=-1)) == (
        "offset must be 1 or more (got -1); use offset=1 for the start."
    )


@pytest.mark.parametrize("limit", [0, -5])
def test_error_bad_limit(session: Session, root: Path, limit: int) -> None:
    (root / "f.txt").write_text("a\n")
    assert _error(session.read("f.txt", limit=limit)) == (
        f"limit must be 1 or more (got {limit}); omit it to read up to the default."
    )


def test_error_bad_format(session: Session, root: Path) -> None:
    (root / "f.txt").write_text("a\n")
    assert _error(session.read("f.txt", format="xml")) == (
        "format must be one of plain, tab, colon, catn, visible (got 'xml')."
    )


def test_error_arguments_checked_before_the_path(session: Session) -> None:
    assert _error(session.read("missing.txt", format="md")) == (
        "format must be one of plain, tab, colon, catn, visible (got 'md')."
    )


def test_error_fifo_returns_quickly(session: Session, root: Path) -> None:
    os.mkfifo(root / "pipe")
    box: list[ToolResult] = []
    worker = threading.Thread(target=lambda: box.append(session.read("pipe")), daemon=True)
    worker.start()
    worker.join(timeout=5)
    assert not worker.is_alive(), "reading a FIFO blocked"
    assert _error(box[0]) == ("pipe is a FIFO (named pipe), not a regular file; leanread does not open it.")


def test_error_char_device() -> None:
    assert _error(Session(["/dev"]).read("null")) == (
        "null is a character device, not a regular file; leanread does not open it."
    )


def test_error_results_carry_the_call_id(session: Session) -> None:
    result = session.read("nope.txt", call_id="toolu_42")
    assert result.metadata == {"call_id": "toolu_42"}


# --- the case from users: a long file is paged, not refused -------------------------------


def test_3000_line_file_of_28k_tokens_returns_first_2000_lines(session: Session, root: Path) -> None:
    lines = [f"row[{i}] = alpha + beta" for i in range(1, 3001)]
    data = "\n".join(lines) + "\n"
    assert 27_000 <= count_tokens(data) <= 30_000
    (root / "table.py").write_text(data)
    result = session.read("table.py", mode="full")  # a whole read would give its outline (issue 7)
    assert result.is_error is False
    assert result.text == doc(
        "table.py", *lines[:2000], "", "(Showing lines 1-2000 of 3000. Use offset=2001 to continue.)"
    )
    rest = session.read("table.py", offset=2001)
    assert rest.text == doc("table.py", *lines[2000:], "", "(End of file - total 3000 lines)")


def test_3000_line_file_of_long_lines_is_byte_capped_not_refused(session: Session, root: Path) -> None:
    lines = [f"value_{i} = compute(alpha, beta) + {i}  # note" for i in range(1, 3001)]
    (root / "values.py").write_text("\n".join(lines) + "\n")
    fit, used = 0, 0
    for line in lines:  # how many whole lines (with newlines) fit in 50 KB
        if used + len(line) + 1 > 50 * 1024:
            break
        used += len(line) + 1
        fit += 1
    result = session.read("values.py", mode="full")
    assert result.is_error is False
    assert result.text == doc(
        "values.py",
        *lines[:fit],
        "",
        f"(Output capped at 50 KB. Showing lines 1-{fit} of 3000. Use offset={fit + 1} to continue.)",
    )
    paged, results = read_all(session, "values.py")
    assert paged == lines
    assert [r.metadata["truncated"] for r in results][-1] is None


def test_description_states_the_limits() -> None:
    text = description("read", Limits())
    assert "{" not in text and "}" not in text
    hint = " ".join(text.split())
    assert "at most 2000 lines and 50 KB a call." in hint
    assert "A text file over 200 lines or 48 KB read whole gives its outline" in hint


def test_description_follows_the_limits() -> None:
    limits = Limits(max_lines=100, max_bytes=8 * 1024, max_line_chars=500, outline_lines=50)
    hint = " ".join(description("read", limits).split())
    assert "at most 100 lines and 8 KB a call." in hint
    assert "A text file over 50 lines or 48 KB read whole gives its outline" in hint


def test_parameters_match_the_request() -> None:
    # match_id and its context are resolved by the session into path, offset, limit and anchor;
    # symbol without a path into path, offset, limit and plain_whole
    fields = [name for name in ReadRequest.__dataclass_fields__ if name not in ("anchor", "plain_whole")]
    assert list(PARAMETERS) == [*fields, "match_id", "context_before", "context_after"]


def test_custom_line_limit(root: Path) -> None:
    (root / "f.txt").write_text("a\nb\nc\n")
    result = Session([root], limits=Limits(max_lines=2)).read("f.txt")
    assert result.text == doc("f.txt", "a", "b", "", "(Showing lines 1-2 of 3. Use offset=3 to continue.)")


# --- real files nobody here wrote -----------------------------------------------------------


@pytest.mark.parametrize("indexed", [False, True], ids=["whole", "indexed"])
@pytest.mark.parametrize("module", [textwrap, json.decoder, argparse])
def test_stdlib_source_read_exactly(module: Any, indexed: bool) -> None:
    source = inspect.getsourcefile(module)
    assert source is not None
    data = Path(source).read_bytes()
    own = data.decode("utf-8").split("\n")
    if own[-1] == "":
        own.pop()
    limits = Limits(index_bytes=1024) if indexed else Limits()
    session = Session([os.path.dirname(source)], limits=limits)
    name = os.path.basename(source)
    paged, results = read_all(session, name)
    assert paged == own
    assert {r.metadata["total_lines"] for r in results} == {len(own)}
    assert results[0].metadata["size"] == len(data)
    if len(data) > 50 * 1024:
        assert len(results) > 1 and results[0].metadata["truncated"] == "bytes"
    else:
        assert len(results) == 1
        lines = f"{len(own)} line{'' if len(own) == 1 else 's'}"
        assert results[0].text.endswith(f"\n\n(End of file - total {lines})\n</content>")


def test_stdlib_tab_format_numbers_match_the_file() -> None:
    source = inspect.getsourcefile(textwrap)
    assert source is not None
    own = Path(source).read_text("utf-8").split("\n")
    result = Session([os.path.dirname(source)]).read("textwrap.py", offset=100, limit=50, format="tab")
    shown, notices = split_page(result)
    assert shown == [f"{n}\t{own[n - 1]}" for n in range(100, 150)]
    assert notices == [f"(Showing lines 100-149 of {len(own) - 1}. Use offset=150 to continue.)"]


# --- properties -----------------------------------------------------------------------------

LINE = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n\x00\ufeff"),
    max_size=40,
) | st.text(alphabet="ab \t", min_size=100, max_size=600)

FILES = st.tuples(
    st.lists(LINE, max_size=30),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
)


def _write(folder: str, lines: list[str], newline: str, final: bool) -> list[str]:
    """Write ``lines`` to ``folder/f.txt``; return the lines the file really has."""
    data = newline.join(lines) + (newline if final and lines else "")
    with open(os.path.join(folder, "f.txt"), "wb") as handle:
        handle.write(data.encode("utf-8"))
    if not final and lines and lines[-1] == "":
        return lines[:-1]  # "a\n" + "" is the file "a\n": one line with a final newline
    return lines


def _check_notices(result: ToolResult, final: bool, expected_total: int, limits: Limits) -> None:
    meta = result.metadata
    _, notices = split_page(result)
    # lines holding invisible or bidi characters are named in a notice of their own (frame.hidden_notice)
    notices = [n for n in notices if "invisible or text-reordering characters (" not in n]
    if meta["newline"] == "\r\n":
        assert notices[0] == "(File uses CRLF line endings; edits keep them.)"
        notices = notices[1:]
    assert meta["total_lines"] == expected_total
    if expected_total == 0:
        assert notices == ["(Empty file - 0 lines)"]
    elif meta["next_offset"] is None:
        ending = "" if final else "; no newline at end of file"
        assert notices == [f"(End of file - total {expected_total} line{'' if expected_total == 1 else 's'}{ending})"]
    else:
        showing = (
            f"Showing lines {meta['offset']}-{meta['last_line']} of {expected_total}. "
            f"Use offset={meta['last_line'] + 1} to continue.)"
        )
        assert meta["next_offset"] == meta["last_line"] + 1
        if meta["truncated"] == "bytes":
            assert notices[0] == f"(Output capped at {byte_size(limits.max_bytes)}. {showing}"
        else:
            assert meta["truncated"] == "limit"
            assert notices == [f"({showing}"]


@settings(max_examples=60, deadline=None)
@given(
    file=FILES,
    limit=st.none() | st.integers(1, 12),
    max_bytes=st.sampled_from([None, 40, 300, 2048]),
    indexed=st.booleans(),
)
def test_paging_plain_reproduces_the_file(
    file: tuple[list[str], str, bool], limit: int | None, max_bytes: int | None, indexed: bool
) -> None:
    # indexed: every file of 2+ bytes goes through the line index instead of a whole decode
    lines, newline, final = file
    # a line that could pass for the frame seals the output: test_frame's property covers that
    assume(not any(frame_like(line) for line in lines))
    limits = Limits(
        max_bytes=max_bytes or Limits.max_bytes,
        index_bytes=1 if indexed else Limits.index_bytes,
    )
    with tempfile.TemporaryDirectory() as folder:
        expected = _write(folder, lines, newline, final)
        session = Session([folder], limits=limits)
        paged, results = read_all(session, "f.txt", limit=limit)
    assert paged == expected
    for result in results:
        meta = result.metadata
        _check_notices(result, final or not lines or expected != lines, len(expected), limits)
        shown = meta["last_line"] - meta["offset"] + 1
        if expected:
            assert shown >= 1
        if limit is not None:
            assert shown <= limit
        used = sum(len(line.encode()) + 1 for line in paged[meta["offset"] - 1 : meta["last_line"]])
        if shown > 1:
            assert used <= limits.max_bytes
        if meta["truncated"] == "bytes":
            following = paged[meta["last_line"]]
            assert used + len(following.encode()) + 1 > limits.max_bytes


def _undecorate(shown: list[str], first: int, fmt: str) -> list[str]:
    sep = "\t" if fmt == "tab" else ": "
    out = []
    for number, line in enumerate(shown, start=first):
        prefix = f"{number}{sep}"
        assert line.startswith(prefix), (line, prefix)
        out.append(line[len(prefix) :])
    return out


@settings(max_examples=60, deadline=None)
@given(
    file=FILES,
    fmt=st.sampled_from(["tab", "colon"]),
    limit=st.none() | st.integers(1, 12),
    max_bytes=st.sampled_from([None, 60, 500]),
)
def test_paging_decorated_formats_reproduce_the_file(
    file: tuple[list[str], str, bool], fmt: str, limit: int | None, max_bytes: int | None
) -> None:
    lines, newline, final = file
    limits = Limits() if max_bytes is None else Limits(max_bytes=max_bytes)
    with tempfile.TemporaryDirectory() as folder:
        expected = _write(folder, lines, newline, final)
        session = Session([folder], limits=limits)
        recovered: list[str] = []
        offset: int | None = 1
        while offset is not None:
            result = session.read("f.txt", offset=offset, limit=limit, format=fmt, fresh=True)
            shown, _ = split_page(result)
            recovered.extend(_undecorate(shown, result.metadata["offset"], fmt))
            offset = result.metadata["next_offset"]
    assert recovered == expected


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(file=FILES)
def test_plain_tokens_never_exceed_decorated(root: Path, file: tuple[list[str], str, bool]) -> None:
    lines, newline, final = file
    _write(str(root), lines, newline, final)
    session = Session([root])
    plain = session.read("f.txt", fresh=True)
    for fmt in ("tab", "colon"):
        decorated = session.read("f.txt", format=fmt, fresh=True)
        assert decorated.metadata["full_tokens"] == plain.metadata["tokens"]
        assert decorated.metadata["tokens"] == count_tokens(decorated.text)
        assert decorated.metadata["tokens"] >= plain.metadata["tokens"]


def test_split_page_helper_rejects_a_stub(session: Session, root: Path) -> None:
    (root / "f.txt").write_text("".join(f"line number {i}\n" for i in range(1, 41)))
    session.read("f.txt")
    stub = session.read("f.txt")
    assert re.fullmatch(r".*\(Lines 1-40 unchanged since you read them, .*\)\n</content>", stub.text, re.S)
    with pytest.raises(AssertionError):
        split_page(stub)
