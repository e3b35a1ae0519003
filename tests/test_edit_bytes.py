"""Random files and random edits through `Session.edit` give exactly the expected bytes."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leanread import MemoryLedger, Session

# Printable text every encoding below can hold (Latin-1's range is in cp1252 and all Unicode forms).
LINE = st.text(
    alphabet=st.one_of(
        st.characters(min_codepoint=0x20, max_codepoint=0x7E), st.characters(min_codepoint=0xA0, max_codepoint=0xFF)
    ),
    max_size=30,
)
ENCODINGS = {  # name → (codec, byte-order mark)
    "utf-8": ("utf-8", b""),
    "utf-8-bom": ("utf-8", b"\xef\xbb\xbf"),
    "utf-16-le": ("utf-16-le", b"\xff\xfe"),
    "utf-16-be": ("utf-16-be", b"\xfe\xff"),
    "cp1252": ("cp1252", b""),
}


def _encode(lines: list[str], codec: str, bom: bytes, newline: str, final: bool) -> bytes:
    return bom + (newline.join(lines) + (newline if final else "")).encode(codec)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(LINE, min_size=1, max_size=12),
    encoding=st.sampled_from(sorted(ENCODINGS)),
    newline=st.sampled_from(["\n", "\r\n"]),
    final=st.booleans(),
    pick=st.integers(min_value=0),
    token=st.from_regex(r"[a-z_]{1,12}", fullmatch=True),
)
def test_edit_one_line_changes_exactly_its_bytes(
    lines: list[str], encoding: str, newline: str, final: bool, pick: int, token: str
) -> None:
    codec, bom = ENCODINGS[encoding]
    original = _encode(lines, codec, bom, newline, final)
    if not final and len(lines) > 1 and lines[-1] == "":  # "a\n" + "" is the file "a\n"
        lines, final = lines[:-1], True
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "f.txt")
        path.write_bytes(original)
        session = Session([tmp], ledger=MemoryLedger())
        shown = session.read("f.txt")
        if shown.is_error:  # short random bytes may not decode as text (refused, never garbled)
            return
        text = re.split(r'<content(?: id="[0-9a-f]+")?>\n', shown.text, maxsplit=1)[1]  # sealed or not
        total = shown.metadata["total_lines"]
        if not total:
            return
        displayed = text.split("\n")[:total]
        index = pick % total
        old = displayed[index]
        if (
            not old
            or old == token
            or sum(line.count(old) for line in displayed) != 1
            or "\n".join(displayed).count(old) != 1
        ):
            return
        result = session.edit("f.txt", old, token)
        assert not result.is_error, result.text
        expected_lines = [*lines]
        expected_lines[index] = token
        assert path.read_bytes() == _encode(expected_lines, codec, bom, newline, final)
