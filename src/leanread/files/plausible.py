"""How implausible a decoded text is as real writing, in bits: the text half of choosing a
legacy encoding (``legacy.choose`` compares the decodings of the same bytes by it).

- ``zipf_bits``: the text's o200k_base tokens, each costing ``log2(rank + 1) + 3.7``. BPE merges
  frequent strings first, so a token's rank follows its frequency in the tokenizer's large
  multilingual training text and Zipf's law turns rank into a code length: real words of any
  script cost few bits, the rare characters and broken words of a wrong decoding many.
- ``oddity_bits``: what real text does not do and a tokenizer does not see: control, private-use
  or unassigned characters; a letter glued inside a word of another script (a one-pair CJK
  reading of ``It’s`` gives ``It痴``); a symbol between two letters of a word (``Za¿ó³æ``); an
  upper-case letter right after a lower-case one (``пЯИВЕР``); a one-letter word that is no word
  (``5 қ – or 10 қ``); Latin letters outside the alphabet of the one language that holds most of
  the text's accented letters (``L’été ŕ Paris coűte``).
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from collections import Counter
from functools import lru_cache

from ..tokens import encoding as o200k

__all__ = ["NON_ASCII", "oddity_bits", "script_of", "zipf_bits"]

# The accented letters of the languages written in Latin script with a legacy code page
# (windows-1250/1252/1254/1257, ISO 8859-x), after the main exemplar sets of Unicode CLDR.
_ALPHABETS: dict[str, frozenset[str]] = {
    name: frozenset(letters)
    for name, letters in {
        "French": "àâæçéèêëîïôœùûüÿ",
        "German": "äöüß",
        "Spanish": "áéíñóúü",
        "Portuguese": "àáâãçéêíóôõú",
        "Italian": "àèéìíîòóùú",
        "Catalan": "àçèéíïòóúü",
        "Dutch": "áéíóúàèëïöü",
        "Danish/Norwegian": "æøåéó",
        "Swedish": "åäöé",
        "Finnish": "äöåšž",
        "Icelandic": "áðéíóúýþæö",
        "Polish": "ąćęłńóśźż",
        "Czech": "áčďéěíňóřšťúůýž",
        "Slovak": "áäčďéíĺľňóôŕšťúýž",
        "Hungarian": "áéíóöőúüű",
        "Romanian": "ăâîșțşţ",
        "Croatian/Serbian/Bosnian": "čćđšž",
        "Slovene": "čšž",
        "Lithuanian": "ąčęėįšųūž",
        "Latvian": "āčēģīķļņšūž",
        "Estonian": "äõöüšž",
        "Turkish": "çğıöşüâîû",
        "Albanian": "çë",
    }.items()
}

# log2 of the harmonic number of o200k_base's 200,000 ranks (ln n + Euler's gamma).
_ZIPF_NORM = math.log2(math.log(200_000) + 0.5772)

# The one-letter words of those languages written with an accented letter: French, Portuguese
# à; Portuguese é, ó; Italian è; Icelandic á, í; Norwegian and Danish å; Swedish å, ö.
_ONE_LETTER_WORDS = frozenset("àéóèáíåö")

# Costs in bits (-log2 of how rarely real text shows the thing).
_NOT_TEXT = 16.0  # a control, private-use, unassigned character or U+FFFD
_MIXED_SCRIPT = 12.0  # a letter in a word of letters of another script
_GLUED_SYMBOL = 8.0  # a symbol between two letters of one word
_OUTSIDE_ALPHABET = 6.0  # a Latin letter outside the alphabet of the text's language
_ISLAND = 6.0  # a one-letter word that is no word (``_lone_letter_bits``)
_CASE_FLIP = 6.0  # an upper-case letter right after a lower-case one, one of them non-ASCII
NON_ASCII = re.compile(r"[^\x00-\x7f]")
# Combining marks of the scripts legacy code pages hold (windows-1258 tone marks, Arabic harakat,
# Hebrew points, Thai vowels and tones).
_MARKS = "".join(chr(c) for c in range(0x300, 0xE80) if unicodedata.category(chr(c)).startswith("M"))
# A word: a run of letters (and numbers that are not digits, such as ``½``) and those marks.
_WORD = re.compile(f"(?:[^\\W\\d_]|[{_MARKS}])+")
# A non-ASCII character outside any word: punctuation, a symbol, a control.
_NOT_IN_WORD = re.compile(f"[^\\x00-\\x7f\\w{_MARKS}]")

# Characters besides dashes that join two letters of a word in real text: apostrophes, a soft
# hyphen, Catalan's middle dot.
_JOINERS = frozenset("’‘ʼ′·\u00ad")
# First words of the names of letters and marks that belong to no one script.
_NO_SCRIPT = frozenset(
    {"MODIFIER", "COMBINING", "MASCULINE", "FEMININE", "MICRO", "SUPERSCRIPT", "SUBSCRIPT", "FULLWIDTH"}
)
_EAST_ASIAN = {
    "CJK": "HAN",
    "IDEOGRAPHIC": "HAN",
    "BOPOMOFO": "HAN",
    "HIRAGANA": "KANA",
    "KATAKANA": "KANA",
    "HANGUL": "HANGUL",
}


@lru_cache(maxsize=4096)
def script_of(char: str) -> str | None:
    """The script of a letter or mark, as the first word of its Unicode name: ``LATIN``,
    ``CYRILLIC``, ``GREEK``, ``ARABIC``, …; ``HAN`` (with Bopomofo), ``KANA`` (hiragana and
    katakana, half-width too) or ``HANGUL`` for East Asian ones; None for one of no script
    (``ª``, ``µ``, a combining accent, a full-width Latin letter) and for what is no letter."""
    if unicodedata.category(char)[0] not in "LM":
        return None  # a number such as ``½`` or ``²``
    first = unicodedata.name(char, "").split(" ", 1)[0].split("-", 1)[0]  # KATAKANA-HIRAGANA …
    if first == "HALFWIDTH":
        first = unicodedata.name(char).split(" ")[1].split("-", 1)[0]
    first = _EAST_ASIAN.get(first, first)
    return None if first in _NO_SCRIPT or not first else first


def _mixed(scripts: set[str | None]) -> bool:
    """Whether a word's letters come from more than one script, Han with kana (Japanese) or with
    Hangul (Korean) counting as one."""
    scripts = scripts - {None}
    return len(scripts) > 1 and not (scripts <= {"HAN", "KANA"} or scripts <= {"HAN", "HANGUL"})


def _word_bits(word: str) -> float:
    """Mixed scripts, case flips and combining marks on no letter (``_NOT_TEXT`` each) in one
    word that holds a non-ASCII character."""
    orphans = len(word) - len(word.lstrip(_MARKS))
    bits = _NOT_TEXT * orphans
    if _mixed({script_of(char) for char in word}):
        bits += _MIXED_SCRIPT * sum(1 for char in word if not char.isascii())
    for before, char in itertools.pairwise(word):
        if before.islower() and char.isupper() and not (before.isascii() and char.isascii()):
            bits += _CASE_FLIP
    return bits


def _lone_letter_bits(letter: str, longer: set[str | None]) -> float:
    """``_ISLAND`` for a one-letter word that is no word: of a script that only one-letter words
    use on a line whose longer words of one script each use ``longer`` (``5 қ – or 10 қ`` for
    ``5 € – or 10 €``; ``ч the perт`` for ``÷ the però``), or an accented Latin letter no language
    of ``_ALPHABETS`` uses as a word (``the ľ`` for ``the ¾``)."""
    script = script_of(letter)
    if script is None:
        return 0.0
    if script == "LATIN":
        return 0.0 if letter.lower() in _ONE_LETTER_WORDS else _ISLAND
    return _ISLAND if longer and script not in longer else 0.0


def _longer_scripts(words: list[str]) -> set[str | None]:
    """The scripts of a line's words longer than one letter, each of one script. A word of mixed
    scripts (``perт``) is itself a sign of a wrong reading, so it vouches for neither."""
    longer: set[str | None] = set()
    for word in words:
        scripts = {script_of(char) for char in word} - {None}
        if len(word) > 1 and not _mixed(scripts):
            longer |= scripts
    return longer


def _symbol_bits(line: str, i: int) -> float:
    """The cost of ``line[i]``, a non-ASCII character that is not a letter: a control,
    private-use or unassigned character, or a symbol between two letters of a word."""
    char = line[i]
    category = unicodedata.category(char)
    if category in ("Cc", "Co", "Cn", "Cs") or char == "\ufffd":
        return _NOT_TEXT
    if category[0] in "SP" and category != "Pd" and char not in _JOINERS and 0 < i < len(line) - 1:
        before, after = line[i - 1], line[i + 1]
        if (before.isupper() or before.islower()) and (after.isupper() or after.islower()):
            return _GLUED_SYMBOL
    return 0.0


def _line_bits(line: str) -> float:
    """The oddities of one line: each word holding a non-ASCII character (``_word_bits``, and
    ``_lone_letter_bits`` for a word of one letter) and each other non-ASCII character
    (``_symbol_bits``)."""
    words = _WORD.findall(line)
    bits = 0.0
    longer: set[str | None] | None = None  # worked out once a line, for its first lone letter
    for word in words:
        if not word.isascii():
            bits += _word_bits(word)
            if len(word) == 1:
                longer = _longer_scripts(words) if longer is None else longer
                bits += _lone_letter_bits(word, longer)
    for found in _NOT_IN_WORD.finditer(line):
        bits += _symbol_bits(line, found.start())
    return bits


def _alphabet_bits(text: str) -> float:
    """Cost of the non-ASCII Latin letters that the best-fitting language's alphabet lacks."""
    counts = Counter(char.lower() for char in NON_ASCII.findall(text) if char.isalpha() and script_of(char) == "LATIN")
    if not counts:
        return 0.0
    fits = max(sum(n for letter, n in counts.items() if letter in alphabet) for alphabet in _ALPHABETS.values())
    return _OUTSIDE_ALPHABET * (sum(counts.values()) - fits)


def oddity_bits(text: str) -> float:
    """What in ``text`` real writing does not do, in bits (see the module docstring)."""
    lines = (line for line in text.split("\n") if not line.isascii())
    return sum(_line_bits(line) for line in lines) + _alphabet_bits(text)


def zipf_bits(text: str) -> float:
    """Code length of ``text`` in bits under a Zipf model of the o200k_base vocabulary: token
    of rank r (0-based) has probability 1 / ((r + 1) * H), H the harmonic number of the
    vocabulary's size, so it costs ``log2(r + 1) + log2(H)`` bits."""
    tokens = o200k().encode(text, disallowed_special=())
    return sum(math.log2(rank + 1) for rank in tokens) + len(tokens) * _ZIPF_NORM
