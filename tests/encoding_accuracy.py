"""Accuracy of legacy-encoding detection on the samples of ``encoding_samples``, and the margins
that set ``legacy.CLOSE_BITS``. Run: ``.venv/bin/python tests/encoding_accuracy.py``
(``PYTHONPATH=<other checkout>/src`` measures another version of ``decode``)."""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from encoding_samples import LONE_PAIRS, SAMPLES

from leanread.files.textfile import decode

Item = tuple[str, str, str]  # family, codec, text


def fragments(items: list[Item]) -> list[Item]:
    """Every word prefix and suffix of each line holding two or more non-ASCII characters."""
    found: dict[Item, None] = {}
    for family, codec, text in items:
        for line in text.splitlines():
            words = line.split(" ")
            for k in range(1, len(words) + 1):
                for part in (" ".join(words[:k]), " ".join(words[k - 1 :])):
                    if sum(not char.isascii() for char in part) >= 2:
                        found.setdefault((family, codec, part + "\n"))
    return list(found)


def table(items: list[Item], title: str) -> None:
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for family, codec, text in items:
        data = text.encode(codec)
        tf = decode(data, "f.txt")
        others = getattr(tf, "other_encodings", ())
        right = "\n".join(tf.lines) + "\n" == text
        row = counts[family]
        row[0] += right
        row[1] += 1
        row[2] += bool(others)
        row[3] += not right and all(data.decode(other) != text for other in others)
    print(f"{title}\n\n| family | read right | said to be a guess | wrong, not flagged |\n| --- | --- | --- | --- |")
    for family, (right, total, guesses, wrong) in counts.items():
        print(f"| {family} | {right}/{total} | {guesses} | {wrong} |")
    sums = [sum(row[i] for row in counts.values()) for i in range(4)]
    print(f"| all | {sums[0]}/{sums[1]} | {sums[2]} | {sums[3]} |\n")


def margins(items: list[Item]) -> None:
    """How far a wrong reading won, and how many right ones each threshold would call a guess."""
    from leanread.files.legacy import choose

    right: list[float] = []
    wrong: list[float] = []
    for _family, codec, text in items:
        data = text.encode(codec)
        choice = choose(data)
        assert choice is not None
        (right if data.decode(choice.encoding) == text else wrong).append(choice.margin)
    print(f"wrong readings: {len(wrong)}, winning by at most {max(wrong, default=0):.1f} bits")
    for bits in (3, 4, 5, 6, 7, 8, 10):
        flagged = sum(1 for m in right if m < bits)
        missed = sum(1 for m in wrong if m >= bits)
        print(f"  close = under {bits:2} bits: {flagged}/{len(right)} right readings a guess, {missed} wrong ones not")


if __name__ == "__main__":
    samples = [*SAMPLES, *(("lone-pair", "cp1252", text) for text in LONE_PAIRS)]
    table(samples, "Whole samples")
    table(fragments(samples), "Fragments (word prefixes and suffixes of each line, 2+ non-ASCII characters)")
    if "--margins" in sys.argv:
        margins(fragments(samples))
