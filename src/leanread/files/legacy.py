"""Choose the legacy encoding of bytes that are neither UTF-8 nor UTF-16/32, and say when the
choice is a guess.

Candidates are the legacy encodings of the WHATWG Encoding Standard, those charset-normalizer
finds first; every one that decodes the bytes strictly is scored by ``implausibility``, in bits
(lower reads better): how implausible its text is as real writing (``plausible.zipf_bits`` and
``plausible.oddity_bits``), 6 bits more for a Cyrillic, Greek, Hebrew, … code page whose text
has no letter of its script, and how rarely text comes in the encoding: 0 for windows-1252 (the
default for Western text), 3 for the other legacy encodings common on the web (``_COMMON``), 8
for the rest of the WHATWG standard's (``_RARE``; no other encoding is tried).

The cheapest candidate wins; among candidates that give the same text the most common encoding
is named. When candidates giving other texts cost less than ``CLOSE_BITS`` more, the choice is
a guess and they are named as its alternatives. When the winner's text differs from a more
common encoding's only in characters that stand alone, a letter in one where the other has a
symbol, no word tells them apart: the more common encoding is named, as a guess with the winner
as its alternative.
"""

from __future__ import annotations

import codecs
import math
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import charset_normalizer

from .plausible import NON_ASCII, oddity_bits, script_of, zipf_bits

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

# Costs in bits (-log2 of how rarely real text shows the thing).
_NO_HOME_LETTER = 6.0  # a non-Latin code page's text without a letter of its script
_PRIOR_COMMON = 3.0  # windows-1252 is at least 6 times as common (log2(1.3 / 0.2) = 2.7)
_PRIOR_RARE = 8.0  # not in the survey: under 0.01 %, over 100 times rarer than windows-1252


@dataclass(frozen=True)
class Choice:
    """The encoding chosen for some bytes.

    Attributes:
        encoding: Python codec name (``codecs.lookup(name).name``): ``cp1252``, ``gb18030``, ….
        alternatives: the encodings, closest first (at most ``MAX_ALTERNATIVES``), whose texts
            differ from the winner's and from each other's and read almost as well (costing
            under ``CLOSE_BITS`` more): the choice is a guess. Empty when it is clear.
        margin: the runner-up's cost minus the winner's, in bits; ``math.inf`` when no other
            candidate decodes to a different text; negative when a more common encoding was
            named over a cheaper reading that differs from it only in lone characters.
    """

    encoding: str
    alternatives: tuple[str, ...]
    margin: float


def _prior_bits(codec: str) -> float:
    if codec == "cp1252":
        return 0.0
    return _PRIOR_COMMON if codec in _COMMON else _PRIOR_RARE


@lru_cache(maxsize=64)
def _home_script(codec: str) -> str | None:
    """The script of most letters of a single-byte code page's upper half other than Latin
    (``CYRILLIC`` for windows-1251, ``GREEK`` for ISO 8859-7); None for a Latin or multi-byte one."""
    chars = [bytes([byte]).decode(codec, "ignore") for byte in range(0x80, 0x100)]
    if bytes(range(0x80, 0x100)).decode(codec, "ignore") != "".join(chars):
        return None  # a multi-byte codec: high bytes pair up
    scripts = Counter(script_of(char) for char in chars if char.isalpha())
    home = scripts.most_common(1)[0][0] if scripts else None
    return None if home == "LATIN" else home


def _homeless_bits(text: str, codec: str) -> float:
    """``_NO_HOME_LETTER`` when ``codec`` is the code page of a script other than Latin and
    ``text`` holds no letter of it: such a file is all but always written in that script (an
    English line with ``’ ‘`` is windows-1252's ``¢ ¡``, not ISO 8859-7's quotes)."""
    home = _home_script(codec)
    if home is None or any(script_of(char) == home for char in NON_ASCII.findall(text) if char.isalpha()):
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
        picked.append(_cut(line))
        size += len(picked[-1]) + 1
    return b"\n".join(picked)


def _cut(line: bytes) -> bytes:
    """``line``, or its first ``SAMPLE_BYTES`` up to the last byte below 0x40 among them (a space,
    a digit, punctuation: no legacy multi-byte codec uses such a byte inside a character, so the
    cut splits none). Scoring is linear in the sample, but a FITS header or a minified file can
    be one line of megabytes."""
    if len(line) <= SAMPLE_BYTES:
        return line
    head = line[:SAMPLE_BYTES]
    at = max(head.rfind(bytes([b])) for b in range(0x40))
    return head[: at + 1] if at > 0 else head


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
    (``_sample``); the cheapest that decodes all of ``data`` and encodes it back to the same bytes
    (``_reads_back``) wins, and the next ones that give
    other texts of ``data`` for less than ``CLOSE_BITS`` more are its alternatives.
    """
    sample = _sample(data)
    ranked = _ranked(sample)
    found: list[tuple[float, str, str]] = []  # (cost, codec, text), one per text
    for cost, codec in ranked:
        if found and cost - found[0][0] >= CLOSE_BITS and len(found) > 1:
            break
        text = _reads_back(data, codec)
        if text is None:
            continue
        if all(text != other for _, _, other in found):
            found.append((cost, codec, text))
        if len(found) > MAX_ALTERNATIVES:
            break
    if not found:
        return None
    best = found[0][0]
    close = tuple(codec for cost, codec, _ in found[1:] if cost - best < CLOSE_BITS)
    passed: list[str] = []  # no word tells them apart: the more common encoding, as a guess
    cost, codec = best, found[0][1]
    while (common := _more_common_alike(codec, ranked, sample, data)) is not None:
        passed.append(codec)
        cost, codec = common
    if passed:
        others = tuple(dict.fromkeys(c for c in (*passed, *close) if c != codec))
        return Choice(codec, others[:MAX_ALTERNATIVES], best - cost)
    return Choice(found[0][1], close, found[1][0] - best if len(found) > 1 else math.inf)


def _more_common_alike(
    chosen: str, ranked: list[tuple[float, str]], sample: bytes, data: bytes
) -> tuple[float, str] | None:
    """The most common candidate (``_prior_bits``) more common than ``chosen`` whose reading of
    ``sample`` differs from ``chosen``'s only in characters that stand alone (``_only_lone_differ``)
    and that reads all of ``data`` back (``_reads_back``), with its cost; None when there is none."""
    text = sample.decode(chosen)
    alike = [
        (cost, codec)
        for cost, codec in ranked
        if _prior_bits(codec) < _prior_bits(chosen) and _only_lone_differ(text, sample.decode(codec))
    ]
    for cost, codec in sorted(alike, key=lambda pair: (_prior_bits(pair[1]), pair[0])):
        if _reads_back(data, codec) is not None:
            return cost, codec
    return None


def _reads_back(data: bytes, codec: str) -> str | None:
    """``data`` decoded with ``codec``, or None when it does not decode or its text does not
    encode back to the same bytes (cp932 reads IBM's ``0xFB 0x61`` and writes NEC's ``0xEE 0x45``
    for it): a file read so could not be written back unchanged."""
    try:
        text = data.decode(codec)
    except UnicodeDecodeError:
        return None
    try:
        return text if text.encode(codec) == data else None
    except UnicodeEncodeError:
        return None


def _only_lone_differ(text: str, other: str) -> bool:
    """Whether two readings of the same bytes differ only in characters that stand alone (no
    letter on either side of any of them in either reading), one of them a letter in one reading
    and a symbol in the other (``ž ž the café`` against ``¾ ¾ the café``): a lone letter's token
    is common for the words it ends or begins, which this text does not hold."""
    if len(text) != len(other):
        return False
    letter_for_symbol = False
    for i, (a, b) in enumerate(zip(text, other, strict=True)):
        if a == b:
            continue
        for reading in (text, other):
            if (i > 0 and reading[i - 1].isalpha()) or (i + 1 < len(reading) and reading[i + 1].isalpha()):
                return False
        letter_for_symbol = letter_for_symbol or a.isalpha() != b.isalpha()
    return letter_for_symbol
