"""When a line that stands for lines the model already has pays: an ``… lines 40-80 unchanged
since you read them …`` marker, or the note of an unchanged re-read's stub.

Such a line saves the tokens of the lines it stands for but costs its own, and more: the model
must find those lines in an earlier result to know what the window holds. So it is used only
when the lines cost at least ``MARK_FACTOR`` times the marker and at least ``MARK_MIN_TOKENS``:
never for one or two short lines. The numbers were picked on the replay of the 32 shared agent
traces (``leanread bench replay``, o200k_base tokens; BENCHMARKS.md, "When a marker pays"):
markers standing for less than 4 times their own tokens were half of all the markers a read placed,
and gave up 1.5 % of the tokens markers saved.
"""

from __future__ import annotations

from collections.abc import Sequence

from .tokens import count_tokens

#: The lines a marker stands for cost at least this many times the marker's own tokens.
MARK_FACTOR = 4
#: ... and at least this many tokens (four times the shortest marker, ``… line 7 unchanged since
#: you read it …``, 10 tokens, rounded up).
MARK_MIN_TOKENS = 40


def marker_pays(marker: str, lines: Sequence[str]) -> bool:
    """Whether ``marker`` may stand for ``lines`` (as shown: decorated, one string each): their
    o200k_base tokens, joined by newlines, reach ``MARK_FACTOR`` times the marker's and
    ``MARK_MIN_TOKENS``."""
    need = max(MARK_MIN_TOKENS, MARK_FACTOR * count_tokens(marker))
    return count_tokens("\n".join(lines)) >= need
