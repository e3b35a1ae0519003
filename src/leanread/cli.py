"""The ``leanread`` command: the tools from a shell, the MCP server, the demo and benchmarks."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from .config import Settings, load_settings
from .errors import LeanreadError
from .frame import for_terminal
from .ledger import LedgerStore
from .pruning import make_pruner
from .result import ToolResult
from .session import Session
from .tools import grep as grep_tool
from .tools import ls as ls_tool
from .tools import read as read_tool
from .workspace import Workspace, given_roots

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="File tools for LLM coding agents that spend context tokens with care.",
)

RootOption = Annotated[
    list[str] | None,
    typer.Option(
        "--root",
        help="Workspace root (repeatable); default the current directory. An empty one is left out.",
        callback=lambda roots: given_roots(roots) if roots else roots,  # once per command: one stderr line
    ),
]
MaxLines = Annotated[int | None, typer.Option(help="Lines per read when no limit is given (config: max_lines).")]
MaxBytes = Annotated[int | None, typer.Option(help="Bytes of output per read (config: max_bytes).")]
MaxLineChars = Annotated[
    int | None, typer.Option(help="Characters of a line before it is cut (config: max_line_chars).")
]
ReadMode = Annotated[
    str | None, typer.Option(help="What a read without offset/limit gives: auto, full or outline (config: read_mode).")
]
FocusBackend = Annotated[
    str | None,
    typer.Option(help="Backend pruning outputs for --focus: local, hybrid, llm or swe-pruner (config: focus_backend)."),
]
FocusUrl = Annotated[
    str | None,
    typer.Option(help="Base URL of the llm or swe-pruner backend, e.g. http://localhost:8000/v1 (config: focus_url)."),
]
FocusModel = Annotated[str | None, typer.Option(help="Chat model of the llm backend (config: focus_model).")]
FocusKeyEnv = Annotated[
    str | None,
    typer.Option(help="Environment variable holding the llm backend's API key; default OPENAI_API_KEY."),
]
FocusTimeout = Annotated[
    float | None, typer.Option(help="Seconds a remote focus backend may take in all (config: focus_timeout).")
]
SessionOption = Annotated[
    str | None,
    typer.Option(
        "--session",
        envvar="LEANREAD_SESSION",
        help="Ledger session id, kept in the default ledger between commands (so `read --match-id` finds a "
        "`grep`'s ids, a re-read gets a stub and an edit its grant); default $LEANREAD_SESSION, else a new one.",
    ),
]
MetaOption = Annotated[bool, typer.Option(help="Also print the result's metadata as JSON on stderr.")]


def _settings(
    root: list[str] | None,
    max_lines: int | None,
    max_bytes: int | None,
    max_line_chars: int | None,
    read_mode: str | None = None,
    focus: tuple[str | None, str | None, str | None, str | None, float | None] = (None,) * 5,
    allow_write_protected: bool = False,
    dedup: str | None = None,
) -> Settings:
    """The user's and the first root's configuration files, with the command-line flags on top
    (``focus``: the backend, URL, model, API key variable and timeout flags); what the project's
    file tried to loosen is named on stderr."""
    overrides = {
        "max_lines": max_lines,
        "max_bytes": max_bytes,
        "max_line_chars": max_line_chars,
        "read_mode": read_mode,
        "dedup": dedup,
        "allow_write_protected": True if allow_write_protected else None,
        **dict(
            zip(("focus_backend", "focus_url", "focus_model", "focus_api_key_env", "focus_timeout"), focus, strict=True)
        ),
    }
    settings = load_settings(Workspace(root).primary, overrides, "the command-line options")
    for warning in settings.warnings:
        print(f"leanread: {warning}", file=sys.stderr)
    return settings


def _session(root: list[str] | None, settings: Settings, session: str | None = None) -> Session:
    """A session over ``root`` with ``settings``, its focus backend included."""
    return Session(
        root,
        id=session,
        limits=settings.limits,
        policy=settings.policy,
        pruner=make_pruner(settings.focus),
        transcript=settings.transcript,
    )


def _show(result: ToolResult, meta: bool) -> None:
    """Print what the model sees (stdout; a refusal on stderr with status 1), and the metadata on
    request. On a terminal, control characters show in caret notation (``frame.for_terminal``)."""
    if meta:
        import json

        print(json.dumps(result.metadata, indent=2), file=sys.stderr)
    if result.is_error:
        print(result.text, file=sys.stderr)
        raise typer.Exit(1)
    print(for_terminal(result.text) if sys.stdout.isatty() else result.text)


def _write_image(result: ToolResult, target: Path) -> None:
    """Write the image a read sent to ``target``; a one-line error when there is none or it cannot be written."""
    if not result.images:
        print(f"No image written to {target}: this read sent no image.", file=sys.stderr)
        raise typer.Exit(1)
    import base64

    try:
        target.write_bytes(base64.b64decode(result.images[0].data))
    except OSError as exc:
        print(f"Cannot write the image to {target}: {exc.strerror}; pass another --image-out path.", file=sys.stderr)
        raise typer.Exit(1) from None


#: ``read``'s help for each parameter, the match parameters included.
_READ_HELP = read_tool.PARAMETERS


@app.command()
def read(
    path: Annotated[str | None, typer.Argument(help=_READ_HELP["path"])] = None,
    offset: Annotated[int | None, typer.Option(help=_READ_HELP["offset"])] = None,
    limit: Annotated[int | None, typer.Option(help=_READ_HELP["limit"])] = None,
    format: Annotated[str, typer.Option(help=_READ_HELP["format"])] = "plain",
    char_offset: Annotated[int | None, typer.Option(help=_READ_HELP["char_offset"])] = None,
    match_id: Annotated[str | None, typer.Option(help=_READ_HELP["match_id"])] = None,
    context_before: Annotated[int | None, typer.Option(help=_READ_HELP["context_before"])] = None,
    context_after: Annotated[int | None, typer.Option(help=_READ_HELP["context_after"])] = None,
    mode: Annotated[str | None, typer.Option(help=_READ_HELP["mode"])] = None,
    symbol: Annotated[str | None, typer.Option(help=_READ_HELP["symbol"])] = None,
    focus: Annotated[str | None, typer.Option(help=_READ_HELP["focus"])] = None,
    fresh: Annotated[bool, typer.Option(help=_READ_HELP["fresh"])] = False,
    focus_backend: FocusBackend = None,
    focus_url: FocusUrl = None,
    focus_model: FocusModel = None,
    focus_api_key_env: FocusKeyEnv = None,
    focus_timeout: FocusTimeout = None,
    root: RootOption = None,
    session: SessionOption = None,
    meta: MetaOption = False,
    max_lines: MaxLines = None,
    max_bytes: MaxBytes = None,
    max_line_chars: MaxLineChars = None,
    image_out: Annotated[
        Path | None, typer.Option(help="For an image: also write the image as sent to the model to this file.")
    ] = None,
) -> None:
    """Print exactly what the model would see for a `read` tool call."""
    if match_id is not None and session is None:
        print(
            "--match-id needs --session: match ids live in a ledger session, so run "
            "`leanread grep PATTERN --session NAME`, then `leanread read --match-id m1 --session NAME`.",
            file=sys.stderr,
        )
        raise typer.Exit(2)
    settings = _settings(
        root,
        max_lines,
        max_bytes,
        max_line_chars,
        focus=(focus_backend, focus_url, focus_model, focus_api_key_env, focus_timeout),
    )
    tools = _session(root, settings, session)
    result = tools.read(
        path,
        offset=offset,
        limit=limit,
        format=format,
        char_offset=char_offset,
        match_id=match_id,
        context_before=context_before,
        context_after=context_after,
        mode=mode,
        symbol=symbol,
        focus=focus,
        fresh=fresh,
    )
    _show(result, meta)
    if image_out is not None:
        _write_image(result, image_out)


@app.command()
def grep(
    pattern: Annotated[str | None, typer.Argument(help=grep_tool.PARAMETERS["pattern"])] = None,
    path: Annotated[str | None, typer.Argument(help=grep_tool.PARAMETERS["path"])] = None,
    glob: Annotated[str | None, typer.Option("--glob", "-g", help=grep_tool.PARAMETERS["glob"])] = None,
    type: Annotated[str | None, typer.Option("--type", "-t", help=grep_tool.PARAMETERS["type"])] = None,
    case_insensitive: Annotated[
        bool, typer.Option("--case-insensitive", "-i", help=grep_tool.PARAMETERS["case_insensitive"])
    ] = False,
    context: Annotated[int | None, typer.Option("--context", "-C", help=grep_tool.PARAMETERS["context"])] = None,
    before: Annotated[int | None, typer.Option("--before", "-B", help=grep_tool.PARAMETERS["before"])] = None,
    after: Annotated[int | None, typer.Option("--after", "-A", help=grep_tool.PARAMETERS["after"])] = None,
    max_results: Annotated[int | None, typer.Option(help=grep_tool.PARAMETERS["max_results"])] = None,
    offset: Annotated[int | None, typer.Option(help=grep_tool.PARAMETERS["offset"])] = None,
    files_only: Annotated[bool, typer.Option("--files-only", "-l", help=grep_tool.PARAMETERS["files_only"])] = False,
    focus: Annotated[str | None, typer.Option(help=grep_tool.PARAMETERS["focus"])] = None,
    include_ignored: Annotated[bool, typer.Option(help=grep_tool.PARAMETERS["include_ignored"])] = False,
    symbol: Annotated[str | None, typer.Option(help=grep_tool.PARAMETERS["symbol"])] = None,
    focus_backend: FocusBackend = None,
    focus_url: FocusUrl = None,
    focus_model: FocusModel = None,
    focus_api_key_env: FocusKeyEnv = None,
    focus_timeout: FocusTimeout = None,
    root: RootOption = None,
    session: SessionOption = None,
    meta: MetaOption = False,
    max_bytes: MaxBytes = None,
) -> None:
    """Print exactly what the model would see for a `grep` tool call (`--symbol NAME`: a name's uses)."""
    if symbol is not None and path is None and pattern is not None:
        pattern, path = None, pattern  # `leanread grep --symbol NAME src`: the one argument is the path
    settings = _settings(
        root, None, max_bytes, None, focus=(focus_backend, focus_url, focus_model, focus_api_key_env, focus_timeout)
    )
    tools = _session(root, settings, session)
    result = tools.grep(
        pattern,
        path,
        glob=glob,
        type=type,
        case_insensitive=case_insensitive,
        context=context,
        before=before,
        after=after,
        max_results=max_results,
        offset=offset,
        files_only=files_only,
        focus=focus,
        include_ignored=include_ignored,
        symbol=symbol,
    )
    _show(result, meta)


@app.command("ls")
def ls_command(
    path: Annotated[str | None, typer.Argument(help=ls_tool.PARAMETERS["path"])] = None,
    depth: Annotated[int | None, typer.Option(help=ls_tool.PARAMETERS["depth"])] = None,
    max_entries: Annotated[int | None, typer.Option(help=ls_tool.PARAMETERS["max_entries"])] = None,
    include_ignored: Annotated[bool, typer.Option(help=ls_tool.PARAMETERS["include_ignored"])] = False,
    root: RootOption = None,
    meta: MetaOption = False,
) -> None:
    """Print exactly what the model would see for an `ls` tool call."""
    tools = _session(root, _settings(root, None, None, None))
    _show(tools.ls(path, depth=depth, max_entries=max_entries, include_ignored=include_ignored), meta)


@app.command("sh")
def sh_command(
    command: Annotated[str, typer.Option("-c", help="The shell command, as an agent would run it with bash -c.")],
    read_mode: ReadMode = None,
    root: RootOption = None,
    session: SessionOption = None,
) -> None:
    """Run a shell command; cat, sed -n, nl -ba, head, tail, grep and rg are answered through the
    session's ledger (stubs, diffs, outlines), anything else runs as it is (bash -c)."""
    from .shell.command import answer_or_exec

    settings = _settings(root, None, None, None, read_mode)
    raise typer.Exit(answer_or_exec(_session(root, settings, session), command))


@app.command()
def serve(
    root: RootOption = None,
    session: Annotated[
        str | None,
        typer.Option(help="Ledger id for every client session (a harness resuming a conversation)."),
    ] = None,
    ledger: Annotated[
        str | None,
        typer.Option(
            help="Where the ledger lives: a SQLite file path, 'memory', or redis://host:port/db (servers sharing "
            "sessions). Default: a SQLite file in the user state folder."
        ),
    ] = None,
    ledger_idle: Annotated[
        int | None,
        typer.Option(help="With a Redis ledger: seconds a session is kept after its last call. Default: 7 days."),
    ] = None,
    max_lines: MaxLines = None,
    max_bytes: MaxBytes = None,
    max_line_chars: MaxLineChars = None,
    read_mode: ReadMode = None,
    focus_backend: FocusBackend = None,
    focus_url: FocusUrl = None,
    focus_model: FocusModel = None,
    focus_api_key_env: FocusKeyEnv = None,
    focus_timeout: FocusTimeout = None,
    allow_write_protected: Annotated[
        bool,
        typer.Option(help="Let edit and write change .git and leanread's own configuration (refused by default)."),
    ] = False,
    dedup: Annotated[
        str | None,
        typer.Option(
            help="When a re-read gets a stub: recent (default; against the last 40 calls), on (until the client "
            "reports a compaction) or off (config: dedup)."
        ),
    ] = None,
    expose_context_tool: Annotated[
        bool,
        typer.Option(help="Also offer the context tool (for a harness that tells leanread what it compacted)."),
    ] = False,
    http: Annotated[
        str | None,
        typer.Option(
            help="Serve streamable HTTP on HOST:PORT (at /mcp; GET /healthz) instead of stdio; each request names "
            "its ledger session (header Leanread-Session or _meta key leanread/session)."
        ),
    ] = None,
    token_env: Annotated[
        str, typer.Option(help="With --http: the environment variable holding the bearer token (needed off loopback).")
    ] = "LEANREAD_TOKEN",
) -> None:
    """Serve the tools over MCP on stdin/stdout (or HTTP with --http)."""
    from .ledgers import open_ledger
    from .server import serve_stdio

    try:
        store = open_ledger(ledger, idle_seconds=ledger_idle)
    except LeanreadError as exc:
        print(exc, file=sys.stderr)
        raise typer.Exit(2) from None
    settings = _settings(
        root,
        max_lines,
        max_bytes,
        max_line_chars,
        read_mode,
        (focus_backend, focus_url, focus_model, focus_api_key_env, focus_timeout),
        allow_write_protected,
        dedup,
    )
    if http is not None:
        _serve_http(root, settings, store, session, http, token_env, expose_context_tool)
        return
    serve_stdio(root, settings=settings, ledger=store, session_id=session, expose_context_tool=expose_context_tool)


@app.command("inspect")
def inspect_command(
    ledger: Annotated[
        str | None,
        typer.Option(
            help="The ledger to show: a SQLite file or redis://host:port/db. Default: the SQLite file in the user "
            "state folder."
        ),
    ] = None,
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1; 0 picks a free one.")] = 0,
    report: Annotated[
        Path | None,
        typer.Option(help="A replay report (results.json) to show too; default bench-results/replay/results.json."),
    ] = None,
) -> None:
    """Serve a local web page (127.0.0.1 only; nothing leaves the machine) showing what each
    session's model was shown: its calls, their texts, the files, the savings."""
    from .inspect.server import default_report, serve  # jinja2 missing: main names the extra
    from .ledgers import open_ledger

    def announce(url: str) -> None:
        print(f"leanread inspect: open {url} (Ctrl-C stops it)", flush=True)

    try:
        serve(open_ledger(ledger), port, report or default_report(), announce)
    except LeanreadError as exc:
        print(str(exc), file=sys.stderr)
        raise typer.Exit(1) from None


def _serve_http(
    root: list[str] | None,
    settings: Settings,
    store: LedgerStore,
    session: str | None,
    bind: str,
    token_env: str,
    expose_context_tool: bool = False,
) -> None:
    """``serve --http``: refuse a bad address or a missing token off loopback with exit status 2."""
    from .server import build_server
    from .server_http import check_bind, run_http

    token = os.environ.get(token_env) or None
    try:
        check_bind(bind, token, token_env)
        server = build_server(
            root,
            settings=settings,
            ledger=store,
            session_id=session,
            shared=True,
            expose_context_tool=expose_context_tool,
        )
    except LeanreadError as exc:
        print(exc, file=sys.stderr)
        raise typer.Exit(2) from None
    run_http(server, bind, token)


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
    from .bench.demo import run_demo

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
    from .bench.window import bench_window as run
    from .bench.window import markdown_report

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
    from .bench.grep_bench import bench_grep as run
    from .bench.grep_bench import markdown_report

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
    from .bench.navigate import bench_navigate as run
    from .bench.navigate import markdown_report

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
    from .bench.replay.command import run_replay_command

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
    from .bench.importers import import_files

    for path in import_files(fmt, files, out):
        print(path)


@bench_app.command("inspect")
def bench_inspect(
    calls: Annotated[int, typer.Option(help="Tool calls in the generated session.")] = 10_000,
    rounds: Annotated[int, typer.Option(help="Fetches per page; the median is shown.")] = 5,
) -> None:
    """Time the inspect pages on a generated ledger of one long session."""
    from .bench.inspect_bench import main as inspect_main

    inspect_main(calls, rounds)


@bench_app.command("documents")
def bench_documents() -> None:
    """Tokens of `read` on a notebook, screenshots, PDF, DOCX, ODT, EPUB and RTF, against their raw bytes."""
    from .bench.documents import bench_documents as run
    from .bench.documents import markdown_report

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
    from .bench.prune import SOURCES, markdown_report, parse_sources
    from .bench.prune import bench_prune as run

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
    from .bench.speed import bench_speed as run
    from .bench.speed import markdown_report

    if peer:
        _bench_peer(runs, marks)
        return
    shown = f"leanread bench speed --runs {runs} --big-mb {big_mb}" + (f" --root {root}" if root else "")
    print(markdown_report(run(root, runs, big_mb), shown))


def _bench_peer(runs: int, marks: list[int] | None) -> None:
    """``bench speed --peer``: against the npm reference server, and latency as a session grows."""
    import leanread

    from .bench.growth import MARKS, bench_growth, growth_rows
    from .bench.peer import bench_peer, peer_report
    from .bench.redis_local import local_redis

    chosen = tuple(marks) if marks else MARKS
    rows = bench_peer(runs=runs)
    with local_redis() as redis:
        growth = bench_growth(Path(leanread.__file__).parent, "tools/read.py", redis.url, chosen)
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
    from .bench.load import bench_load as run
    from .bench.load import load_report

    shown = f"leanread bench load --sessions {sessions} --calls {calls}" + ("" if faults else " --no-faults")
    print(load_report(run(sessions, calls, max_seconds, faults), shown))


@bench_app.command("faults")
def bench_faults(
    rounds: Annotated[int, typer.Option(help="Server processes started, sent a burst of writes, killed.")] = 100,
    seed: Annotated[int, typer.Option(help="Seed of the random kill moments.")] = 0,
) -> None:
    """kill -9 of `leanread serve` amid edits and writes: torn files and ledger reopen failures (both must be 0)."""
    from .bench.faults import bench_faults as run
    from .bench.faults import markdown_report

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
    from .bench.fuzz import FuzzConfig, run_fuzz
    from .bench.fuzz.report import markdown_report, verbose_line

    config = FuzzConfig(calls=calls, seed=seed, only=tuple(only or ()), deadline=deadline, max_seconds=max_seconds)
    summary = run_fuzz(config, (lambda c, r, f: print(verbose_line(c, r, f), flush=True)) if verbose else None)
    print(markdown_report(summary))
    failed = sum(summary.count(kind) for kind in ("crash", "hang", "invalid", "unexplained", "leak"))
    raise typer.Exit(1 if failed else 0)


def main() -> None:
    """Entry point of the ``leanread`` console script: refusals print one line, status 1, and so
    does a command that needs a module of an optional extra not installed (``extras``)."""
    from .extras import missing_extra

    try:
        app()
    except LeanreadError as exc:
        print(exc, file=sys.stderr)
        raise SystemExit(1) from None
    except ImportError as exc:
        words = [word for word in sys.argv[1:3] if not word.startswith("-")]
        named = missing_extra(exc, " ".join(["leanread", *words[: 2 if words[:1] == ["bench"] else 1]]))
        if named is None:
            raise
        print(named, file=sys.stderr)
        raise SystemExit(1) from None


from . import cli_tools  # noqa: E402, F401  (registers edit, write and context on app)
