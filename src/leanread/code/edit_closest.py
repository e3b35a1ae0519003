"""The closest text of a file to an old_string that was not found, for the ``NoMatch``
refusal: candidate windows by rare lines and words, ranked by line similarity; the refusal quotes
the lines of it that differ from old_string. Pure; line numbers are 1-based."""

from __future__ import annotations

import bisect
import difflib
import re
from collections.abc import Sequence
from itertools import accumulate

from ..errors import NoMatch
from .edit_text import lines_of

#: Lines of the file quoted at most in a NoMatch message.
MAX_QUOTED_LINES = 8
#: Characters of one quoted line at most in a NoMatch message.
MAX_QUOTED_CHARS = 200
# Finding the closest text for NoMatch: a word or line found in more lines than MAX_POSTINGS
# does not vote; at most MAX_WORDS words of old_string (the longest) are looked for; the
# MAX_CANDIDATES best-voted windows are compared line by line on MAX_SCORED_CHARS characters.
MAX_POSTINGS = 1000
MAX_WORDS = 200
MAX_CANDIDATES = 30
MAX_SCORED_CHARS = 200
# Without votes, a file of at most MAX_BRUTE_LINES (lines x old_string's lines) is compared
# window by window.
MAX_BRUTE_LINES = 20_000
#: The closest window is quoted only when its text (lines stripped, joined) is at least this alike
#: (difflib ratio, 0-1) to old_string's, as a brute-force window had to be before. On the shared
#: traces' 42 refused edits, the 23 windows below it were other code (a stub module, another
#: function) or, once, the right function remembered so loosely that 23 of its 29 lines differed
#: (0.39); those refusals say to read the lines instead of quoting 8 lines that do not help.
MIN_SIMILARITY = 0.4
_WORD = re.compile(r"\w{2,}")


# --- the closest text, for NoMatch -----------------------------------------------------------------


def _closest(text: str, file_lines: Sequence[str], old_lines: Sequence[str]) -> tuple[int, int] | None:
    """0-based inclusive ``(first, last)`` of the window of ``file_lines`` (the lines of
    ``text``) most like ``old_lines``, of the same height; None when nothing is alike.

    Candidate windows come from votes, each weighted by its rarity: old lines found whole in the
    file, and words (``\\w{2,}``) of old lines found anywhere, vote for the window that would
    align them. The best-voted windows are ranked by the mean line-by-line similarity. Without
    votes, a small file is searched window by window.
    """
    total = len(file_lines)
    height = min(len(old_lines), total)
    if height == 0:
        return None
    votes: dict[int, float] = {}

    def vote(index: int, spots: Sequence[int], weight: float) -> None:
        if len(spots) > MAX_POSTINGS:
            return  # too common to tell windows apart
        for spot in spots:
            start = min(max(spot - index, 0), total - height)
            votes[start] = votes.get(start, 0.0) + weight / len(spots)

    wanted = {line.strip() for line in old_lines} - {""}
    if not wanted:
        return None  # only whitespace: nothing to compare
    where: dict[str, list[int]] = {}
    for number, line in enumerate(file_lines):
        if (key := line.strip()) in wanted:
            where.setdefault(key, []).append(number)
    words_at: dict[str, list[int]] = {}
    for index, line in enumerate(old_lines):
        for word in set(_WORD.findall(line)):
            words_at.setdefault(word, []).append(index)
    words = sorted(words_at, key=lambda word: (-len(word), word))[:MAX_WORDS]
    postings: dict[str, list[int]] = {}
    if words:
        starts = list(accumulate((len(line) + 1 for line in file_lines), initial=0))
        pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, words)) + r")\b")
        for match in pattern.finditer(text):
            spots = postings.setdefault(match.group(), [])
            if len(spots) <= MAX_POSTINGS:
                number = bisect.bisect_right(starts, match.start()) - 1
                if not spots or spots[-1] != number:
                    spots.append(number)
    for index, line in enumerate(old_lines):
        if (key := line.strip()) in where:
            vote(index, where[key], 2.0)
    for word in words:
        if word in postings:
            for index in words_at[word]:
                vote(index, postings[word], 1.0)
    wanted_lines = [line.strip()[:MAX_SCORED_CHARS] for line in old_lines[:height]]

    def score(start: int) -> tuple[float, int]:
        similar = sum(
            difflib.SequenceMatcher(None, file_lines[start + i].strip()[:MAX_SCORED_CHARS], want).ratio()
            for i, want in enumerate(wanted_lines)
        )
        return similar / height, -start

    if votes:
        best = max(sorted(votes, key=lambda start: (-votes[start], start))[:MAX_CANDIDATES], key=score)
    elif total * height <= MAX_BRUTE_LINES:
        # Nothing shared word for word (a typo in every word, one-letter words): a small file is
        # searched whole.
        best = max(range(total - height + 1), key=score)
    else:
        return None
    if _similarity(file_lines[best : best + height], old_lines) < MIN_SIMILARITY:
        return None
    return best, best + height - 1


def _similarity(window: Sequence[str], old_lines: Sequence[str]) -> float:
    """How alike (0-1) the window's text is to old_string's, lines stripped and cut to
    MAX_SCORED_CHARS: a missing or extra line costs only its own characters."""
    joined = ["\n".join(line.strip()[:MAX_SCORED_CHARS] for line in lines) for lines in (window, old_lines)]
    return difflib.SequenceMatcher(None, joined[0], joined[1], autojunk=False).ratio()


def _differing(window: Sequence[str], old_lines: Sequence[str]) -> list[int]:
    """0-based indexes of the window's lines that old_string does not have, leading and trailing
    whitespace aside (the whitespace rule forgives it once the rest matches), in line order
    (aligned, so a line missing from old_string does not make every later line differ); empty
    when old_string has a line more between lines the window shares with it (the whole window
    shows that better). Lines of old_string past either end of the window do not count: the
    window has old_string's height, so one line missing from old_string pushes one out."""
    matcher = difflib.SequenceMatcher(None, [w.strip() for w in window], [o.strip() for o in old_lines], autojunk=False)
    codes = matcher.get_opcodes()
    inner = codes[1:-1] if len(codes) > 2 else []
    if any(tag == "insert" for tag, *_ in inner):
        return []
    return [i for tag, i1, i2, _, _ in codes if tag in ("replace", "delete") for i in range(i1, i2)]


def no_match(text: str, old_lines: Sequence[str]) -> NoMatch:
    """The refusal of an old_string that is not in ``text``: the closest window's lines that
    old_string does not have, numbered (its whole window when old_string has only lines more, at
    most MAX_QUOTED_LINES, each at most MAX_QUOTED_CHARS), or that nothing comes close."""
    file_lines = lines_of(text) if text else []
    if not file_lines:
        return NoMatch("old_string was not found: the file is empty; use write to give it content.")
    window = _closest(text, file_lines, old_lines)
    if window is None:
        return NoMatch(
            "old_string was not found, nor anything close to it; "
            "read the lines you mean to change and copy old_string from them exactly."
        )
    first, last = window
    span = f"line {first + 1}" if first == last else f"lines {first + 1}-{last + 1}"
    height = last - first + 1
    differ = _differing(file_lines[first : last + 1], old_lines)
    numbers = [first + i for i in differ] if differ else list(range(first, last + 1))
    where = ""
    if differ and len(differ) < height:
        where = f", where {len(differ)} of {height} lines {'differs' if len(differ) == 1 else 'differ'}"
    shown = f"first {MAX_QUOTED_LINES} of {len(numbers)} shown; " if len(numbers) > MAX_QUOTED_LINES else ""
    quote = []
    for number in numbers[:MAX_QUOTED_LINES]:
        line = file_lines[number]
        if len(line) > MAX_QUOTED_CHARS:
            line = line[:MAX_QUOTED_CHARS] + f"… ({len(line)} chars in all)"
        quote.append(f"{number + 1}: {line}")
    return NoMatch(
        f"old_string was not found; {span} come{'s' if first == last else ''} closest{where} "
        f"({shown}copy old_string exactly from the file's lines):",
        quote,
    )
