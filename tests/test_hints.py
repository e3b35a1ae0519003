"""Every byte is reachable through `read` alone: following the hints the text gives, from
offset 1, rebuilds the file exactly, whatever the caps, formats, encodings and line endings."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from leanread import Limits, Session
from leanread.view.formats import FORMATS, undecorate
from leanread.view.frame import frame_like
from leanread.view.render import CUT_MARKER

CONTINUE = re.compile(r"Use offset=(\d+) to continue\.\)$")
CUT_AT = re.compile(re.escape(CUT_MARKER.split("{")[0]) + r"[\d,]+ chars in all\]$")
READ_REST = re.compile(r"offset=(\d+|N), char_offset=(\d+)")
SLICE_NEXT = re.compile(r"Use offset=(\d+), char_offset=(\d+) to continue\.\)$")


def _body(text: str) -> list[str]:
    inner = text.split("<content>\n", 1)[1].rsplit("\n</content>", 1)[0]
    return inner.split("\n")


def _rest_of_line(session: Session, number: int, start: int) -> str:
    """Follow char_offset hints until the line ends."""
    pieces = []
    while True:
        result = session.read(offset=number, char_offset=start)
        assert not result.is_error, result.text
        body = _body(result.text)
        pieces.append(body[0])
        follow = SLICE_NEXT.search(body[-1])
        if follow is None:
            assert body[-1].startswith(f"(End of line {number},"), body[-1]
            return "".join(pieces)
        start = int(follow.group(2))


def follow_hints(session: Session, path: str, fmt: str) -> list[str]:
    """The file's lines as a model following every hint would assemble them."""
    lines: list[str] = []
    result = session.read(path, format=fmt, fresh=True)
    while True:
        assert not result.is_error, result.text
        meta = result.metadata
        body = _body(result.text)
        count = meta["last_line"] - meta["offset"] + 1
        notices = body[count + 1 :] if count else body
        rest_hint = next((READ_REST.search(n) for n in notices if READ_REST.search(n)), None)
        for number, shown in enumerate(body[:count], start=meta["offset"]):
            line = undecorate(shown, fmt)  # type: ignore[arg-type]
            cut = CUT_AT.search(line)
            if cut:
                assert rest_hint is not None, notices
                line = line[: cut.start()] + _rest_of_line(session, number, int(rest_hint.group(2)))
            lines.append(line)
        follow = CONTINUE.search(notices[-1])
        if follow is None:
            assert notices[-1].startswith(("(End of file", "(Empty file")), notices
            return lines
        result = session.read(path, offset=int(follow.group(1)), format=fmt, fresh=True)


# NUL is left out: a file holding one is binary by design.
line_strategy = st.text(
    alphabet=st.characters(blacklist_characters="\n\r\x00", blacklist_categories=("Cs",)), max_size=120
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(line_strategy, max_size=30),
    newline=st.sampled_from(["\n", "\r\n"]),
    final_newline=st.booleans(),
    encoding=st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-32"]),
    fmt=st.sampled_from(FORMATS),
    max_lines=st.integers(min_value=1, max_value=12),
    max_bytes=st.integers(min_value=40, max_value=600),
    max_line_chars=st.integers(min_value=5, max_value=60),
    indexed=st.booleans(),
)
def test_following_hints_rebuilds_the_file(
    lines: list[str],
    newline: str,
    final_newline: bool,
    encoding: str,
    fmt: str,
    max_lines: int,
    max_bytes: int,
    max_line_chars: int,
    indexed: bool,
) -> None:
    # a plain read of a line that could pass for the frame is sealed: test_frame's property covers that
    assume(fmt != "plain" or not any(frame_like(line) for line in lines))
    text = newline.join(lines) + (newline if final_newline and lines else "")
    expected = text.split(newline)
    if expected[-1] == "":  # a final newline ends the last line; it does not start another
        expected.pop()
    if indexed and encoding in ("utf-16", "utf-32"):
        encoding = "utf-8"  # the line index serves ASCII-compatible encodings only
    limits = Limits(
        max_lines=max_lines,
        max_bytes=max_bytes,
        max_line_chars=max_line_chars,
        index_bytes=1 if indexed else 8 * 1024 * 1024,
    )
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "f.txt").write_bytes(text.encode(encoding))
        session = Session([tmp], limits=limits)
        assert follow_hints(session, "f.txt", fmt) == expected
