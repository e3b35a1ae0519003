"""writeback: logical text back to the file's exact bytes, and atomic writes that keep the file's mode."""

from __future__ import annotations

import codecs
import os
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from leanread.code.edit_plan import plan_edit
from leanread.errors import NotText, PathError, UnencodableText
from leanread.files.textfile import TextFile, binary_kind, decode, split_lines
from leanread.files.writeback import atomic_write, encode_edit, encode_text


def logical(tf: TextFile) -> str:
    """The logical text of a decoded file: ``"\\n"`` between lines, bytes that are not valid
    UTF-8 kept as surrogateescape code points (``raw_lines``)."""
    lines = getattr(tf, "raw_lines", None) or tf.lines
    return "\n".join(lines) + ("\n" if tf.final_newline else "")


def write_back(tf: TextFile, text: str, display: str = "the file") -> bytes:
    return encode_text(text, encoding=tf.encoding, bom=tf.bom, newline=tf.newline, display=display)


def decoded(data: bytes) -> TextFile:
    """``decode(data)``; data it refuses (short GB18030 text it cannot place) is no example here."""
    try:
        return decode(data, "f")
    except NotText:
        assume(False)
        raise


def edit_bytes(data: bytes, old: str, new: str) -> bytes:
    """The bytes after one edit: decode, plan on the logical text, encode as the file was."""
    tf = decode(data, "f")
    return edited(data, tf, plan_edit(logical(tf), old, new).new_text)


def edited(data: bytes, tf: TextFile, new_text: str) -> bytes:
    return encode_edit(data, logical(tf), new_text, encoding=tf.encoding, bom=tf.bom, newline=tf.newline)


def one_to_one(data: bytes, tf: TextFile) -> bool:
    """The codec decode chose gives these bytes back from their characters (cp932, which decode
    takes for some short GB18030 or cp1252 text, has characters with two byte forms)."""
    body = data[len(_BOMS[tf.encoding]) if tf.bom else 0 :]
    errors = "surrogateescape" if tf.encoding == "utf-8" else "strict"
    return body.decode(tf.encoding, errors).encode(tf.encoding, errors) == body


# --- strategies -------------------------------------------------------------------------------------

_CP1252 = [chr(c) for c in range(256) if chr(c) not in "\r\n\x00" and chr(c).encode("cp1252", "ignore")]
_CP1252 = [c for c in _CP1252 if len(c.encode("cp1252", "ignore")) == 1]
_UNICODE = st.characters(blacklist_characters="\r\n\x00", blacklist_categories=("Cs",))
_CJK = st.one_of(
    st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF),
    st.sampled_from(list("abc xyz=;{}\t，。「」")),
)
_ASCII = st.sampled_from(list("abcdefxyz 01=;(){}\t  "))

# (encoding, BOM, characters the text may hold)
_KINDS: dict[str, tuple[str, bool, st.SearchStrategy[str]]] = {
    "utf-8": ("utf-8", False, _UNICODE),
    "utf-8-bom": ("utf-8", True, _UNICODE),
    "utf-16-le": ("utf-16-le", True, _UNICODE),
    "utf-16-be": ("utf-16-be", True, _UNICODE),
    "utf-32-le": ("utf-32-le", True, _UNICODE),
    "utf-32-be": ("utf-32-be", True, _UNICODE),
    "cp1252": ("cp1252", False, st.sampled_from(_CP1252)),
    "gb18030": ("gb18030", False, _CJK),
}
_NEWLINES = st.sampled_from(["\n", "\r\n", "\r"])
_BOMS = {
    "utf-8": codecs.BOM_UTF8,
    "utf-16-le": codecs.BOM_UTF16_LE,
    "utf-16-be": codecs.BOM_UTF16_BE,
    "utf-32-le": codecs.BOM_UTF32_LE,
    "utf-32-be": codecs.BOM_UTF32_BE,
}


@st.composite
def files(draw: st.DrawFn) -> tuple[bytes, list[str], str, bool, str, bool]:
    """A file's bytes and how they were made: (data, lines, newline, final newline, encoding, BOM)."""
    kind = draw(st.sampled_from(sorted(_KINDS)))
    encoding, bom, chars = _KINDS[kind]
    # Lines with tabs, trailing spaces and (now and then) a lone CR, which stays part of its line.
    line = st.lists(st.one_of(chars, st.sampled_from([" ", "\t", "  "])), max_size=12).map("".join)
    lines = draw(st.lists(line, max_size=8))
    newline = draw(_NEWLINES)
    final = draw(st.booleans()) and bool(lines)
    text = newline.join(lines) + (newline if final else "")
    data = (_BOMS[encoding] if bom else b"") + text.encode(encoding)
    # Without a BOM, leading bytes that look binary (a NUL, "BZh", "GIF89a", …) are not text.
    assume(bom or binary_kind(data[:8192]) is None)
    return data, lines, newline, final, encoding, bom


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(made=files())
def test_decode_then_encode_gives_the_original_bytes(made: tuple[bytes, list[str], str, bool, str, bool]) -> None:
    data, *_ = made
    tf = decoded(data)
    assume(one_to_one(data, tf))
    assert write_back(tf, logical(tf)) == data


@settings(max_examples=300, deadline=None)
@given(made=files())
def test_encode_text_inverts_splitting_in_the_known_encoding(
    made: tuple[bytes, list[str], str, bool, str, bool],
) -> None:
    data, _, _, _, encoding, bom = made
    # What decode gives when it finds the encoding the file was written in.
    lines, newline, final = split_lines(data[len(_BOMS[encoding]) if bom else 0 :].decode(encoding))
    text = "\n".join(lines) + ("\n" if final else "")
    assert encode_text(text, encoding=encoding, bom=bom, newline=newline) == data


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(  # GB18030 bytes that cp932 also decodes, but not back to the same bytes
    made=(b"\x81F\xb4\xfba", ["\u4e17\u8d37a"], "\r", False, "gb18030", False), where=1, before="", after="", new=""
)
@given(
    made=files(),
    where=st.integers(min_value=0),
    before=st.text(st.sampled_from("ab \t"), max_size=3),
    after=st.text(st.sampled_from("ab \t"), max_size=3),
    new=st.text(_ASCII | st.just("\n"), max_size=12),
)
def test_an_edit_changes_only_the_edited_bytes(
    made: tuple[bytes, list[str], str, bool, str, bool], where: int, before: str, after: str, new: str
) -> None:
    _, lines, newline, final, encoding, bom = made
    target = "@@target@@"
    assume(new != target)
    # Put the one line holding the target into the file and rebuild its bytes.
    lines = [line.replace("@", "") for line in lines]
    index = where % (len(lines) + 1)
    lines.insert(index, before + target + after)
    head = newline.join(lines[:index]) + (newline if index else "") + before
    tail = after + (newline if index < len(lines) - 1 else "") + newline.join(lines[index + 1 :])
    tail += newline if final else ""
    prefix, suffix = (_BOMS[encoding] if bom else b"") + head.encode(encoding), tail.encode(encoding)
    data = prefix + target.encode(encoding) + suffix
    tf = decoded(data)

    out = edited(data, tf, plan_edit(logical(tf), target, new).new_text)

    assert out.startswith(prefix)
    assert out.endswith(suffix)
    middle = out[len(prefix) : len(out) - len(suffix)]
    assert middle == new.replace("\n", tf.newline).encode(tf.encoding)


# --- the users' cases --------------------------------------------------------------------------------


def test_crlf_file_without_final_newline_keeps_its_endings() -> None:
    data = b"alpha\r\nbeta\r\ngamma"
    assert edit_bytes(data, "alpha\nbeta", "one\ntwo") == b"one\r\ntwo\r\ngamma"
    # old_string copied with the file's own CRLF endings gives the same bytes
    assert edit_bytes(data, "alpha\r\nbeta", "one\r\ntwo") == b"one\r\ntwo\r\ngamma"


def test_latin1_byte_elsewhere_in_the_file_is_untouched() -> None:
    data = b"const x = 1;\n// caf\xe9 note\n"
    assert edit_bytes(data, "const x = 1;", "const x = 2;") == b"const x = 2;\n// caf\xe9 note\n"
    assert edit_bytes(data, "caf\xe9", "th\xe9") == b"const x = 1;\n// th\xe9 note\n"


def test_bom_utf16_and_cr_files_keep_bom_encoding_and_endings() -> None:
    data = codecs.BOM_UTF8 + b"a = 1\r\nb = 2\r\n"
    assert edit_bytes(data, "b = 2", "b = 3\nc = 4") == codecs.BOM_UTF8 + b"a = 1\r\nb = 3\r\nc = 4\r\n"
    data = codecs.BOM_UTF16_BE + "x\r\ny\r\n".encode("utf-16-be")
    assert edit_bytes(data, "y", "z\u00e9") == codecs.BOM_UTF16_BE + "x\r\nz\u00e9\r\n".encode("utf-16-be")
    assert edit_bytes(b"one\rtwo\rthree", "two\n", "2\n") == b"one\r2\rthree"


def test_gb18030_text_round_trips_through_an_edit() -> None:
    data = "# 中文注释：编码测试\nname = '旧值'\n".encode("gb18030")
    out = edit_bytes(data, "name = '旧值'", "name = '新值'")
    assert out == "# 中文注释：编码测试\nname = '新值'\n".encode("gb18030")


def test_bytes_that_are_not_utf8_survive_an_edit() -> None:
    text = "caf\udce9 \u00e9\r\nx = 1\r\n"  # logical text holds "\n"; here CRLF to encode by hand
    logical_text = text.replace("\r\n", "\n")
    data = text.encode("utf-8", "surrogateescape")
    assert data == b"caf\xe9 \xc3\xa9\r\nx = 1\r\n"
    assert encode_text(logical_text, encoding="utf-8", bom=False, newline="\r\n") == data
    plan = plan_edit(logical_text, "caf\ufffd \u00e9", "caf\ufffd \u00e9 ok")
    out = encode_text(plan.new_text, encoding="utf-8", bom=False, newline="\r\n")
    assert out == b"caf\xe9 \xc3\xa9 ok\r\nx = 1\r\n"


@pytest.mark.skipif("raw_lines" not in TextFile.__dataclass_fields__, reason="decode keeps no invalid bytes")
def test_a_utf8_file_with_a_bad_byte_round_trips_through_decode() -> None:
    data = "# r\u00e9sum\u00e9 na\u00efve\n".encode() + b"name = 'caf\xe9'\n"
    assert edit_bytes(data, "na\u00efve", "naive") == b"# r\xc3\xa9sum\xc3\xa9 naive\nname = 'caf\xe9'\n"
    assert edit_bytes(data, "caf\ufffd'", "caf\ufffd!'") == data.replace(b"\xe9'", b"\xe9!'")


def test_lines_an_edit_leaves_alone_keep_their_bytes_in_a_codec_with_two_forms() -> None:
    # cp932 reads both FB B6 and EE 9A as U+90DE and writes EE 9A back: re-encoding the whole
    # file would change line 2, which the edit does not touch.
    original = b"@@target@@\r\n\xd2\xbb\xb6\xa1\xc9\xa5\xcb\xfb\xb6\xa1\r\nend\r\n"
    text = original.decode("cp932").replace("\r\n", "\n")
    assert encode_text(text, encoding="cp932", bom=False, newline="\r\n") != original
    new_text = plan_edit(text, "@@target@@\n", "one\ntwo\n").new_text
    out = encode_edit(original, text, new_text, encoding="cp932", bom=False, newline="\r\n")
    assert out == b"one\r\ntwo\r\n\xd2\xbb\xb6\xa1\xc9\xa5\xcb\xfb\xb6\xa1\r\nend\r\n"
    # edits in two places: the lines between keep their bytes too
    text2 = "a\n" + text + "b\n"
    original2 = b"a\r\n" + original + b"b\r\n"
    new_text = plan_edit(text2, "a\n@@target@@", "A\n@@target@@", replace_all=True).new_text.replace("b\n", "B\n")
    out = encode_edit(original2, text2, new_text, encoding="cp932", bom=False, newline="\r\n")
    assert out == original2.replace(b"a\r\n", b"A\r\n").replace(b"b\r\n", b"B\r\n")


def test_encode_edit_is_encode_text_when_the_bytes_do_not_split_into_the_lines() -> None:
    # bytes that are not what old_text says: nothing to splice, the new text is encoded whole
    out = encode_edit(b"other\n", "a\n", "b\n", encoding="cp932", bom=False, newline="\n")
    assert out == b"b\n"
    with pytest.raises(UnencodableText, match=r"^Line 1 of x\.txt would contain '☃'"):
        encode_edit(b"a", "a", "☃", encoding="cp1252", bom=False, newline="\n", display="x.txt")


# --- encode_text ---------------------------------------------------------------------------------------


def test_encode_text_turns_each_newline_into_the_files_and_adds_the_bom() -> None:
    assert encode_text("a\nb\n", encoding="utf-8", bom=False, newline="\r\n") == b"a\r\nb\r\n"
    assert encode_text("a\nb", encoding="utf-8", bom=True, newline="\r") == b"\xef\xbb\xbfa\rb"
    assert encode_text("a\n", encoding="utf-16-le", bom=True, newline="\n") == b"\xff\xfea\x00\n\x00"
    assert encode_text("a", encoding="utf-32-be", bom=True, newline="\n") == b"\x00\x00\xfe\xff\x00\x00\x00a"
    # a lone CR inside a line of an LF file stays as it is
    assert encode_text("a\rb\nc", encoding="utf-8", bom=False, newline="\n") == b"a\rb\nc"
    # codecs that would add or strip a BOM themselves follow the bom flag instead
    assert encode_text("a", encoding="utf-16", bom=False, newline="\n") == b"a\x00"
    assert encode_text("a", encoding="utf-8-sig", bom=False, newline="\n") == b"a"


def test_unencodable_character_names_character_line_and_encoding() -> None:
    with pytest.raises(UnencodableText) as err:
        encode_text("x = 1\ny = '☃'\n", encoding="cp1252", bom=False, newline="\r\n", display="src/a.py")
    assert str(err.value) == (
        "Line 2 of src/a.py would contain '☃' (U+2603), which the file's encoding, cp1252, cannot hold, "
        "so nothing was written; use only characters cp1252 has, or an escape."
    )
    with pytest.raises(UnencodableText, match=r"^Line 1 of the file would contain '\\ud800' \(U\+D800\)"):
        encode_text("\ud800", encoding="utf-8", bom=False, newline="\n")


def test_encode_text_refuses_a_bad_newline_or_a_bom_the_encoding_has_not() -> None:
    with pytest.raises(ValueError, match="newline must be"):
        encode_text("a", encoding="utf-8", bom=False, newline="\n\r")
    with pytest.raises(ValueError, match="cp1252 has no byte-order mark"):
        encode_text("a", encoding="cp1252", bom=True, newline="\n")


# --- atomic_write ------------------------------------------------------------------------------------


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_atomic_write_replaces_content_and_keeps_the_mode(tmp_path: Path) -> None:
    target = tmp_path / "run.sh"
    target.write_bytes(b"old\n")
    target.chmod(0o754)
    atomic_write(str(target), b"new\n")
    assert target.read_bytes() == b"new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o754
    assert leftovers(tmp_path) == []


def test_atomic_write_creates_a_new_file_with_the_umask_mode(tmp_path: Path) -> None:
    mask = os.umask(0o027)
    try:
        atomic_write(str(tmp_path / "new.txt"), b"hi")
    finally:
        os.umask(mask)
    assert (tmp_path / "new.txt").read_bytes() == b"hi"
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o640


def test_atomic_write_through_the_realpath_keeps_a_symlink(tmp_path: Path) -> None:
    target = tmp_path / "real.txt"
    target.write_bytes(b"old")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    atomic_write(os.path.realpath(link), b"new")
    assert link.is_symlink()
    assert link.read_bytes() == target.read_bytes() == b"new"


def test_atomic_write_failure_leaves_the_original_and_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "a.txt"
    target.write_bytes(b"original")

    def refuse(src: str, dst: str, **dir_fds: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(PathError) as err:
        atomic_write(str(target), b"changed", display="a.txt")
    assert str(err.value) == (
        "Cannot write a.txt (No space left on device), so it is unchanged; "
        "fix the cause (permissions, free space) and try again."
    )
    assert target.read_bytes() == b"original"
    assert leftovers(tmp_path) == []


def test_atomic_write_interrupted_removes_the_temp_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupt(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupt)
    with pytest.raises(KeyboardInterrupt):
        atomic_write(str(tmp_path / "a.txt"), b"x")
    assert list(tmp_path.iterdir()) == []


def test_atomic_write_missing_folder_and_directory_target(tmp_path: Path) -> None:
    with pytest.raises(PathError) as err:
        atomic_write(str(tmp_path / "nope" / "a.txt"), b"x", display="nope/a.txt")
    assert str(err.value) == "Cannot write nope/a.txt: its folder does not exist; create the folder first."
    (tmp_path / "d").mkdir()
    with pytest.raises(PathError) as err:
        atomic_write(str(tmp_path / "d"), b"x", display="d")
    assert str(err.value) == "d is a directory; give the path of a file."


def test_atomic_write_refuses_a_read_only_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "locked.txt"
    target.write_bytes(b"original")
    target.chmod(0o444)
    # root may write anything; act as a user for whom the file is read-only
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    with pytest.raises(PathError) as err:
        atomic_write(str(target), b"x", display="locked.txt")
    assert (
        str(err.value)
        == "locked.txt is read-only (mode 444), so it is unchanged; ask the user to make it writable first."
    )
    assert target.read_bytes() == b"original"
    assert leftovers(tmp_path) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_atomic_write_into_a_read_only_folder(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    (folder / "a.txt").write_bytes(b"original")
    folder.chmod(0o555)
    try:
        with pytest.raises(PathError, match=r"^Cannot write a.txt \(Permission denied\), so it is unchanged"):
            atomic_write(str(folder / "a.txt"), b"x", display="a.txt")
    finally:
        folder.chmod(0o755)
    assert (folder / "a.txt").read_bytes() == b"original"
