"""What ``leanread bench replay`` does, so the CLI holds only its options."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from rich.console import Console

from ...errors import LeanreadError
from ..traces import find_traces_dir
from .report import NO_CHART, summary, write_outputs
from .run import default_jobs, pick_strategies, run_all, trace_files

#: Where the results go unless ``--out`` says otherwise (relative to the current folder).
DEFAULT_OUT = Path("bench-results/replay")


def shown_command(
    traces: Path | None,
    only: list[str],
    strategies: list[str],
    jobs: int | None,
    out: Path | None,
    append: Path | None,
) -> str:
    """The command line as the report names it (defaults left out)."""
    parts = ["leanread", "bench", "replay"]
    parts += ["--traces", str(traces)] if traces else []
    for name in only:
        parts += ["--trace", name]
    for name in strategies:
        parts += ["--strategy", name]
    parts += ["--jobs", str(jobs)] if jobs else []
    parts += ["--out", str(out)] if out else []
    parts += ["--append", str(append)] if append else []
    return shlex.join(parts)


def run_replay_command(
    traces: Path | None = None,
    only: list[str] | None = None,
    strategies: list[str] | None = None,
    cache: Path | None = None,
    out: Path | None = None,
    jobs: int | None = None,
    append: Path | None = None,
) -> int:
    """Replay the traces, write ``results.json``, ``replay.png`` and ``replay.md`` into ``out``,
    print the Markdown (and append it to ``append``). Exit status: 0, or 1 when leanread's
    truthfulness check found a divergence, 2 when nothing could be replayed."""
    console = Console(stderr=True)
    only, strategies = only or [], strategies or []
    try:
        folder = find_traces_dir(traces)
        files = trace_files(folder, only)
        classes = pick_strategies(strategies)
    except LeanreadError as exc:
        console.print(f"[red]{exc}[/red]")
        return 2
    command = shown_command(traces, only, strategies, jobs, out, append)
    run = run_all(files, classes, cache=cache, jobs=jobs or default_jobs(), console=console)
    if not run.results:
        console.print("[red]No trace could be replayed: " + "; ".join(run.failed.values()) + "[/red]")
        return 2
    target = out or DEFAULT_OUT
    chart_link = None
    if append is not None:
        try:
            chart_link = str((target / "replay.png").resolve().relative_to(append.resolve().parent))
        except ValueError:
            chart_link = str((target / "replay.png").resolve())
    paths = write_outputs(run, target, command, chart_link)
    text = paths["markdown"].read_text("utf-8")
    sys.stdout.write(text)
    if append is not None:
        with open(append, "a", encoding="utf-8") as handle:
            handle.write("\n" + text)
    chart = f"chart: {paths['chart']}, " if "chart" in paths else ""
    console.print(f"results: {paths['json']}, {chart}Markdown: {paths['markdown']}", markup=False)
    if not chart:
        print(NO_CHART, file=sys.stderr)
    divergences = summary(run)["divergences"]
    if divergences:
        console.print(f"[red]{len(divergences)} truthfulness divergences: the run fails.[/red]")
        return 1
    return 0
