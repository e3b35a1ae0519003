"""The model-visible form of a pruned output: a header and one marker per omitted run."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from ..tokens import count_tokens
from ..view.frame import Own

#: A run of kept lines the model already has, shorter than this, is not named on its own next to
#: an omitted run: the two are one ``… lines A-B omitted …`` marker.
HELD_MIN_LINES = 3
#: Characters of the focus question quoted in a header at most.
QUESTION_CHARS = 200


def quoted_question(question: str) -> str:
    """The question as a header quotes it: whitespace runs collapsed, cut to ``QUESTION_CHARS``
    characters (``…`` marks a cut), as a JSON string, so a quote or a newline in it cannot end
    the header or pose as a marker."""
    text = " ".join(question.split())
    if len(text) > QUESTION_CHARS:
        text = text[: QUESTION_CHARS - 1] + "…"
    return json.dumps(text, ensure_ascii=False)


def focus_header(kept: int, total: int, question: str) -> str:
    """``[focus: kept 40 of 120 lines for "…"; omitted ranges can be read with offset/limit]``."""
    return Own(
        f"[focus: kept {kept} of {total} lines for {quoted_question(question)}; "
        "omitted ranges can be read with offset/limit]"
    )


def omitted_marker(first: int, last: int) -> str:
    """``… lines 120-180 omitted …`` (``… line 7 omitted …`` for one line); real line numbers."""
    span = f"line {first}" if first == last else f"lines {first}-{last}"
    return Own(f"… {span} omitted …")


def focus_body(
    lines: Sequence[str],
    first: int,
    kept: Sequence[tuple[int, int]],
    decorate: Callable[[int, str], str],
    held: Callable[[int, int], str | None] = lambda a, b: None,
) -> tuple[list[str], list[int]]:
    """The body of a pruned window and the file line numbers it shows whole.

    Args:
        lines: the window's lines; ``lines[0]`` is file line ``first``.
        first: file line number of ``lines[0]``.
        kept: 1-based inclusive ranges into ``lines`` (sorted, disjoint) to show.
        decorate: ``(file line number, line) -> shown line`` (the read format).
        held: ``(first, last)`` file lines of a kept run → the marker standing for them when the
            model already has all of them unchanged (``… lines 53-62 unchanged since you read
            them …``), else None.

    Returns:
        ``(body, shown)``: each run of lines left out (omitted, or kept but already held) is one
        marker; a held run under ``HELD_MIN_LINES`` lines and the omitted runs next to it are one
        ``… lines A-B omitted …``; a marker stands only
        where it costs fewer tokens than the lines it hides, else those lines are shown.
        ``shown`` lists the file line numbers shown, ascending.
    """
    keep = {n for a, b in kept for n in range(a, b + 1)}
    runs: list[tuple[int, int, str | None, bool]] = []  # (first, last index, marker or None, mergeable)
    index = 0
    while index < len(lines):
        end = index
        inside = (index + 1) in keep
        while end + 1 < len(lines) and ((end + 2) in keep) == inside:
            end += 1
        marker = held(first + index, first + end) if inside else omitted_marker(first + index, first + end)
        # an omitted run, or a held run too short to be worth naming, joins a neighbouring such marker
        mergeable = marker is not None and (not inside or end - index + 1 < HELD_MIN_LINES)
        if runs and mergeable and runs[-1][3]:
            index = runs.pop()[0]
            marker = omitted_marker(first + index, first + end)
        runs.append((index, end, marker, mergeable))
        index = end + 1
    body: list[str] = []
    shown: list[int] = []
    for a, b, marker, _ in runs:
        run = [decorate(first + i, lines[i]) for i in range(a, b + 1)]
        if marker is not None and count_tokens(marker) < count_tokens("\n".join(run)):
            body.append(marker)
        else:
            body.extend(run)
            shown.extend(range(first + a, first + b + 1))
    return body, shown
