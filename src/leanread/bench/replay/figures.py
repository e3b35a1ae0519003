"""The replay's figures: token totals per strategy and op kind, their ratios to the baseline,
the outline strategy's figures and the cross-check against our earlier replay (``report``
writes them out)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from .engine import KINDS, TraceResult, usage_summary
from .run import ReplayRun
from .tooldefs import Definitions, definitions_for, leanread_definitions

#: Our own earlier replay of the anchors on the 32 shared traces (issue 6): read tokens over
#: 282 servable reads, sources from PyPI, o200k_base.
CROSS_CHECK: dict[str, int] = {
    "opencode": 565_015,
    "kilo-plain": 443_038,
    "claude-code": 566_410,
    "opencode-dedup": 561_877,
    "floor": 398_358,
}
CROSS_CHECK_READS = 282
#: The shared trace set those totals are of: the cross-check applies only to a run of it.
CROSS_CHECK_TRACES = 32
#: The goal of issue 6: leanread at most this share of opencode's tokens.
GOAL = 0.72
#: The goal of issue 7: an outline strategy's reads, follow-ups included, at most this share of
#: opencode's (the second with leanread's line-level dedup on the other reads, as leanread-outline
#: has), and the issue's own rough model of it.
OUTLINE_GOAL = 0.35
OUTLINE_GOAL_DEDUP = 0.30
OUTLINE_CROSS_CHECK = (0.344, 0.304)
BASELINE = "opencode"
#: The multiplication sign of ratios.
TIMES = "\u00d7"
READ_GREP = ("read", "grep")


def totals(results: list[TraceResult]) -> dict[str, Counter[str]]:
    """Tokens per strategy per op kind, summed over the traces."""
    out: dict[str, Counter[str]] = {}
    for r in results:
        for name, counts in r.tokens.items():
            out.setdefault(name, Counter()).update(counts)
    return out


def _sum(counts: Counter[str], kinds: tuple[str, ...]) -> int:
    return sum(counts[k] for k in kinds)


def ratio_of(value: int, base: int) -> float:
    return value / base if base else float("nan")


def outline_figures(notes: Counter[str], counts: Counter[str], base: Counter[str]) -> dict[str, Any] | None:
    """What an outline strategy's notes say (``strategies/leanread_outline.py``): outlines given,
    follow-up reads and their tokens, later-used lines by where the model had them from, and its
    reads with the follow-ups charged to edits added, against opencode's reads."""
    if not notes.get("reads: outline"):
        return None
    kinds = {k.split(": ", 1)[1]: v for k, v in notes.items() if k.startswith("follow-up reads: ")}
    used = {k.split(": ", 1)[1]: v for k, v in notes.items() if k.startswith("used lines: ")}
    before_edits = notes.get("follow-up tokens: before edits", 0)
    tokens = before_edits + notes.get("follow-up tokens: before reads", 0)
    reads = counts["read"] + before_edits
    return {
        "outlines": notes["reads: outline"],
        "follow_up_reads": sum(kinds.values()),
        "follow_up_reads_by_kind": kinds,
        "follow_up_tokens": tokens,
        "follow_up_tokens_before_edits": before_edits,
        "used_lines": used,
        "outline_share": round(used.get("outline", 0) / sum(used.values()), 4) if used else 0.0,
        "reads_with_follow_ups": reads,
        "ratio_reads_with_follow_ups": round(ratio_of(reads, base["read"]), 4),
    }


def summary(run: ReplayRun) -> dict[str, Any]:
    """The figures the Markdown, the chart and the JSON share."""
    results = run.results
    sums = totals(results)
    base = sums.get(BASELINE, Counter())
    unservable = Counter(u["why"].split(" (")[0] for r in results for u in r.unservable if u["op"] == "read")
    changes: Counter[str] = Counter()
    shell: Counter[str] = Counter()
    notes: dict[str, Counter[str]] = {}
    for r in results:
        changes.update(r.changes)
        shell.update(r.shell)
        for name, c in r.notes.items():
            notes.setdefault(name, Counter()).update(c)
    strategies = {}
    ours = leanread_definitions()
    base_defs = _definitions(BASELINE, ours) * len(results)
    for cls in run.strategies:
        counts = sums.get(cls.name, Counter())
        defs = definitions_for(cls.name, ours)
        charged = (defs.tokens if defs else 0) * len(results)
        strategies[cls.name] = {
            "title": cls.title,
            "tokens": {k: counts[k] for k in KINDS},
            "read": counts["read"],
            "read_grep": _sum(counts, READ_GREP),
            "all": _sum(counts, KINDS),
            "ratio_read": round(ratio_of(counts["read"], base["read"]), 4),
            "ratio_read_grep": round(ratio_of(_sum(counts, READ_GREP), _sum(base, READ_GREP)), 4),
            "ratio_all": round(ratio_of(_sum(counts, KINDS), _sum(base, KINDS)), 4),
            "definitions": defs.tools if defs else None,
            "definitions_source": defs.source if defs else "no texts of its tools: not charged",
            "definitions_per_trace": defs.tokens if defs else 0,
            "all_with_definitions": _sum(counts, KINDS) + charged,
            "ratio_all_with_definitions": round(
                ratio_of(_sum(counts, KINDS) + charged, _sum(base, KINDS) + base_defs), 4
            ),
            "cross_check_read": CROSS_CHECK.get(cls.name),
            "notes": dict(notes.get(cls.name, Counter())),
            "outline": outline_figures(notes.get(cls.name, Counter()), counts, base),
            "measurable": not cls.needs_note or any(k.startswith(cls.needs_note) for k in notes.get(cls.name, ())),
            "needs": cls.needs_note,
        }
    return {
        "traces": len(results),
        "failed_traces": run.failed,
        "servable_reads": sum(r.reads for r in results),
        "unservable_reads": dict(unservable),
        "calls": dict(sum((r.calls for r in results), Counter())),
        "changes": dict(changes),
        "shell": dict(shell),
        "divergences": [f"{r.name}: {d}" for r in results for d in r.divergences],
        "usage": usage_summary(results),
        "strategies": strategies,
        "sources": {
            r.name: r.source.describe() + (f" (placed under {r.layout_prefix}/)" if r.layout_prefix else "")
            for r in results
        },
    }


def _definitions(strategy: str, ours: Definitions) -> int:
    """Tokens of ``strategy``'s tool definitions, once (0 when we have no texts of them)."""
    defs = definitions_for(strategy, ours)
    return defs.tokens if defs else 0


def cross_check_applies(figures: dict[str, Any]) -> bool:
    """Issue 6's fixed totals are of the shared set: 32 traces, 282 servable reads."""
    return bool(figures["traces"] == CROSS_CHECK_TRACES and figures["servable_reads"] == CROSS_CHECK_READS)
