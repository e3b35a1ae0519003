"""The saving chart: an inline SVG of tokens shown against the tokens of plain full reads."""

from __future__ import annotations

from html import escape

#: Points drawn at most per line; longer series are sampled evenly (the last point always kept).
MAX_POINTS = 400
WIDTH, HEIGHT, PAD = 640, 220, 36


def _sampled(values: list[int]) -> list[tuple[int, int]]:
    """``(index, value)`` pairs, at most ``MAX_POINTS`` of them, the first and last included."""
    if len(values) <= MAX_POINTS:
        return list(enumerate(values))
    step = (len(values) - 1) / (MAX_POINTS - 1)
    picks = sorted({round(i * step) for i in range(MAX_POINTS)})
    return [(i, values[i]) for i in picks]


def _polyline(values: list[int], top: int, css: str) -> str:
    count = max(len(values) - 1, 1)
    points = " ".join(
        f"{PAD + (WIDTH - 2 * PAD) * i / count:.1f},{HEIGHT - PAD - (HEIGHT - 2 * PAD) * v / top:.1f}"
        for i, v in _sampled(values)
    )
    return f'<polyline class="{css}" fill="none" points="{points}"/>'


def cumulative(values: list[int]) -> list[int]:
    """Running totals of ``values``."""
    out, total = [], 0
    for value in values:
        total += value
        out.append(total)
    return out


def saving_chart(
    shown: list[int],
    full: list[int],
    unit: str = "call",
    labels: tuple[str, str] = ("shown", "plain full reads"),
    left_out: int = 0,
) -> str:
    """SVG markup of two running totals over the calls (or steps) of a session: the tokens the
    model was shown and what plain full reads would have cost; ``unit`` names the x axis,
    ``labels`` the two lines; ``left_out``: calls not in the series (their plain cost unknown),
    said in the title.
    An empty series gives a chart that says so."""
    if not shown:
        empty = f"No {unit}s with a known plain cost." if left_out else f"No {unit}s yet."
        return f'<svg class="chart" viewBox="0 0 {WIDTH} 40" role="img"><text x="8" y="24">{empty}</text></svg>'
    run_shown, run_full = cumulative(shown), cumulative(full)
    top = max(run_full[-1], run_shown[-1], 1)
    saved = 1 - run_shown[-1] / run_full[-1] if run_full[-1] else 0.0
    gap = f"; {left_out:,} {unit}s of unknown plain cost left out" if left_out else ""
    title = escape(
        f"{run_shown[-1]:,} tokens {labels[0]} against {run_full[-1]:,} {labels[1]} ({saved:.1%} saved{gap})"
    )
    return (
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{title}">'
        f"<title>{title}</title>"
        f'<line class="axis" x1="{PAD}" y1="{HEIGHT - PAD}" x2="{WIDTH - PAD}" y2="{HEIGHT - PAD}"/>'
        f'<line class="axis" x1="{PAD}" y1="{PAD}" x2="{PAD}" y2="{HEIGHT - PAD}"/>'
        + _polyline(run_full, top, "full")
        + _polyline(run_shown, top, "shown")
        + f'<text x="{PAD}" y="{PAD - 10}">{top:,} tokens</text>'
        f'<text x="{WIDTH - PAD}" y="{HEIGHT - 10}" text-anchor="end">{len(shown):,} {unit}s</text>'
        f'<text class="shown" x="{PAD + 8}" y="{PAD + 8}">{escape(labels[0])}</text>'
        f'<text class="full" x="{PAD + 8}" y="{PAD + 24}">{escape(labels[1])}</text>'
        "</svg>"
    )
