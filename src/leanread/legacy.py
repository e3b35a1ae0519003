"""Choose the legacy encoding of bytes that are neither UTF-8 nor UTF-16/32, and say when the
choice is a guess.

Candidates are the legacy encodings of the WHATWG Encoding Standard, those charset-normalizer
finds first; every one that decodes the bytes strictly is scored by how implausible its text
is as real writing, in bits (lower reads better):

- ``zipf_bits``: the text's o200k_base tokens, each costing ``log2(rank + 1) + 3.7``. BPE merges
  frequent strings first, so a token's rank follows its frequency in the tokenizer's large
  multilingual training text and Zipf's law turns rank into a code length: real words of any
  script cost few bits, the rare characters and broken words of a wrong decoding many.
- ``oddity_bits``: what real text does not do and a tokenizer does not see: control, private-use
  or unassigned characters; a letter glued inside a word of another script (a one-pair CJK
  reading of ``It’s`` gives ``It痴``); a symbol between two letters of a word (``Za¿ó³æ``); an
  upper-case letter right after a lower-case one (``пЯИВЕР``); Latin letters outside the
  alphabet of the one language that holds most of the text's accented letters (``L’été ŕ
  Paris coűte``); a Cyrillic, Greek, Hebrew, … code page whose text has no letter of its script.
- ``prior_bits``: how rarely text comes in the encoding: 0 for windows-1252 (the default for
  Western text), 3 for the other legacy encodings common on the web (``_COMMON``), 8 for the
  rest of the WHATWG Encoding Standard's (``_RARE``; no other encoding is tried).

The cheapest candidate wins; among candidates that give the same text the most common encoding
is named. When candidates giving other texts cost less than ``CLOSE_BITS`` more, the choice is
a guess and they are named as its alternatives.
"""

from __future__ import annotations

import codecs
import itertools
import math
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import charset_normalizer

from .tokens import encoding as o200k

__all__ = ["CLOSE_BITS", "Choice", "choose", "implausibility"]

#: A runner-up within this many bits of the winner makes the choice a guess (a likelihood ratio
#: under 2**6 = 64). Measured on 656 short fragments of real texts in 21 encodings
#: (``tests/encoding_accuracy.py --margins``, BENCHMARKS.md "Legacy encodings"): a wrong reading
#: won by at most 5.4 bits; under 6 bits flags all 5 and 26 of the 651 right ones.
CLOSE_BITS = 6.0

#: Alternatives named at most when the choice is a guess.
MAX_ALTERNATIVES = 3

#: Lines scored per candidate: the first lines holding a byte over 0x7F, up to this many bytes.
SAMPLE_BYTES = 4096

# Legacy encodings that web sites still use, as Python codec names (``codecs.lookup(name).name``),
# windows-1252 first, then one per script or region before its variants: W3Techs' survey of
# character encodings (via Wikipedia, "Popularity of text encodings", 2024) finds
# ISO-8859-1/windows-1252 on about 1.3 % of sites and each of the others on at most 0.2 %.
_COMMON = (
    "cp1252",
    "cp1250",
    "cp1251",
    "koi8-r",
    "cp1253",
    "cp1254",
    "cp1255",
    "cp1256",
    "cp1257",
    "cp874",
    "gb18030",
    "big5",
    "cp932",
    "euc_jp",
    "cp949",
    "iso8859-15",
    "iso8859-2",
    "iso8859-7",
    "iso8859-9",
    "iso8859-1",
    "gbk",
    "gb2312",
    "cp950",
    "shift_jis",
    "euc_kr",
)

# The rest of the legacy encodings of the WHATWG Encoding Standard
# (https://encoding.spec.whatwg.org/), which with ``_COMMON`` are the ones still met in
# practice. Python's others (DOS code pages but IBM866, EBCDIC, HP, the rarer Mac code pages)
# are not tried: their text is all but never met, and a short Western text reads in one of them
# by chance (cp775 turns ``naïve`` into ``na’ve``).
_RARE = (
    "cp866",
    "koi8-u",
    "mac-cyrillic",
    "iso8859-5",
    "iso8859-3",
    "iso8859-4",
    "iso8859-6",
    "iso8859-8",
    "iso8859-10",
    "iso8859-13",
    "iso8859-14",
    "iso8859-16",
    "mac-roman",
    "cp1258",
    "big5hkscs",
)
_TRIED = frozenset(_COMMON + _RARE)

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
_NO_HOME_LETTER = 6.0  # a non-Latin code page's text without a letter of its script
_PRIOR_COMMON = 3.0  # windows-1252 is at least 6 times as common (log2(1.3 / 0.2) = 2.7)
_PRIOR_RARE = 8.0  # not in the survey: under 0.01 %, over 100 times rarer than windows-1252

_NON_ASCII = re.compile(r"[^\x00-\x7f]")
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


@dataclass(frozen=True)
class Choice:
    """The encoding chosen for some bytes.

    Attributes:
        encoding: Python codec name (``codecs.lookup(name).name``): ``cp1252``, ``gb18030``, ….
        alternatives: the encodings, closest first (at most ``MAX_ALTERNATIVES``), whose texts
            differ from the winner's and from each other's and read almost as well (costing
            under ``CLOSE_BITS`` more): the choice is a guess. Empty when it is clear.
        margin: the runner-up's cost minus the winner's, in bits; ``math.inf`` when no other
            candidate decodes to a different text.
    """

    encoding: str
    alternatives: tuple[str, ...]
    margin: float


def _prior_bits(codec: str) -> float:
    if codec == "cp1252":
        return 0.0
    return _PRIOR_COMMON if codec in _COMMON else _PRIOR_RARE


@lru_cache(maxsize=4096)
def _script(char: str) -> str | None:
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
    if _mixed({_script(char) for char in word}):
        bits += _MIXED_SCRIPT * sum(1 for char in word if not char.isascii())
    for before, char in itertools.pairwise(word):
        if before.islower() and char.isupper() and not (before.isascii() and char.isascii()):
            bits += _CASE_FLIP
    return bits


def _lone_letter_bits(letter: str, words: list[str]) -> float:
    """``_ISLAND`` for a one-letter word that is no word: of a script that only one-letter words
    use on a line of longer ``words`` (``5 қ – or 10 қ`` for ``5 € – or 10 €``), or an accented
    Latin letter no language of ``_ALPHABETS`` uses as a word (``the ľ`` for ``the ¾``)."""
    script = _script(letter)
    if script is None:
        return 0.0
    if script == "LATIN":
        return 0.0 if letter.lower() in _ONE_LETTER_WORDS else _ISLAND
    longer = {_script(char) for word in words if len(word) > 1 for char in word} - {None}
    return _ISLAND if longer and script not in longer else 0.0


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
    for word in words:
        if not word.isascii():
            bits += _word_bits(word)
            if len(word) == 1:
                bits += _lone_letter_bits(word, words)
    for found in _NOT_IN_WORD.finditer(line):
        bits += _symbol_bits(line, found.start())
    return bits


def _alphabet_bits(text: str) -> float:
    """Cost of the non-ASCII Latin letters that the best-fitting language's alphabet lacks."""
    counts = Counter(char.lower() for char in _NON_ASCII.findall(text) if char.isalpha() and _script(char) == "LATIN")
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


@lru_cache(maxsize=64)
def _home_script(codec: str) -> str | None:
    """The script of most letters of a single-byte code page's upper half other than Latin
    (``CYRILLIC`` for windows-1251, ``GREEK`` for ISO 8859-7); None for a Latin or multi-byte one."""
    chars = [bytes([byte]).decode(codec, "ignore") for byte in range(0x80, 0x100)]
    if bytes(range(0x80, 0x100)).decode(codec, "ignore") != "".join(chars):
        return None  # a multi-byte codec: high bytes pair up
    scripts = Counter(_script(char) for char in chars if char.isalpha())
    home = scripts.most_common(1)[0][0] if scripts else None
    return None if home == "LATIN" else home


def _homeless_bits(text: str, codec: str) -> float:
    """``_NO_HOME_LETTER`` when ``codec`` is the code page of a script other than Latin and
    ``text`` holds no letter of it: such a file is all but always written in that script (an
    English line with ``’ ‘`` is windows-1252's ``¢ ¡``, not ISO 8859-7's quotes)."""
    home = _home_script(codec)
    if home is None or any(_script(char) == home for char in _NON_ASCII.findall(text) if char.isalpha()):
        return 0.0
    return _NO_HOME_LETTER


def implausibility(text: str, codec: str) -> float:
    """How implausible ``text``, decoded with ``codec``, is as real writing, in bits: lower
    reads better; only differences between decodings of the same bytes mean anything."""
    return zipf_bits(text) + oddity_bits(text) + _homeless_bits(text, codec) + _prior_bits(codec)


def _sample(data: bytes) -> bytes:
    """The lines of ``data`` that hold a byte over 0x7F, up to ``SAMPLE_BYTES`` (whole lines,
    the first always)."""
    picked: list[bytes] = []
    size = 0
    for line in data.split(b"\n"):
        if line.isascii():
            continue
        if picked and size + len(line) > SAMPLE_BYTES:
            break
        picked.append(line)
        size += len(line) + 1
    return b"\n".join(picked)


def _candidates(sample: bytes) -> list[str]:
    """Codec names to try: charset-normalizer's matches for ``sample`` that are in ``_TRIED``
    (best first, each with the encodings it names as giving the same text), then the rest of
    ``_COMMON`` and ``_RARE`` (charset-normalizer stops at the first multi-byte match of a short
    text, so the right code page is often missing from its answer). When it has no match at all,
    every decoding being too messy to be text (its mess ratio over 0.2), only windows-1252."""
    names: list[str] = []
    for match in charset_normalizer.from_bytes(sample):
        names.append(match.encoding)
        names.extend(match.could_be_from_charset)
    names.extend(_COMMON + _RARE if names else _COMMON[:1])
    seen: dict[str, None] = {}
    for name in names:
        try:
            codec = codecs.lookup(name).name
        except LookupError:
            continue
        if codec in _TRIED:
            seen.setdefault(codec)
    return list(seen)


def _ranked(sample: bytes) -> list[tuple[float, str]]:
    """``(implausibility, codec)`` of each candidate that decodes ``sample``, cheapest first
    (charset-normalizer's order among equals); each distinct text is scored once."""
    costs: dict[str, float] = {}
    ranked: list[tuple[float, str]] = []
    for codec in _candidates(sample):
        try:
            text = sample.decode(codec)
        except (UnicodeDecodeError, LookupError):
            continue
        if text not in costs:
            costs[text] = zipf_bits(text) + oddity_bits(text)
        ranked.append((costs[text] + _homeless_bits(text, codec) + _prior_bits(codec), codec))
    ranked.sort(key=lambda pair: pair[0])
    return ranked


def choose(data: bytes) -> Choice | None:
    """The legacy encoding of ``data`` (bytes that are not UTF-8), or None when no candidate
    decodes them.

    Candidates are scored by ``implausibility`` on the lines that hold non-ASCII bytes
    (``_sample``); the cheapest that decodes all of ``data`` wins, and the next ones that give
    other texts of ``data`` for less than ``CLOSE_BITS`` more are its alternatives.
    """
    found: list[tuple[float, str, str]] = []  # (cost, codec, text), one per text
    for cost, codec in _ranked(_sample(data)):
        if found and cost - found[0][0] >= CLOSE_BITS and len(found) > 1:
            break
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            continue
        if all(text != other for _, _, other in found):
            found.append((cost, codec, text))
        if len(found) > MAX_ALTERNATIVES:
            break
    if not found:
        return None
    best = found[0][0]
    close = tuple(codec for cost, codec, _ in found[1:] if cost - best < CLOSE_BITS)
    return Choice(found[0][1], close, found[1][0] - best if len(found) > 1 else math.inf)
