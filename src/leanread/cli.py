"""The ``leanread`` command: the tools from a shell, the MCP server, the demo and benchmarks."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from .config import Settings, load_settings
from .errors import LeanreadError
from .session import Session
from .tools import read as read_tool
from .workspace import Workspace

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="File tools for LLM coding agents that spend context tokens with care.",
)

RootOption = Annotated[
    list[Path] | None,
    typer.Option("--root", help="Workspace root (repeatable); default the current directory."),
]
MaxLines = Annotated[int | None, typer.Option(help="Lines per read when no limit is given (config: max_lines).")]
MaxBytes = Annotated[int | None, typer.Option(help="Bytes of output per read (config: max_bytes).")]
MaxLineChars = Annotated[
    int | None, typer.Option(help="Characters of a line before it is cut (config: max_line_chars).")
]


def _settings(
    root: list[Path] | None, max_lines: int | None, max_bytes: int | None, max_line_chars: int | None
) -> Settings:
    """The first root's configuration file, with the command-line flags on top."""
    overrides = {"max_lines": max_lines, "max_bytes": max_bytes, "max_line_chars": max_line_chars}
    return load_settings(Workspace(root).primary, overrides)


@app.command()
def read(
    path: Annotated[str, typer.Argument(help=read_tool.PARAMETERS["path"])],
    offset: Annotated[int | None, typer.Option(help=read_tool.PARAMETERS["offset"])] = None,
    limit: Annotated[int | None, typer.Option(help=read_tool.PARAMETERS["limit"])] = None,
    format: Annotated[str, typer.Option(help=read_tool.PARAMETERS["format"])] = "plain",
    char_offset: Annotated[int | None, typer.Option(help=read_tool.PARAMETERS["char_offset"])] = None,
    root: RootOption = None,
    meta: Annotated[bool, typer.Option(help="Also print the result's metadata as JSON on stderr.")] = False,
    max_lines: MaxLines = None,
    max_bytes: MaxBytes = None,
    max_line_chars: MaxLineChars = None,
) -> None:
    """Print exactly what the model would see for a `read` tool call."""
    settings = _settings(root, max_lines, max_bytes, max_line_chars)
    session = Session(root, limits=settings.limits, policy=settings.policy)
    result = session.read(path, offset=offset, limit=limit, format=format, char_offset=char_offset)
    if meta:
        import json

        print(json.dumps(result.metadata, indent=2), file=sys.stderr)
    if result.is_error:
        print(result.text, file=sys.stderr)
        raise typer.Exit(1)
    print(result.text)


@app.command()
def serve(
    root: RootOption = None,
    session: Annotated[
        str | None,
        typer.Option(help="Ledger id for every client session (a harness resuming a conversation)."),
    ] = None,
    ledger: Annotated[
        str | None,
        typer.Option(help="Where the ledger lives: a SQLite file path, or 'memory'. Default: the user state folder."),
    ] = None,
    max_lines: MaxLines = None,
    max_bytes: MaxBytes = None,
    max_line_chars: MaxLineChars = None,
) -> None:
    """Serve the tools over MCP on stdin/stdout."""
    from .ledger import MemoryLedger
    from .ledger_sqlite import shared_ledger
    from .server import serve_stdio

    store = MemoryLedger() if ledger == "memory" else shared_ledger(ledger)
    settings = _settings(root, max_lines, max_bytes, max_line_chars)
    serve_stdio(root, settings=settings, ledger=store, session_id=session)


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
) -> None:
    """Replay a real agent trace's reads through `leanread serve` over MCP and compare tokens
    with an opencode-style read (`N: ` prefixes, no dedup)."""
    from .bench.demo import run_demo

    raise typer.Exit(run_demo(trace=trace, traces_dir=traces_dir, cache=cache))


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
    from .bench.window import bench_window as run
    from .bench.window import markdown_report

    result = run(path, size_mb, runs, window=window)
    shown = f"leanread bench window --size-mb {size_mb} --runs {runs} --window {window}"
    print(markdown_report(result, shown + (f" --path {path}" if path else "")))


def main() -> None:
    """Entry point of the ``leanread`` console script: refusals print one line, status 1."""
    try:
        app()
    except LeanreadError as exc:
        print(exc, file=sys.stderr)
        raise SystemExit(1) from None
