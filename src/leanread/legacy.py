"""Choose the legacy encoding of bytes that are neither UTF-8 nor UTF-16/32, and say when the
choice is a guess.

Candidates are the encodings charset-normalizer finds (each match and the encodings it names as
giving the same text) and the usual code page of each script; every one that decodes the bytes
strictly is scored by how implausible its text is as real writing, in bits (lower reads better):

- ``zipf_bits``: the text's o200k_base tokens, each costing ``log2(rank + 1) + 3.7``. BPE merges
  frequent strings first, so a token's rank follows its frequency in the tokenizer's large
  multilingual training text and Zipf's law turns rank into a code length: real words of any
  script cost few bits, the rare characters and broken words of a wrong decoding many.
- ``oddity_bits``: what real text does not do and a tokenizer does not see: control, private-use
  or unassigned characters; a letter glued inside a word of another script (a one-pair CJK
  reading of ``It’s`` gives ``It痴``); a symbol between two letters of a word (``Za¿ó³æ``); an
  upper-case letter right after a lower-case one (``пЯИВЕР``); Latin letters outside the
  alphabet of the one language that holds most of the text's accented letters (``L’été ŕ
  Paris coűte``).
- ``prior_bits``: how rarely text comes in the encoding: 0 for windows-1252 (the default for
  Western text), 3 for the other legacy encodings common on the web (``_COMMON``), 8 for the
  rest of the WHATWG Encoding Standard's (``_WHATWG``; no other encoding is tried).

The cheapest candidate wins; among candidates that give the same text the most common encoding
is named. When the cheapest candidate giving a different text costs less than ``CLOSE_BITS``
more, the choice is a guess and that candidate is named as the alternative.
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
#: under 2**6 = 64). Measured on 522 short fragments of real texts in 12 encodings
#: (``tests/encoding_accuracy.py --margins``, BENCHMARKS.md "Legacy encodings"): a wrong reading
#: won by at most 5.0 bits; under 6 bits flags both and 11 of the 520 right ones.
CLOSE_BITS = 6.0

#: Lines scored per candidate: the first lines holding a byte over 0x7F, up to this many bytes.
SAMPLE_BYTES = 4096

# The usual code page of each script, tried besides charset-normalizer's matches (it stops at
# the first multi-byte decoding that reads without mess on short text, so windows-1252 can be
# missing from its answer).
_USUAL = (
    "cp1252",
    "cp1250",
    "cp1251",
    "koi8_r",
    "cp1253",
    "cp1254",
    "cp1257",
    "gb18030",
    "big5",
    "cp932",
    "euc_jp",
    "cp949",
)

# Legacy encodings that web sites still use, as Python codec names (``codecs.lookup(name).name``):
# W3Techs' survey of character encodings (via Wikipedia, "Popularity of text encodings", 2024)
# finds ISO-8859-1/windows-1252 on about 1.3 % of sites and each of these on at most 0.2 %.
_COMMON = frozenset(
    {
        "cp1250",
        "cp1251",
        "cp1253",
        "cp1254",
        "cp1255",
        "cp1256",
        "cp1257",
        "cp874",
        "koi8-r",
        "iso8859-2",
        "iso8859-7",
        "iso8859-9",
        "iso8859-15",
        "iso8859-1",
        "gbk",
        "gb18030",
        "gb2312",
        "big5",
        "cp950",
        "shift_jis",
        "cp932",
        "euc_jp",
        "euc_kr",
        "cp949",
    }
)

# The legacy encodings of the WHATWG Encoding Standard (https://encoding.spec.whatwg.org/), the
# ones still met in practice, as Python codec names; Python's others (DOS, EBCDIC, HP and the
# rarer Mac code pages) are not tried: their text is all but never met, and a short Western
# text reads in one of them by chance (cp775 turns ``naïve`` into ``na’ve``).
_WHATWG = _COMMON | frozenset(
    {
        "cp866",
        "iso8859-3",
        "iso8859-4",
        "iso8859-5",
        "iso8859-6",
        "iso8859-8",
        "iso8859-10",
        "iso8859-13",
        "iso8859-14",
        "iso8859-16",
        "koi8-u",
        "mac-roman",
        "mac-cyrillic",
        "cp1258",
        "big5hkscs",
    }
)

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
_ISLAND = 6.0  # a one-letter word of a script no longer word of its line uses
_CASE_FLIP = 4.0  # an upper-case letter right after a lower-case one, one of them non-ASCII
_PRIOR_COMMON = 3.0  # windows-1252 is at least 6 times as common (log2(1.3 / 0.2) = 2.7)
_PRIOR_RARE = 8.0  # not in the survey: under 0.01 %, over 100 times rarer than windows-1252

_NON_ASCII = re.compile(r"[^\x00-\x7f]")
# Combining marks of the scripts legacy code pages hold (windows-1258 tone marks, Arabic harakat,
# Hebrew points, Thai vowels and tones).
_MARKS = "".join(chr(c) for c in range(0x300, 0xE80) if unicodedata.category(chr(c)).startswith("M"))

# Characters besides dashes that join two letters of a word in real text: apostrophes, a soft
# hyphen, Catalan's middle dot.
_JOINERS = frozenset("’‘ʼ′·\u00ad")
# First words of the names of letters and marks that belong to no one script.
_NO_SCRIPT = frozenset({"MODIFIER", "COMBINING", "MASCULINE", "FEMININE", "MICRO", "SUPERSCRIPT", "SUBSCRIPT"})
_EAST_ASIAN = frozenset({"CJK", "HIRAGANA", "KATAKANA", "HANGUL", "BOPOMOFO", "IDEOGRAPHIC", "HALFWIDTH", "FULLWIDTH"})


@dataclass(frozen=True)
class Choice:
    """The encoding chosen for some bytes.

    Attributes:
        encoding: Python codec name (``codecs.lookup(name).name``): ``cp1252``, ``gb18030``, ….
        alternative: the encoding of the runner-up whose text differs, when it reads almost as
            well (``cost`` within ``CLOSE_BITS``): the choice is a guess. None when it is clear.
        margin: the runner-up's cost minus the winner's, in bits; ``math.inf`` when no other
            candidate decodes to a different text.
    """

    encoding: str
    alternative: str | None
    margin: float


def _prior_bits(codec: str) -> float:
    if codec == "cp1252":
        return 0.0
    return _PRIOR_COMMON if codec in _COMMON else _PRIOR_RARE


@lru_cache(maxsize=4096)
def _script(char: str) -> str | None:
    """The script of a letter or mark, as the first word of its Unicode name: ``LATIN``,
    ``CYRILLIC``, ``GREEK``, ``ARABIC``, …, ``EAST_ASIAN`` for Han, kana, Hangul and full-width
    forms (which CJK text mixes), None for one of no script (``ª``, ``µ``, a combining accent)."""
    first = unicodedata.name(char, "").split(" ", 1)[0]
    if first in _EAST_ASIAN:
        return "EAST_ASIAN"
    return None if first in _NO_SCRIPT or not first else first


def _is_letter(char: str) -> bool:
    return unicodedata.category(char)[0] in "LM"


def _word_at(line: str, i: int) -> tuple[int, int]:
    """The span of the maximal run of letters and marks around ``line[i]``, a letter."""
    start, end = i, i + 1
    while start > 0 and _is_letter(line[start - 1]):
        start -= 1
    while end < len(line) and _is_letter(line[end]):
        end += 1
    return start, end


def _words(line: str) -> list[str]:
    """The maximal runs of letters and marks of ``line``."""
    words: list[str] = []
    start = None
    for i, char in enumerate(line):
        if _is_letter(char):
            if start is None:
                start = i
        elif start is not None:
            words.append(line[start:i])
            start = None
    if start is not None:
        words.append(line[start:])
    return words


def _word_bits(word: str) -> float:
    """Mixed scripts, case flips and combining marks on no letter (``_NOT_TEXT`` each) in one
    word that holds a non-ASCII character."""
    scripts = {_script(char) for char in word} - {None}
    orphans = len(word) - len(word.lstrip(_MARKS))
    bits = _NOT_TEXT * orphans
    if len(scripts) > 1:
        bits += _MIXED_SCRIPT * sum(1 for char in word if not char.isascii())
    for before, char in itertools.pairwise(word):
        if before.islower() and char.isupper() and not (before.isascii() and char.isascii()):
            bits += _CASE_FLIP
    return bits


def _lone_letter_bits(letter: str, line: str) -> float:
    """``_ISLAND`` for a one-letter word that is no word: of a script that only one-letter words
    use on a line of longer words (``5 қ – or 10 қ`` for ``5 € – or 10 €``), or an accented
    Latin letter no language of ``_ALPHABETS`` uses as a word (``the ľ`` for ``the ¾``)."""
    script = _script(letter)
    if script is None:
        return 0.0
    if script == "LATIN":
        return 0.0 if letter.lower() in _ONE_LETTER_WORDS else _ISLAND
    longer = {_script(char) for word in _words(line) if len(word) > 1 for char in word} - {None}
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
    bits = 0.0
    scored_to = 0
    for found in _NON_ASCII.finditer(line):
        i = found.start()
        if i < scored_to:
            continue  # in a word already scored
        if not _is_letter(line[i]):
            bits += _symbol_bits(line, i)
            continue
        start, scored_to = _word_at(line, i)
        word = line[start:scored_to]
        bits += _word_bits(word)
        if len(word) == 1:
            bits += _lone_letter_bits(word, line)
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


def implausibility(text: str, codec: str) -> float:
    """How implausible ``text``, decoded with ``codec``, is as real writing, in bits: lower
    reads better; only differences between decodings of the same bytes mean anything."""
    return zipf_bits(text) + oddity_bits(text) + _prior_bits(codec)


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
    """Codec names to try: charset-normalizer's matches for ``sample`` (best first, each with
    the encodings it names as giving the same text), then ``_USUAL`` (only windows-1252 when
    it has none); only the encodings of ``_WHATWG`` (so no UTF-16/32, never right without NUL
    bytes), without duplicates."""
    names: list[str] = []
    for match in charset_normalizer.from_bytes(sample):
        names.append(match.encoding)
        names.extend(match.could_be_from_charset)
    # No match: every decoding is too messy to be text (charset-normalizer's mess ratio over
    # 0.2); only windows-1252 is still tried, the encoding of Western text.
    names.extend(_USUAL if names else _USUAL[:1])
    seen: dict[str, None] = {}
    for name in names:
        try:
            codec = codecs.lookup(name).name
        except LookupError:
            continue
        if codec in _WHATWG or codec == "cp1252":
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
        ranked.append((costs[text] + _prior_bits(codec), codec))
    ranked.sort(key=lambda pair: pair[0])
    return ranked


def choose(data: bytes) -> Choice | None:
    """The legacy encoding of ``data`` (bytes that are not UTF-8), or None when no candidate
    decodes them.

    Candidates are scored by ``implausibility`` on the lines that hold non-ASCII bytes
    (``_sample``); the cheapest that decodes all of ``data`` wins. The alternative is the
    cheapest after it whose text of ``data`` differs, when it costs less than ``CLOSE_BITS``
    more (else the choice is clear).
    """
    best: tuple[float, str, str] | None = None
    for cost, codec in _ranked(_sample(data)):
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            continue
        if best is None:
            best = (cost, codec, text)
        elif text != best[2]:
            margin = cost - best[0]
            return Choice(best[1], codec if margin < CLOSE_BITS else None, margin)
    return None if best is None else Choice(best[1], None, math.inf)
