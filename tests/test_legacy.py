"""Legacy encodings: which one a file is read in, when that is said to be a guess, and that edits
keep the file's bytes (the samples are in ``encoding_samples``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from encoding_samples import LONE_PAIRS, SAMPLES
from hypothesis import example, given, settings
from hypothesis import strategies as st

from leanread import Limits, Session
from leanread.files.legacy import SAMPLE_BYTES, _sample
from leanread.files.textfile import decode
from leanread.ledger.store import MemoryLedger

_EAST_ASIAN = range(0x2E80, 0xFFFF)


def _content(text: str) -> str:
    return text.split("<content>\n", 1)[1].rsplit("\n</content>", 1)[0]


def _text_of(data: bytes) -> str:
    tf = decode(data, "f.txt")
    return "\n".join(tf.lines) + ("\n" if tf.final_newline else "")


@pytest.mark.parametrize(
    ("family", "codec", "text"), SAMPLES, ids=[f"{f}-{c}-{i}" for i, (f, c, _) in enumerate(SAMPLES)]
)
def test_real_texts_are_read_as_written(family: str, codec: str, text: str) -> None:
    assert _text_of(text.encode(codec)) == text


@pytest.mark.parametrize("text", LONE_PAIRS)
def test_a_windows_1252_text_with_one_cjk_looking_pair_is_not_cjk(text: str) -> None:
    tf = decode(text.encode("cp1252"), "f.txt")
    assert tf.encoding == "cp1252"
    assert "\n".join(tf.lines) + "\n" == text
    assert not any(ord(char) in _EAST_ASIAN for line in tf.lines for char in line)


def _fragments() -> list[tuple[str, str]]:
    """Every word prefix and suffix of each sample line that holds two or more non-ASCII
    characters: the short files where a wrong reading comes closest."""
    found: dict[tuple[str, str], None] = {}
    for _family, codec, text in [*SAMPLES, *(("western", "cp1252", t) for t in LONE_PAIRS)]:
        for line in text.splitlines():
            words = line.split(" ")
            for k in range(1, len(words) + 1):
                for part in (" ".join(words[:k]), " ".join(words[k - 1 :])):
                    if sum(not char.isascii() for char in part) >= 2:
                        found.setdefault((codec, part + "\n"))
    return list(found)


def test_short_fragments_are_read_right_or_flagged_naming_the_right_encoding() -> None:
    # The measurement that set CLOSE_BITS: a wrong reading never wins by that much.
    wrong = []
    for codec, text in _fragments():
        data = text.encode(codec)
        tf = decode(data, "f.txt")
        if "\n".join(tf.lines) + "\n" == text:
            continue
        if all(data.decode(other) != text for other in tf.other_encodings):
            wrong.append((codec, text, tf.encoding, tf.other_encodings))
    assert wrong == []
    assert len(_fragments()) > 500


@pytest.mark.parametrize(
    ("text", "codec", "notices"),
    [
        (
            "naïve résumé\n",
            "cp1252",
            "(File is cp1252-encoded; edits keep that encoding.)\n(cp1252 is a guess; the file could also be cp1250.)",
        ),
        (
            "Señor\n",
            "cp1252",
            "(File is cp1252-encoded; edits keep that encoding.)\n(cp1252 is a guess; the file could also be cp1250.)",
        ),
        (
            "Instalacja zakończona pomyślnie.\n",
            "cp1250",
            "(File is cp1250-encoded; edits keep that encoding.)\n(cp1250 is a guess; the file could also be cp1252.)",
        ),
        (
            "Instalacja zakończona pomyślnie.\r\n",
            "cp1250",
            "(File is cp1250-encoded with CRLF line endings; edits keep both.)\n"
            "(cp1250 is a guess; the file could also be cp1252.)",
        ),
        (
            "Don’t forget: the price is 5 € – or 10 € — “cheap”.\n",
            "cp1252",
            "(File is cp1252-encoded; edits keep that encoding.)",
        ),
        ("# It’s fine\n", "cp1252", "(File is cp1252-encoded; edits keep that encoding.)"),
    ],
)
@pytest.mark.parametrize("index_bytes", [8 * 1024 * 1024, 1], ids=["whole", "indexed"])
def test_read_says_when_the_encoding_is_a_guess_and_what_else_it_could_be(
    tmp_path: Path, text: str, codec: str, notices: str, index_bytes: int
) -> None:
    (tmp_path / "t.txt").write_bytes(text.encode(codec))
    result = Session([tmp_path], ledger=MemoryLedger(), limits=Limits(index_bytes=index_bytes)).read("t.txt")
    assert _content(result.text) == text.replace("\r\n", "\n") + f"\n{notices}\n(End of file - total 1 line)"
    assert result.metadata["encoding"] == codec
    guess = notices.rsplit("could also be ", 1)[1][:-2].split(" or ") if "a guess" in notices else None
    assert result.metadata.get("encoding_alternatives") == guess


def test_a_guess_names_each_other_encoding_that_reads_almost_as_well(tmp_path: Path) -> None:
    # Turkish in windows-1254 reads as Icelandic letters in windows-1252, or Baltic in -1257.
    (tmp_path / "t.txt").write_bytes("değiştirildi.\n".encode("cp1254"))
    result = Session([tmp_path], ledger=MemoryLedger()).read("t.txt")
    assert _content(result.text) == (
        "deðiþtirildi.\n\n(File is cp1252-encoded; edits keep that encoding.)\n"
        "(cp1252 is a guess; the file could also be cp1257 or cp1254.)\n(End of file - total 1 line)"
    )
    assert (result.metadata["encoding"], result.metadata["encoding_alternatives"]) == ("cp1252", ["cp1257", "cp1254"])


@pytest.mark.parametrize(
    ("codec", "text", "old", "new"),
    [
        ("cp1252", "# It’s fine\nx = 1\n", "It’s fine", "It’s fine — 5 € “net”"),
        ("cp1252", "Don’t forget: the price is 5 € – or 10 € — “cheap”.\nend\n", "“cheap”", "‘cheaper’ – 4 €"),
        (
            "cp1252",
            "Price list – 2024\r\nBasic: 9,99 €\r\nPro: 19,99 € (incl. VAT)\r\n",
            "Basic: 9,99 €",
            "Basic: 8,99 € — sale",
        ),
        (
            "cp1250",
            "Zażółć gęślą jaźń. Plik konfiguracyjny — nie edytować ręcznie.\nok\n",
            "ręcznie",
            "ręcznie, proszę",
        ),
        ("cp1250", "Árvíztűrő tükörfúrógép. A beállítások mentése sikeres volt.\n", "sikeres", "sikeres – kész, ő ű"),
        ("cp1251", "Привет, мир! Это тестовый файл для проверки кодировки.\n", "мир", "мир — всем"),
        ("koi8_r", "Сообщение об ошибке: файл не найден, проверьте путь.\n", "путь", "путь ещё раз"),
        ("gbk", "# 配置文件\n# 请不要手动修改此文件，它会在每次构建时自动生成。\n", "手动修改", "手工编辑"),
    ],
)
def test_an_edit_typed_with_the_real_characters_changes_only_its_span(
    tmp_path: Path, codec: str, text: str, old: str, new: str
) -> None:
    original = text.encode(codec)
    (tmp_path / "f.txt").write_bytes(original)
    session = Session([tmp_path], ledger=MemoryLedger())
    assert not session.read("f.txt").is_error
    result = session.edit("f.txt", old, new)
    assert not result.is_error, result.text
    assert (tmp_path / "f.txt").read_bytes() == original.replace(old.encode(codec), new.encode(codec), 1)


@pytest.mark.parametrize(
    ("codec", "text", "old", "new", "message"),
    [
        (
            "cp1252",
            "# It’s fine\n",
            "It’s fine",
            "It’s 中文",
            "Line 1 of f.txt would contain '中' (U+4E2D), which the file's encoding, cp1252, cannot hold, "
            "so nothing was written; use only characters cp1252 has, or an escape.",
        ),
        (
            "cp1250",
            "Zażółć gęślą jaźń. Plik konfiguracyjny — nie edytować ręcznie.\n",
            "ręcznie",
            "ręcznie, señor",
            "Line 1 of f.txt would contain 'ñ' (U+00F1), which the file's encoding, cp1250, cannot hold, "
            "so nothing was written; use only characters cp1250 has, or an escape.",
        ),
    ],
)
def test_a_character_the_encoding_cannot_hold_is_refused_and_nothing_written(
    tmp_path: Path, codec: str, text: str, old: str, new: str, message: str
) -> None:
    original = text.encode(codec)
    (tmp_path / "f.txt").write_bytes(original)
    session = Session([tmp_path], ledger=MemoryLedger())
    assert not session.read("f.txt").is_error
    result = session.edit("f.txt", old, new)
    assert result.is_error
    assert result.text == message
    assert (tmp_path / "f.txt").read_bytes() == original


def test_grep_shows_the_lines_as_read_decodes_them(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes("# It’s fine\nx = 1\n".encode("cp1252"))
    (tmp_path / "b.txt").write_bytes("Instalacja zakończona pomyślnie.\nfine\n".encode("cp1250"))
    result = Session([tmp_path], ledger=MemoryLedger()).grep("fine|Instalacja")
    assert result.text.split("\n") == [
        "a.txt",
        "1\t# It’s fine",
        "b.txt",
        "1\tInstalacja zakończona pomyślnie.",
        "2\tfine",
    ]


_WORDS = [
    "the",
    "price",
    "is",
    "café",
    "crème",
    "naïve",
    "résumé",
    "déjà",
    "été",
    "à",
    "où",
    "français",
    "garçon",
    "über",
    "Größe",
    "schön",
    "Straße",
    "Mädchen",
    "mañana",
    "niño",
    "años",
    "corazón",
    "acción",
    "João",
    "não",
    "são",
    "informação",
    "você",
    "città",
    "perché",
    "più",
    "però",
    "così",
    "and",
    "with",
    "for",
    "from",
    "don’t",
    "it’s",
    "we’re",
    "file",
    "lines",
    "Noël",
    "Ærø",
    "smörgåsbord",
    "fjord",
    "søster",
    "mål",
    "Ürün",
    "Fußgänger",
    "Gemüse",
    "straße",
    "août",
    "hôtel",
    "cœur",
    "œuvre",
    "naïveté",
    "Zürich",
    "Málaga",
]
_BETWEEN = [" ", " ", " ", ", ", ". ", " — ", " – ", "; ", " € ", "… ", "\n", " “", "” ", " «", "» ", "’ "]
# Symbols Western text uses (not ``¤``, ISO 8859-15's € byte, nor spacing accents such as ``¨``).
_SYMBOLS = list("§°±©®™•…‰†‡×÷½¼¾²³µ¶·«»¡¿¢£¥€")


@settings(max_examples=150, deadline=None)
# Cyrillic reads ``÷ ÷ ÷`` as three one-letter words ``ч``, vouched for by the mixed word ``perт``.
@example(words=["the", "però", "don’t"], between=[" "] * 12, symbols=[(0, "÷")] * 3)
# ISO 8859-2 reads ``¾ ¾`` as two lone ``ž``: the token counts prefer a letter common in Czech words.
@example(words=["the", "café", "café"], between=[" "] * 12, symbols=[(0, "¾")] * 2)
# Windows-1251 reads ``÷ ¼`` as two lone Cyrillic letters; ISO 8859-10 reads ``½`` as ``―``, and
# ISO 8859-15, more common, as a lone ``œ``.
@example(words=["the", "don’t", "don’t"], between=[" "] * 12, symbols=[(0, "§"), (3, "÷"), (3, "¼")])
@example(words=["the", "café", "café"], between=[" "] * 12, symbols=[(0, "§"), (3, "½"), (3, "½")])
@given(
    # Two or more words with their accents or apostrophes: text whose only non-ASCII bytes are a
    # few stray symbols (``¡ ¼ the``) holds no evidence of its encoding.
    words=st.lists(st.sampled_from(_WORDS), min_size=3, max_size=12).filter(
        lambda words: sum(not word.isascii() for word in words) >= 2
    ),
    between=st.lists(st.sampled_from(_BETWEEN), min_size=12, max_size=12),
    symbols=st.lists(st.tuples(st.integers(0, 11), st.sampled_from(_SYMBOLS)), max_size=3),
)
def test_western_text_in_windows_1252_reads_back_or_is_a_guess_naming_it(
    words: list[str], between: list[str], symbols: list[tuple[int, str]]
) -> None:
    parts = [word + gap for word, gap in zip(words, between, strict=False)]
    for at, symbol in symbols:
        parts.insert(min(at, len(parts)), symbol + " ")
    text = "".join(parts).rstrip("\n") + "\n"
    data = text.encode("cp1252")
    tf = decode(data, "f.txt")
    if "\n".join(tf.lines) + "\n" != text:
        assert "cp1252" in tf.other_encodings, (tf.encoding, tf.other_encodings)


@pytest.mark.parametrize(
    ("codec", "sentence"),
    [
        ("cp1251", "Привет, мир! Это тестовый файл для проверки кодировки я и в с. "),
        ("gbk", "用户名或密码错误，请重新输入。 "),
        ("big5", "請不要手動修改此檔案，它會在每次建置時自動產生。 "),
        ("shift_jis", "この設定ファイルは自動生成されます。 "),
    ],
)
def test_a_line_of_a_hundred_kilobytes_is_judged_by_a_whole_character_sample(codec: str, sentence: str) -> None:
    # one line (a FITS header, a minified file): its sample is cut below 4 KiB at a byte under 0x40,
    # which no legacy multi-byte codec uses inside a character, so scoring stays linear and the codec stands
    line = (sentence * (100_000 // len(sentence.encode(codec)) + 1)).encode(codec)
    assert len(line) > 100_000
    sample = _sample(line + b"\n")
    assert len(sample) <= SAMPLE_BYTES and sample.decode(codec) in line.decode(codec)
    assert _text_of(line + b"\n") == line.decode(codec) + "\n"
