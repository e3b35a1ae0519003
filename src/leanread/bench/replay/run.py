"""``leanread bench replay``: every trace of a folder through every strategy, with a progress bar.

Sources are obtained first, one trace at a time (downloads are cached), then the traces are
replayed, in ``jobs`` worker processes when asked (each trace is independent).
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ...errors import LeanreadError
from ..traces import Trace, load_trace
from .engine import TraceResult, replay
from .source import Source
from .source_more import obtain_for
from .strategies import available
from .strategy import Strategy


@dataclass
class ReplayRun:
    """The outcome of a whole run: per-trace results, and traces that could not be replayed."""

    strategies: list[type[Strategy]]
    results: list[TraceResult] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)


def pick_strategies(names: list[str] | None) -> list[type[Strategy]]:
    """The strategy classes named (all when ``names`` is empty), in report order.

    Raises:
        LeanreadError: a name that is not a strategy.
    """
    known = available()
    if not names:
        return list(known.values())
    unknown = [n for n in names if n not in known]
    if unknown:
        raise LeanreadError(f"Unknown strategy {', '.join(unknown)}; choose from {', '.join(known)}.")
    return [cls for name, cls in known.items() if name in names]


def trace_files(traces_dir: Path, only: list[str] | None = None) -> list[Path]:
    """The ``*.jsonl`` traces of ``traces_dir`` (those whose name contains one of ``only``).

    Raises:
        LeanreadError: no trace there.
    """
    files = sorted(p for p in traces_dir.glob("*.jsonl") if not only or any(o in p.stem for o in only))
    if not files:
        raise LeanreadError(f"No traces (*.jsonl) in {traces_dir}" + (f" matching {', '.join(only)}" if only else ""))
    return files


def _replay_one(path: Path, source: Source, names: list[str], tmp_dir: Path | None) -> TraceResult:
    return replay(load_trace(path), source, pick_strategies(names), tmp_dir=tmp_dir)


def run_all(
    files: list[Path],
    strategies: list[type[Strategy]],
    *,
    cache: Path | None = None,
    jobs: int = 1,
    tmp_dir: Path | None = None,
    console: Console | None = None,
) -> ReplayRun:
    """Obtain every trace's source, then replay them all; a progress bar shows both phases."""
    console = console or Console(stderr=True)
    run = ReplayRun(strategies)
    names = [s.name for s in strategies]
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    ready: list[tuple[Path, Trace, Source]] = []
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task("sources", total=len(files))
        for path in files:
            trace = load_trace(path)
            progress.update(task, description=f"source {trace.package}=={trace.version}")
            try:
                ready.append((path, trace, obtain_for(trace.header, trace.package, trace.version, cache)))
            except LeanreadError as exc:
                run.failed[trace.name] = str(exc)
            progress.advance(task)
        task = progress.add_task("replay", total=len(ready))
        if jobs <= 1:
            for _path, trace, source in ready:
                progress.update(task, description=f"replay {trace.name}")
                run.results.append(replay(trace, source, strategies, tmp_dir=tmp_dir))
                progress.advance(task)
        else:
            with ProcessPoolExecutor(max_workers=jobs) as pool:
                futures = {pool.submit(_replay_one, p, s, names, tmp_dir): t.name for p, t, s in ready}
                for future in as_completed(futures):
                    progress.update(task, description=f"replayed {futures[future]}")
                    try:
                        run.results.append(future.result())
                    except Exception as exc:  # a worker's failure is reported with its trace
                        run.failed[futures[future]] = f"{type(exc).__name__}: {exc}"
                    progress.advance(task)
    run.results.sort(key=lambda r: r.name)
    return run


def default_jobs() -> int:
    """Worker processes by default: the CPUs this process may use, at most 4."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, 4))
