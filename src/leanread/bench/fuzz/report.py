"""The fuzzer's summary as a Markdown section: one table, then every failure, grouped, each with
the command that replays it."""

from __future__ import annotations

from collections import defaultdict

from mcp_types import CallToolResult, TextContent

from .calls import Call
from .runner import KINDS, Failure, Summary

#: Groups of failures listed at most; the rest are counted.
MAX_GROUPS = 40
_KIND_TEXT = {
    "crash": "crash",
    "hang": "hang",
    "invalid": "invalid result",
    "unexplained": "unexplained change",
    "leak": "leaked canary",
}


def _percentile(values: list[float], share: float) -> float:
    """The value below which ``share`` (0-1) of ``values`` lie (nearest rank); 0.0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def command(summary: Summary) -> str:
    """The command line that runs ``summary``'s configuration again."""
    config = summary.config
    shown = f"leanread bench fuzz --seed {config.seed}"
    if config.only:
        shown += "".join(f" --only {k}" for k in sorted(set(config.only)))
    else:
        shown += f" --calls {config.calls}"
    if config.deadline != 10.0:
        shown += f" --deadline {config.deadline:g}"
    if config.max_seconds is not None:
        shown += f" --max-seconds {config.max_seconds:g}"
    return shown


def _groups(failures: list[Failure]) -> list[tuple[str, list[Failure]]]:
    """Failures grouped by kind, tool and what happened (numbers and paths of the tree aside)."""
    groups: dict[str, list[Failure]] = defaultdict(list)
    for failure in failures:
        detail = failure.detail.split(" (the MCP SDK", 1)[0] if failure.kind == "hang" else failure.detail
        key = f"{failure.kind}\t{failure.call.tool[:20]!r}\t{detail[:140]}"
        groups[key].append(failure)
    return sorted(groups.items(), key=lambda item: (KINDS.index(item[1][0].kind), item[1][0].call.index))


def verbose_line(call: Call, result: CallToolResult | None, failures: list[Failure]) -> str:
    """One line per call for ``--verbose``: number, call, then the result's first line or the failures."""
    if result is None or failures:
        outcome = "; ".join(f"{f.kind}: {f.detail[:200]}" for f in failures)
    else:
        text = "".join(block.text for block in result.content if isinstance(block, TextContent))
        outcome = ("error: " if result.is_error else "ok: ") + repr(text[:160])
    return _printable(f"{call.index}\t{call.shown(160)}\t{outcome}")


def _printable(text: str) -> str:
    """``text`` with any lone surrogate (a hostile call's) as a ``\\udXXX`` escape, so it can be printed."""
    return text.encode("utf-8", "backslashreplace").decode()


def markdown_report(summary: Summary, shown: str | None = None) -> str:
    """The section for BENCHMARKS.md: the table of counts and latencies (milliseconds), then each
    group of failures with up to five call numbers and how to replay the first."""
    config = summary.config
    ms = [x * 1000 for x in summary.latencies]
    lines = [
        "## Fuzzer: hostile tool calls over MCP",
        "",
        f"`{shown or command(summary)}` ({summary.seconds:.0f} s; {summary.restarts} server restarts"
        + (f"; stopped by {summary.stopped_early} after {summary.sent} calls" if summary.stopped_early else "")
        + ")",
        "",
        "| calls | ok | error results | invalid results | crashes | hangs | unexplained changes | leaked canaries "
        "| p50 ms | p99 ms | max ms |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {summary.sent} | {summary.ok} | {summary.error_results} | {summary.count('invalid')} "
        f"| {summary.count('crash')} | {summary.count('hang')} | {summary.count('unexplained')} "
        f"| {summary.count('leak')} | {_percentile(ms, 0.5):.1f} | {_percentile(ms, 0.99):.1f} "
        f"| {max(ms, default=0.0):.0f} |",
    ]
    if not summary.failures:
        return _printable("\n".join([*lines, "", "No failures."]) + "\n")
    lines += ["", f"Failures (replay one with `leanread bench fuzz --seed {config.seed} --only K`):", ""]
    groups = _groups(summary.failures)
    for _, group in groups[:MAX_GROUPS]:
        first = group[0]
        calls = ", ".join(str(f.call.index) for f in group[:5]) + (
            f", … ({len(group)} calls)" if len(group) > 5 else ""
        )
        lines.append(f"- {_KIND_TEXT[first.kind]} at call {calls}: `{first.call.shown(200)}`: {first.detail[:300]}")
    if len(groups) > MAX_GROUPS:
        lines.append(f"- … {len(groups) - MAX_GROUPS} more groups")
    return _printable("\n".join(lines) + "\n")
