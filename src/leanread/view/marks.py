"""When a line that stands for lines the model already has pays: an ``… lines 40-80 unchanged
since you read them …`` marker, or the note of an unchanged re-read's stub.

Such a line saves the tokens of the lines it stands for but costs its own, and more: the model
must find those lines in an earlier result to know what the window holds. So it is used only
when the lines cost at least ``MARK_FACTOR`` times the marker and at least ``MARK_MIN_TOKENS``:
never for one or two short lines. Measured on the replay of the 32 shared agent traces
(``leanread bench replay``, strategies ``leanread`` and ``leanread-outline``, o200k_base; see
BENCHMARKS.md, "When a marker pays"): of the 471 markers reads placed when a marker only had to
be shorter than its lines, 257 stood for less than twice their own tokens and 353 for less than
4 times (243 of those for one line); those 353 saved 2,891 of the 24,837 tokens all markers
saved. At 4 times the 118 markers left keep 88 % of the saving; at 6 times 81 %, at 8 times 76 %.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..tokens import count_tokens

#: The lines a marker stands for cost at least this many times the marker's own tokens.
MARK_FACTOR = 4
#: ... and at least this many tokens: about four lines (the replay's files have 9 tokens a line at
#: the median). Today's markers (10 tokens and more) make the factor the rule that binds; this
#: floor keeps "never one or two short lines" should a marker be worded shorter.
MARK_MIN_TOKENS = 40


def marker_pays(marker: str, lines: Sequence[str]) -> bool:
    """Whether ``marker`` may stand for ``lines`` (as shown: decorated, one string each): their
    o200k_base tokens, joined by newlines, reach ``MARK_FACTOR`` times the marker's and
    ``MARK_MIN_TOKENS``."""
    need = max(MARK_MIN_TOKENS, MARK_FACTOR * count_tokens(marker))
    return count_tokens("\n".join(lines)) >= need
