"""``leanread demo`` and ``leanread bench ...``: the replays and benchmarks from the command line.

Every command imports its ``leanread.bench`` module when it runs, so the tools' commands load
none of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .app import app


@app.command()
def demo(
    trace: Annotated[
        Path | None,
        typer.Option(help="Trace file (JSONL, see shared/traces/README.md); default a pytest 6.0 trace."),
    ] = None,
    traces_dir: Annotated[
        Path | None, typer.Option("--traces", help="Folder of traces; default ../shared/traces.")
    ] = None,
    cache: Annotated[
        Path | None, typer.Option(help="Where downloaded sdists are kept; default ~/.cache/leanread.")
    ] = None,
    outside_edits: Annotated[
        bool,
        typer.Option(help="Apply the agent's edits to files directly, as another tool would, not through leanread."),
    ] = False,
    read_mode: Annotated[
        str, typer.Option(help="full: every read lossless (default); auto: whole reads of big files give outlines.")
    ] = "full",
) -> None:
    """Replay a real agent trace's reads through `leanread serve` over MCP and compare tokens
    with an opencode-style read (`N: ` prefixes, no dedup)."""
    from ..bench.demo import run_demo

    code = run_demo(trace=trace, traces_dir=traces_dir, cache=cache, outside_edits=outside_edits, read_mode=read_mode)
    raise typer.Exit(code)


bench_app = typer.Typer(no_args_is_help=True, help="Benchmarks; each prints a Markdown section for BENCHMARKS.md.")
app.add_typer(bench_app, name="bench")


@bench_app.command("window")
def bench_window(
    path: Annotated[Path | None, typer.Option(help="An existing file; default: generate a log.")] = None,
    size_mb: Annotated[int, typer.Option(help="MiB of log to generate.")] = 1024,
    runs: Annotated[int, typer.Option(help="Timed repetitions; medians are reported.")] = 5,
    window: Annotated[int, typer.Option(help="Lines in the window.")] = 100,
) -> None:
    """A window near the end of a big file: leanread's `read` against `sed -n 'A,Bp'`."""
    from ..bench.window import bench_window as run
    from ..bench.window import markdown_report

    result = run(path, size_mb, runs, window=window)
    shown = f"leanread bench window --size-mb {size_mb} --runs {runs} --window {window}"
    print(markdown_report(result, shown + (f" --path {path}" if path else "")))


@bench_app.command("grep")
def bench_grep(
    runs: Annotated[int, typer.Option(help="Timed repetitions per search; medians are reported.")] = 5,
    source: Annotated[
        Path | None, typer.Option(help="A source tree to search; default the django 4.2 sdist from PyPI.")
    ] = None,
    cache: Annotated[
        Path | None, typer.Option(help="Where downloaded sdists are kept; default ~/.cache/leanread.")
    ] = None,
) -> None:
    """`grep` end to end against raw `rg -n` for the same searches: time and tokens."""
    from ..bench.grep_bench import bench_grep as run
    from ..bench.grep_bench import markdown_report

    result = run(source=source, runs=runs, cache=cache)
    shown = f"leanread bench grep --runs {runs}" + (f" --source {source}" if source else "")
    print(markdown_report(result, shown))


@bench_app.command("navigate")
def bench_navigate(
    names: Annotated[int, typer.Option(help="Uses of names drawn per project and kept.")] = 300,
    refs: Annotated[int, typer.Option(help="Of those, names whose references are compared.")] = 30,
    cache: Annotated[Path | None, typer.Option(help="Where sources are kept; default ~/.cache/leanread.")] = None,
) -> None:
    """The symbol index against pyright and typescript-language-server: precision, recall, time."""
    from ..bench.navigate import bench_navigate as run
    from ..bench.navigate import markdown_report

    print(markdown_report(run(names, refs, cache), f"leanread bench navigate --names {names} --refs {refs}"))


@bench_app.command("replay")
def bench_replay(
    traces: Annotated[Path | None, typer.Option(help="Folder of traces (*.jsonl); default ../shared/traces.")] = None,
    trace: Annotated[list[str] | None, typer.Option(help="Only traces whose name contains this (repeatable).")] = None,
    strategy: Annotated[list[str] | None, typer.Option(help="Only this strategy (repeatable); default all.")] = None,
    cache: Annotated[Path | None, typer.Option(help="Where downloads are kept; default ~/.cache/leanread.")] = None,
    out: Annotated[Path | None, typer.Option(help="Folder for results.json, replay.png, replay.md.")] = None,
    jobs: Annotated[int | None, typer.Option(help="Traces replayed at once; default the CPUs, at most 4.")] = None,
    append: Annotated[Path | None, typer.Option(help="Also append the Markdown to this file.")] = None,
) -> None:
    """Replay real agent traces through leanread and the anchors' behaviours; tokens side by side."""
    from ..bench.replay.command import run_replay_command

    raise typer.Exit(run_replay_command(traces, trace, strategy, cache, out, jobs, append))


@bench_app.command("import")
def bench_import(
    fmt: Annotated[
        str,
        typer.Argument(
            metavar="FORMAT",
            help="swe-agent, mini-swe-agent, openhands, claude-code, codex or opencode (session/*.json or export).",
        ),
    ],
    files: Annotated[
        list[Path], typer.Argument(help="The agent's log files (a sources.json beside them adds header fields).")
    ],
    out: Annotated[Path, typer.Option(help="Folder for the traces (*.jsonl), for `bench replay --traces`.")],
) -> None:
    """An agent's own logs as replay traces (the schema of shared/traces/README.md)."""
    from ..bench.importers import import_files

    for path in import_files(fmt, files, out):
        print(path)


@bench_app.command("inspect")
def bench_inspect(
    calls: Annotated[int, typer.Option(help="Tool calls in the generated session.")] = 10_000,
    rounds: Annotated[int, typer.Option(help="Fetches per page; the median is shown.")] = 5,
) -> None:
    """Time the inspect pages on a generated ledger of one long session."""
    from ..bench.inspect_bench import main as inspect_main

    inspect_main(calls, rounds)


@bench_app.command("documents")
def bench_documents() -> None:
    """Tokens of `read` on a notebook, screenshots, PDF, DOCX, ODT, EPUB and RTF, against their raw bytes."""
    from ..bench.documents import bench_documents as run
    from ..bench.documents import markdown_report

    print(markdown_report(run(), "leanread bench documents"))


@bench_app.command("prune")
def bench_prune(
    cache: Annotated[
        Path | None, typer.Option(help="Where downloaded sdists are kept; default ~/.cache/leanread.")
    ] = None,
    sources: Annotated[
        list[str] | None,
        typer.Option(
            "--sources",
            help="A PyPI sdist to draw questions from, as name==version (repeatable); "
            "default django==4.2, pytest==6.0, sphinx==4.0 (the hybrid's tuning set).",
        ),
    ] = None,
) -> None:
    """Focus pruning on real docstring questions: gold-line recall and tokens kept, against head
    truncation and plain BM25."""
    from ..bench.prune import SOURCES, markdown_report, parse_sources
    from ..bench.prune import bench_prune as run

    chosen = parse_sources(sources) if sources else SOURCES
    shown = "leanread bench prune" + ("".join(f" --sources {p}=={v}" for p, v in chosen) if sources else "")
    print(markdown_report(run(cache=cache, sources=chosen), shown))


@bench_app.command("speed")
def bench_speed(
    root: Annotated[Path | None, typer.Option(help="Tree to read and search; default leanread's source.")] = None,
    runs: Annotated[int, typer.Option(help="Timed repetitions; medians are reported.")] = 20,
    big_mb: Annotated[int, typer.Option(help="MiB of the generated log for the big-file window.")] = 256,
    peer: Annotated[
        bool, typer.Option(help="Instead: side by side with the npm reference MCP server, and p50 as a session grows.")
    ] = False,
    marks: Annotated[
        list[int] | None,
        typer.Option("--mark", help="With --peer: session calls to measure at (default 10, 1000, 10000)."),
    ] = None,
) -> None:
    """Call latency: reads, a big-file window, an MCP round trip and grep, each against its shell equivalent."""
    from ..bench.speed import bench_speed as run
    from ..bench.speed import markdown_report

    if peer:
        _bench_peer(runs, marks)
        return
    shown = f"leanread bench speed --runs {runs} --big-mb {big_mb}" + (f" --root {root}" if root else "")
    print(markdown_report(run(root, runs, big_mb), shown))


def _bench_peer(runs: int, marks: list[int] | None) -> None:
    """``bench speed --peer``: against the npm reference server, and latency as a session grows."""
    import leanread

    from ..bench.growth import MARKS, bench_growth, growth_rows
    from ..bench.peer import bench_peer, peer_report
    from ..bench.redis_local import local_redis

    chosen = tuple(marks) if marks else MARKS
    rows = bench_peer(runs=runs)
    with local_redis() as redis:
        growth = bench_growth(Path(leanread.__file__).parent, "tools/read/pipeline.py", redis.url, chosen)
    shown = f"leanread bench speed --peer --runs {runs}" + "".join(f" --mark {m}" for m in marks or ())
    print(peer_report(rows, growth_rows(growth), shown))


@bench_app.command("load")
def bench_load(
    sessions: Annotated[int, typer.Option(help="Concurrent MCP sessions.")] = 50,
    calls: Annotated[int, typer.Option(help="Calls per session.")] = 1000,
    max_seconds: Annotated[float, typer.Option(help="Each configuration stops after this many seconds.")] = 900.0,
    faults: Annotated[bool, typer.Option(help="Also kill -9 one server, and stop Redis, half-way.")] = True,
) -> None:
    """Concurrent sessions over HTTP on loopback: one server, then two sharing Redis (and faults)."""
    from ..bench.load import bench_load as run
    from ..bench.load import load_report

    shown = f"leanread bench load --sessions {sessions} --calls {calls}" + ("" if faults else " --no-faults")
    print(load_report(run(sessions, calls, max_seconds, faults), shown))


@bench_app.command("faults")
def bench_faults(
    rounds: Annotated[int, typer.Option(help="Server processes started, sent a burst of writes, killed.")] = 100,
    seed: Annotated[int, typer.Option(help="Seed of the random kill moments.")] = 0,
) -> None:
    """kill -9 of `leanread serve` amid edits and writes: torn files and ledger reopen failures (both must be 0)."""
    from ..bench.faults import bench_faults as run
    from ..bench.faults import markdown_report

    shown = f"leanread bench faults --rounds {rounds}" + (f" --seed {seed}" if seed else "")
    print(markdown_report(run(rounds, seed), shown))


@bench_app.command("fuzz")
def bench_fuzz(
    calls: Annotated[int, typer.Option(help="Calls to send (1..N).")] = 1000,
    seed: Annotated[int, typer.Option(help="Picks the generated tree and every call.")] = 0,
    only: Annotated[list[int] | None, typer.Option(help="Send only call K of the seed (repeatable): a replay.")] = None,
    deadline: Annotated[float, typer.Option(help="Seconds a call may take before it counts as a hang.")] = 10.0,
    max_seconds: Annotated[float | None, typer.Option(help="Stop after this many seconds.")] = None,
    verbose: Annotated[bool, typer.Option(help="Print each call and the first line of its result.")] = False,
) -> None:
    """Random and hostile tool calls to `leanread serve` over stdio against a generated tree; counts
    crashes, hangs, invalid results, unexplained file changes and leaked secrets. Exit status 1 if
    any."""
    from ..bench.fuzz import FuzzConfig, run_fuzz
    from ..bench.fuzz.report import markdown_report, verbose_line

    config = FuzzConfig(calls=calls, seed=seed, only=tuple(only or ()), deadline=deadline, max_seconds=max_seconds)
    summary = run_fuzz(config, (lambda c, r, f: print(verbose_line(c, r, f), flush=True)) if verbose else None)
    print(markdown_report(summary))
    failed = sum(summary.count(kind) for kind in ("crash", "hang", "invalid", "unexplained", "leak"))
    raise typer.Exit(1 if failed else 0)
