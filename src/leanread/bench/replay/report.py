"""The replay's report: the Markdown section for BENCHMARKS.md, the JSON results for machines,
and a PNG chart of the totals per strategy, from the figures of ``figures``."""

from __future__ import annotations

import datetime
import json
import math
import platform
from pathlib import Path
from typing import Any

from ...config.extras import install_command, missing_extra
from .engine import KINDS
from .figures import (
    BASELINE,
    CROSS_CHECK,
    CROSS_CHECK_READS,
    GOAL,
    OUTLINE_CROSS_CHECK,
    OUTLINE_GOAL,
    OUTLINE_GOAL_DEDUP,
    READ_GREP,
    TIMES,
    cross_check_applies,
    outline_figures,
    ratio_of,
    summary,
)
from .run import ReplayRun

__all__ = [
    "NO_CHART",
    "as_json",
    "chart_figure",
    "chart_strategies",
    "cross_check_applies",
    "markdown",
    "outline_figures",
    "summary",
    "write_chart",
    "write_outputs",
]


def as_json(run: ReplayRun, command: str) -> dict[str, Any]:
    """Everything, for machines: the summary and each trace's results (ops included)."""
    return {
        "command": command,
        "date": datetime.date.today().isoformat(),
        "python": platform.python_version(),
        "tokenizer": "o200k_base",
        "cross_check": {"reads": CROSS_CHECK_READS, "read_tokens": CROSS_CHECK},
        "goal": {
            "leanread_max_ratio": GOAL,
            "divergences": 0,
            "outline_max_ratio": OUTLINE_GOAL,
            "outline_max_ratio_with_dedup": OUTLINE_GOAL_DEDUP,
            "outline_cross_check": OUTLINE_CROSS_CHECK,
        },
        "summary": summary(run),
        "traces": [r.as_json() for r in run.results],
    }


def chart_strategies(figures: dict[str, Any]) -> list[str]:
    """The strategies the chart draws, in the report's order: those measured on these traces (a
    strategy the report calls not measurable gets no bar)."""
    return [name for name, figure in figures.items() if figure["measurable"]]


def write_chart(run: ReplayRun, path: Path) -> None:
    """Save ``chart_figure(run)`` as a PNG at ``path``."""
    import matplotlib.pyplot as plt

    fig = chart_figure(run)
    fig.savefig(path)
    plt.close(fig)


def chart_figure(run: ReplayRun) -> Any:
    """A bar chart (a matplotlib ``Figure``) of each measured strategy's tokens, stacked by op
    kind, labelled with the ratio of its reads and greps to opencode's; the strategy names are
    slanted so that long names never run into each other."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figures = summary(run)["strategies"]
    names = chart_strategies(figures)
    fig, ax = plt.subplots(figsize=(max(9.0, 1.3 * len(names)), 5.2), dpi=120)
    bottom = [0.0] * len(names)
    colours = {
        "read": "#4C72B0",
        "grep": "#DD8452",
        "list": "#55A868",
        "glob": "#8172B3",
        "edit": "#C44E52",
        "write": "#937860",
    }
    for kind in KINDS:
        values = [figures[n]["tokens"][kind] / 1000 for n in names]
        ax.bar(names, values, bottom=bottom, label=kind, color=colours[kind])
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    for i, name in enumerate(names):
        ratio = figures[name]["ratio_read_grep"]
        ax.text(i, bottom[i], f"{ratio:.3f}{TIMES}", ha="center", va="bottom", fontsize=9)
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right", rotation_mode="anchor", fontsize=9)
    ax.set_ylabel("thousand tokens (o200k_base)")
    ax.set_title(f"{len(run.results)} real agent traces: tokens per strategy (label: read+grep vs opencode)")
    ax.legend(ncols=len(KINDS), fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.22), frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    return fig


def _n(value: int) -> str:
    return f"{value:,}"


def shell_lines(st: dict[str, Any]) -> list[str]:
    """For each strategy that sent a bash agent's commands through ``leanread sh``: how many it
    answered and why it passed the rest, and its reads + greps against the ``bash`` strategy."""
    lines: list[str] = []
    bash = st.get("bash")
    for name, f in st.items():
        notes = f["notes"]
        answered = notes.get("shell: answered", 0)
        passed = {k.removeprefix("shell: passed: "): v for k, v in notes.items() if k.startswith("shell: passed: ")}
        if not answered and not passed:
            continue
        total = answered + sum(passed.values())
        why = ", ".join(f"{v} {k}" for k, v in sorted(passed.items(), key=lambda kv: (-kv[1], kv[0])))
        against = f" Reads + greps: {ratio_of(f['read_grep'], bash['read_grep']):.3f} {TIMES} bash." if bash else ""
        lines += [
            "",
            f"{name}: of the agents' {total} read and search commands, {answered} answered by leanread "
            f"({ratio_of(answered, total):.1%}), {total - answered} run as they are ({why or 'none'}); "
            f"{notes.get('shell: passed output differs', 0)} of those printed other than bash -c.{against}",
        ]
    return lines


def markdown(run: ReplayRun, command: str, chart: str | None = None) -> str:
    """The section for BENCHMARKS.md."""
    s = summary(run)
    st = s["strategies"]
    names = list(st)
    lean = st.get("leanread")
    lines = [
        f"## Replay of {s['traces']} real agent traces: leanread against the anchors",
        "",
        f"Command: `{command}`, {datetime.date.today().isoformat()}.",
        "",
        "Each trace's reads, greps, listings and changes replayed in order on a scratch copy of its repository "
        "at the traced release (from PyPI, or the source the trace's header names) — a release, "
        "not the traced commit, so windows may have shifted and "
        "the replay is approximate (sources per trace below). The anchors are our own code following their "
        "documented behaviour; tokens are o200k_base.",
        "",
    ]
    unservable = ", ".join(f"{v} {k}" for k, v in sorted(s["unservable_reads"].items(), key=lambda kv: -kv[1]))
    lines += [
        f"- Reads: {s['servable_reads']} servable" + (f"; not servable: {unservable}." if unservable else "."),
        "- Calls replayed: " + ", ".join(f"{v} {k}" for k, v in sorted(s["calls"].items())) + ".",
        "- Agent's changes: "
        + ", ".join(f"{v} {k}" for k, v in sorted(s["changes"].items(), key=lambda kv: -kv[1]))
        + ".",
        f"- Shell commands that change files, re-run confined to the scratch copy: {s['shell'].get('run', 0)} run, "
        f"{s['shell'].get('failed', 0)} failed here only, "
        f"{s['shell'].get('failed, as in the original run', 0)} failed as they did in the original run"
        + (f", {s['shell']['not run']} not run" if s["shell"].get("not run") else "")
        + ".",
    ]
    if lean is not None:
        checked = sum(v for k, v in lean["notes"].items() if k.startswith("reads: "))
        outlined = {n: f for n, f in st.items() if f["outline"] and n != "leanread"}
        also = "".join(
            f", of {n}'s {sum(v for k, v in f['notes'].items() if k.startswith(('reads: ', 'follow-up reads: ')))}"
            " reads (outlines and follow-ups included)"
            for n, f in outlined.items()
        )
        lines.append(
            f"- Truthfulness: each of leanread's {checked} file reads{also} was rebuilt from its outputs alone and "
            f"compared with the file: {len(s['divergences'])} divergences."
        )
    if lean is not None and lean["notes"]:
        lines.append("- leanread's answers: " + ", ".join(f"{k} {v}" for k, v in sorted(lean["notes"].items())) + ".")
    if s["failed_traces"]:
        lines.append("- Not replayed: " + "; ".join(f"{k} ({v})" for k, v in s["failed_traces"].items()) + ".")
    crosscheck = cross_check_applies(s)
    lines += ["", "Totals (tokens; ratio to opencode; tool definitions charged once per trace in the last two):", ""]
    lines.append(
        "| strategy | reads | ratio | "
        + ("issue 6 cross-check | " if crosscheck else "")
        + "reads + greps | ratio | all ops | ratio | definitions per trace | all ops + definitions | ratio |"
    )
    lines.append("|---|---:|---:|" + ("---:|" if crosscheck else "") + "---:|---:|---:|---:|---:|---:|---:|")
    unmeasurable = [n for n in names if not st[n]["measurable"]]
    names = [n for n in names if st[n]["measurable"]]
    for name in names:
        f = st[name]
        check = f["cross_check_read"]
        diff = f" ({(f['read'] - check) / check:+.1%})" if check else ""
        checked = f"{_n(check) + diff if check else '—'} | " if crosscheck else ""
        lines.append(
            f"| {name} | {_n(f['read'])} | {_ratio(f['ratio_read'])} | {checked}"
            f"{_n(f['read_grep'])} | {_ratio(f['ratio_read_grep'])} | {_n(f['all'])} | {_ratio(f['ratio_all'])} | "
            f"{_n(f['definitions_per_trace'])} | {_n(f['all_with_definitions'])} | "
            f"{_ratio(f['ratio_all_with_definitions'])} |"
        )
    lines += ["", "Tool definitions (tokens of name + description + input schema, per tool):", ""]
    for name in names:
        f = st[name]
        tools = ", ".join(f"{t} {_n(v)}" for t, v in (f["definitions"] or {}).items()) or "none"
        lines.append(f"- {name}: {_n(f['definitions_per_trace'])} ({tools}); {f['definitions_source']}.")
    lines += ["", "By op kind (tokens):", ""]
    lines.append("| strategy | " + " | ".join(KINDS) + " |")
    lines.append("|---|" + "---:|" * len(KINDS))
    for name in names:
        lines.append(f"| {name} | " + " | ".join(_n(st[name]["tokens"][k]) for k in KINDS) + " |")
    for name in unmeasurable:
        needs = st[name]["needs"].removesuffix("s")
        lines += [
            "",
            f"{name}: not measurable on these traces: no read or grep carries a {needs}; its figures here would "
            "be those of the strategy it falls back to.",
        ]
    anchored = "opencode" in st  # the goals are ratios to opencode: said only when it was replayed
    if lean is not None and anchored:
        met = lean["ratio_read_grep"] <= GOAL and not s["divergences"]
        lines += [
            "",
            f"Goal (issue 6): leanread ≤ {GOAL} {TIMES} opencode with zero divergences. Measured: reads "
            f"{lean['ratio_read']:.3f} {TIMES}, reads + greps {lean['ratio_read_grep']:.3f} {TIMES}, all ops "
            f"{lean['ratio_all']:.3f} {TIMES}; {len(s['divergences'])} divergences — "
            + ("met." if met else "not met."),
        ]
    for name, f in st.items():
        o = f["outline"]
        if o is None:
            continue
        ratio = o["ratio_reads_with_follow_ups"]
        used = o["used_lines"]
        met = ratio <= OUTLINE_GOAL_DEDUP and not s["divergences"]
        floor = ratio_of(o["reads_with_follow_ups"], st["floor"]["read"]) if "floor" in st else float("nan")
        by_kind = ", ".join(f"{v} {k}" for k, v in sorted(o["follow_up_reads_by_kind"].items()))
        lines += [
            "",
            f"{name}: {o['outlines']} whole reads answered with an outline; {o['follow_up_reads']} follow-up reads "
            f"({by_kind}), {_n(o['follow_up_tokens'])} tokens ({_n(o['follow_up_tokens_before_edits'])} of them "
            f"before edits, charged there). Lines the agent used later in outlined files: {sum(used.values())}, of "
            f"them {used.get('outline', 0)} shown by the outline itself ({o['outline_share']:.1%}), "
            f"{used.get('other output', 0)} by other output (greps, windows, earlier follow-ups), "
            f"{used.get('follow-up', 0)} fetched by a follow-up. Reads with every follow-up: "
            f"{_n(o['reads_with_follow_ups'])} tokens"
            + (f", {ratio:.3f} {TIMES} opencode" if anchored else "")
            + (f", {floor:.3f} {TIMES} the floor" if "floor" in st else "")
            + (
                f", {ratio_of(o['reads_with_follow_ups'], lean['read']):.3f} {TIMES} leanread"
                if lean is not None
                else ""
            )
            + (_outline_goal(ratio, met, not s["divergences"]) if anchored else "."),
        ]
    lines += shell_lines(st)
    usage = s["usage"]
    if usage.get("files"):
        lines += [
            "",
            f"Whole-file first reads of files of {usage['min_lines']}+ lines: {usage['files']}, "
            f"{_n(usage['first_read_tokens_opencode'])} opencode tokens. Lines of them the agent used later (read "
            f"again in a window, or replaced by an edit): median {usage['median_used_share']:.1%} per file, "
            f"{usage['token_weighted_used_share']:.1%} weighted by tokens; counting the lines later greps showed "
            f"too: median {usage['median_used_or_grepped_share']:.1%}, "
            f"{usage['token_weighted_used_or_grepped_share']:.1%} weighted.",
        ]
    lines += ["", "Per trace (read + grep tokens; source):", ""]
    leanreads = [n for n in names if n.startswith("leanread")] or ["leanread"]
    lines.append(
        "| trace | source | reads | "
        + " | ".join(names)
        + " | "
        + " | ".join(f"{n} / opencode" for n in leanreads)
        + " | all ops + definitions, leanread / opencode |"
    )
    lines.append("|---|---|---:|" + "---:|" * (len(names) + len(leanreads) + 1))
    defs = {n: st[n]["definitions_per_trace"] for n in names}
    for r in run.results:
        values = {n: r.total(n, READ_GREP) for n in names}
        ratios = [ratio_of(values[n], values.get(BASELINE, 0)) if n in values else float("nan") for n in leanreads]
        if "leanread" in values and BASELINE in values:
            ratios.append(ratio_of(r.total("leanread") + defs["leanread"], r.total(BASELINE) + defs[BASELINE]))
        else:
            ratios.append(float("nan"))
        unserv = sum(1 for u in r.unservable if u["op"] == "read")
        reads = f"{r.reads}" + (f" (+{unserv} not servable)" if unserv else "")
        lines.append(
            f"| {r.name} | {r.source.kind} | {reads} | "
            + " | ".join(_n(values[n]) for n in names)
            + " | "
            + " | ".join(_ratio(x) for x in ratios)
            + " |"
        )
    sources: dict[str, str] = {}
    for r in run.results:
        key = f"{r.header.get('repo')} {r.header.get('version')}"
        placed = f", packages placed under `{r.layout_prefix}/`" if r.layout_prefix else ""
        sources.setdefault(key, r.source.describe() + placed)
    lines += ["", "Sources (cached in `~/.cache/leanread`):", ""]
    lines += [f"- {key}: {how}" for key, how in sorted(sources.items())]
    missing = [
        f"{r.name} step {u['step']}: `{u['path']}` ({u['why']})"
        for r in run.results
        for u in r.unservable
        if u["op"] == "read"
    ]
    if missing:
        lines += ["", "Reads that could not be served:", ""] + [f"- {m}" for m in missing]
    if s["divergences"]:
        lines += ["", "Divergences:", ""] + [f"- {d}" for d in s["divergences"][:50]]
    if chart:
        lines += ["", f"![tokens per strategy]({chart})"]
    lines += [""]
    return "\n".join(lines)


#: What ``leanread bench replay`` says when matplotlib is not installed (the results are written all the same).
NO_CHART = (
    f"No chart was drawn: replay.png needs matplotlib, which the bench extra installs: {install_command('bench')}."
)


def write_outputs(run: ReplayRun, out_dir: Path, command: str, chart_link: str | None = None) -> dict[str, Path]:
    """Write ``results.json``, ``replay.png`` and ``replay.md`` into ``out_dir``; returns their paths
    (``json``, ``chart``, ``markdown``). Without matplotlib (the ``bench`` extra) the results and the
    Markdown are written all the same, without the chart: ``chart`` is then left out of the paths,
    the Markdown has no image, and a ``replay.png`` of an earlier run is removed.

    Raises:
        ImportError: the chart failed to import a module other than matplotlib.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"json": out_dir / "results.json", "chart": out_dir / "replay.png", "markdown": out_dir / "replay.md"}
    paths["json"].write_text(json.dumps(as_json(run, command), indent=1, ensure_ascii=False) + "\n", "utf-8")
    try:
        write_chart(run, paths["chart"])
    except ImportError as exc:
        if missing_extra(exc) is None:
            raise
        paths.pop("chart").unlink(missing_ok=True)
    chart = (chart_link or "replay.png") if "chart" in paths else None
    paths["markdown"].write_text(markdown(run, command, chart), "utf-8")
    return paths


def _outline_goal(ratio: float, met: bool, true: bool) -> str:
    """Issue 7's goals for an outline strategy's reads with follow-ups (``ratio`` to opencode)."""
    return (
        f". Goal (issue 7): ≤ {OUTLINE_GOAL:.2f} {TIMES} opencode — "
        + ("met" if ratio <= OUTLINE_GOAL and true else "not met")
        + f"; ≤ {OUTLINE_GOAL_DEDUP:.2f} {TIMES} with leanread's dedup on the other reads (which this strategy "
        f"has) — " + ("met." if met else "not met.")
    )


def _ratio(value: float) -> str:
    """A ratio to opencode as the tables show it: ``—`` when opencode was not replayed."""
    return "—" if math.isnan(value) else f"{value:.3f}"
