"""``leanread demo``: replay a real agent trace's reads through ``leanread serve`` over MCP.

The repository comes from PyPI at the traced version (an sdist: a release, not the exact
commit, so windows may have shifted; the replay is approximate and says so). Each ``read`` op
goes to a ``leanread serve`` subprocess through the MCP SDK's stdio client; the agent's own
``edit``/``insert``/``write``/``undo_edit`` ops are applied to the scratch copy between reads.
The baseline is the same window read the opencode way: ``N: `` line prefixes, no dedup.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from rich.console import Console
from rich.table import Table

from ..config.settings import Limits
from ..errors import LeanreadError
from ..ledger.store import MemoryLedger
from ..session import Session
from ..tokens import count_tokens
from .ops import FILE_CHANGES, Replayer, inside, read_window
from .sources import release_source
from .traces import Trace, find_traces_dir, load_trace

DEFAULT_TRACE = "pytest-dev__pytest-7571__openhands-claude-3.5-sonnet.jsonl"


@dataclass
class Row:
    """One replayed read: what leanread spent against the opencode-style baseline (tokens), the
    note on its kind of answer (``stub → step 4``; steps are the trace's, see ``_note``) and the
    exact text leanread answered."""

    step: int
    path: str
    window: str
    leanread: int
    baseline: int
    note: str
    text: str = ""


@dataclass
class Change:
    """One of the agent's edits or writes, replayed: its step, kind (``edit``, ``write``, ...),
    path, size in lines (``3 → 4 lines``) and what became of it (``edit through leanread``,
    ``skipped: old text not found``, ...)."""

    step: int
    kind: str
    path: str
    size: str
    outcome: str


@dataclass
class Replay:
    """The outcome of one demo run."""

    trace: Trace
    source: Path
    rows: list[Row]
    skipped_reads: list[str]
    edits: list[Change]
    read_mode: str = "full"

    @property
    def changes(self) -> dict[str, int]:
        """How many file changes had each outcome."""
        counts: dict[str, int] = {}
        for change in self.edits:
            counts[change.outcome] = counts.get(change.outcome, 0) + 1
        return counts

    @property
    def leanread_total(self) -> int:
        return sum(r.leanread for r in self.rows)

    @property
    def baseline_total(self) -> int:
        return sum(r.baseline for r in self.rows)


def _window_label(offset: int | None, limit: int | None) -> str:
    start = offset or 1
    return f"{start}-{start + limit - 1}" if limit else f"{start}-end"


def _steps(calls: list[str], steps: dict[str, int]) -> str:
    """Call ids (``r2``, ``r15``) as the trace steps that made them: ``step 4``, ``steps 4, 10``."""
    known = sorted({steps[c] for c in calls if c in steps})
    named = [str(step) for step in known] + [f"call {c}" for c in calls if c not in steps]
    return ("steps " if len(named) > 1 else "step ") + ", ".join(named)


def _note(meta: dict[str, Any], is_error: bool, text: str, steps: dict[str, int]) -> str:
    """The note of one read's row: its kind of answer when not the plain window (``stub``,
    ``markers``, ``diff``, ``outline``, ``byte cap``, ``error``), the calls it points to named by
    the trace steps that made them (``steps``: call id → step)."""
    if is_error:
        return "error: " + text.split(";")[0][:60]
    if meta.get("type") == "outline":
        return "outline"
    if meta.get("mode") in ("stub", "elided", "diff"):
        calls = list(meta.get("unchanged_since") or [])
        kind = {"stub": "stub", "elided": "markers", "diff": "diff"}[meta["mode"]]
        return kind + (f" → {_steps(calls, steps)}" if calls else "")
    if meta.get("truncated") == "bytes":
        return "byte cap"
    return ""


async def _change(client: Client, replayer: Replayer, op: dict[str, Any]) -> tuple[str, str | None]:
    """The agent's edit or write through leanread's own tool; if leanread refuses it (the agent
    saw the text in a view leanread did not give, or the release differs), applied directly.
    Returns what became of it and leanread's call id of the call."""
    if op["op"] == "edit":
        args = {"path": str(op["path"]), "old_string": str(op["old"]), "new_string": str(op.get("new", ""))}
    else:
        args = {"path": str(op["path"]), "content": str(op.get("content", ""))}
    result = await client.call_tool(op["op"], args)
    call_id = (result.meta or {}).get("leanread", {}).get("call_id")
    if not result.is_error:
        return f"{op['op']} through leanread", call_id
    outcome = replayer.apply(op)
    return (f"{op['op']} refused by leanread, then " + outcome if outcome == "applied" else outcome), call_id


def _lines(text: object) -> str:
    count = len(str(text or "").splitlines())
    return f"{count} line" if count == 1 else f"{count} lines"


def _size(op: dict[str, Any]) -> str:
    """How big a file change is, in lines: ``3 → 4 lines`` for an edit, ``12 lines`` for a write."""
    if op["op"] == "edit":
        return f"{len(str(op.get('old') or '').splitlines())} → {_lines(op.get('new'))}"
    if op["op"] in ("write", "insert"):
        return _lines(op.get("content", op.get("new")))
    return ""


async def _replay(
    trace: Trace, scratch: Path, outside_edits: bool, read_mode: str
) -> tuple[list[Row], list[str], list[Change]]:
    args = ["-m", "leanread", "serve", "--root", str(scratch), "--ledger", "memory", "--read-mode", read_mode]
    server = StdioServerParameters(command=sys.executable, args=args)
    replayer = Replayer(scratch)
    rows: list[Row] = []
    skipped: list[str] = []
    changes: list[Change] = []
    steps: dict[str, int] = {}  # leanread's call id → the trace step that made the call
    async with Client(server) as client:
        for op in trace.ops:
            kind, step = op["op"], int(op.get("step", 0))
            through_tools = not outside_edits and (kind == "edit" or (kind == "write" and not op.get("append")))
            if kind in FILE_CHANGES:
                if through_tools and not op.get("error") and inside(scratch, str(op.get("path", ""))):
                    outcome, call_id = await _change(client, replayer, op)
                    steps.update({call_id: step} if call_id else {})
                else:
                    outcome = replayer.apply(op)
                changes.append(Change(step, kind, str(op.get("path", "")), _size(op), outcome))
                continue
            if kind != "read":
                continue
            path = str(op["path"])
            target = inside(scratch, path)
            if target is None or not target.is_file():
                skipped.append(path)
                continue
            offset, limit = read_window(op, target)
            result = await client.call_tool("read", {"path": path, "offset": offset, "limit": limit})
            text = "".join(getattr(block, "text", "") for block in result.content)
            meta = (result.meta or {}).get("leanread", {})
            steps.update({meta["call_id"]: step} if meta.get("call_id") else {})
            opencode = Session([scratch], ledger=MemoryLedger())
            baseline = opencode.read(path, offset=offset, limit=limit, format="colon", mode="full")
            rows.append(
                Row(
                    step=step,
                    path=path,
                    window=_window_label(offset, limit),
                    leanread=count_tokens(text),
                    baseline=count_tokens(baseline.text),
                    note=_note(meta, bool(result.is_error), text, steps),
                    text=text,
                )
            )
    return rows, skipped, changes


def replay_trace(
    trace_file: Path, cache: Path | None = None, *, outside_edits: bool = False, read_mode: str = "full"
) -> Replay:
    """Replay ``trace_file`` on a scratch copy of its release sdist; see the module docstring.
    ``outside_edits``: apply the agent's edits and writes to the files directly, as another tool
    would, instead of through leanread (later reads then meet outside changes: diffs, markers).
    ``read_mode``: ``full`` (default: every read lossless, as the trace's agent saw them) or
    ``auto`` (whole reads of big files give outlines; edits of lines they did not show are then
    refused and applied directly, so the figure leaves out the follow-up reads an agent needs).

    Raises:
        LeanreadError: the sdist could not be downloaded.
    """
    trace = load_trace(trace_file)
    source = release_source(trace.package, trace.version, cache)
    with tempfile.TemporaryDirectory(prefix="leanread-demo-") as tmp:
        scratch = Path(tmp) / source.name
        shutil.copytree(source, scratch, symlinks=True)
        rows, skipped, edits = anyio.run(_replay, trace, scratch, outside_edits, read_mode)
    return Replay(trace, source, rows, skipped, edits, read_mode)


#: What each note in the table's last column means, in the order the legend lists them.
NOTE_LEGEND = (
    (
        "stub",
        "stub → step N: the model still had these lines, unchanged, from what leanread answered at step N (a read, "
        "or an edit, whose result shows the lines it wrote), so leanread sent a short stub instead of the text",
    ),
    (
        "markers",
        "markers → step N: only the lines the model did not have yet were sent; the rest stand as "
        "`… lines A-B unchanged since you read them …` markers for the lines of step N",
    ),
    ("diff", "diff: the file changed since the model read it, so leanread sent a unified diff against what it saw"),
    ("outline", "outline: a whole read of a big file, answered with its map (one row per definition)"),
    ("byte cap", "byte cap: the read stopped at the 50 KB output cap and said where to go on"),
    ("error", "error: leanread refused the read, with the sentence shown"),
)


def mode_line(read_mode: str) -> str:
    """What the demo's read mode does to a whole read, and how to see the other mode."""
    limits = Limits()
    big = f"over {limits.outline_lines} lines or {limits.outline_bytes // 1024} KiB"
    if read_mode == "full":
        return (
            "Read mode: full. Every read returns the lines it asks for and a whole read the whole file, with no "
            f"outlines; `leanread demo --read-mode auto` replays it with outlines (a whole read of a file {big} gives "
            "its outline)."
        )
    return (
        f"Read mode: auto. A whole read of a file {big} gives its outline; an edit of lines an outline did not "
        "show is refused and applied directly, so the figure leaves out the reads an agent would add; "
        "`leanread demo` replays it with every file read in full."
    )


def _legend(replay: Replay) -> list[str]:
    """The legend lines for the notes that occur in ``replay``'s table (and the columns)."""
    lines = [
        "Figures are tokens (o200k_base) of the text each read returned to the model; steps are the trace's "
        "own, in both tables and in the notes.",
        "leanread: what `leanread serve` answered over MCP; opencode-style: the same window read the way "
        "opencode's read tool does (`N: ` before every line, the whole window every time).",
    ]
    used = {row.note.split(" → ")[0].split(":")[0] for row in replay.rows if row.note}
    lines += [text for key, text in NOTE_LEGEND if key in used]
    return lines


def _sample(replay: Replay) -> list[str]:
    """The exact text of the first stub leanread answered, headed by its step; empty when no read
    got one."""
    row = next((r for r in replay.rows if r.note.startswith("stub")), None)
    if row is None:
        return []
    head = f"What leanread answered at step {row.step} (a stub, {row.leanread:,} tokens), exactly:"
    return [head, *row.text.splitlines()]


def _edits_table(replay: Replay) -> Table:
    """The agent's edits and writes, in order, with what became of each."""
    table = Table(title="The agent's file changes, replayed between the reads")
    columns = (("step", "right"), ("change", "left"), ("path", "left"), ("size", "left"), ("outcome", "left"))
    for column, justify in columns:
        table.add_column(column, justify=justify, overflow="fold")  # type: ignore[arg-type]
    for change in replay.edits:
        table.add_row(str(change.step), change.kind, change.path, change.size, change.outcome)
    return table


def print_report(replay: Replay, console: Console) -> None:
    """The per-read table with its legend, the agent's file changes, the totals and their ratio."""
    header = replay.trace.header
    console.print(
        f"[bold]{replay.trace.name}[/bold] — {header.get('agent', '?')} / {header.get('model', '?')}\n"
        f"source: {replay.trace.package}=={replay.trace.version} sdist from PyPI ({replay.source.name}); "
        "a release, not the traced commit, so the replay is approximate."
    )
    console.print(mode_line(replay.read_mode), markup=False)
    table = Table(title="The agent's reads, replayed through leanread (tokens)")
    for column, justify in (
        ("step", "right"),
        ("path", "left"),
        ("lines", "left"),
        ("leanread", "right"),
        ("opencode-style", "right"),
        ("note", "left"),
    ):
        table.add_column(column, justify=justify, overflow="fold")  # type: ignore[arg-type]
    for row in replay.rows:
        table.add_row(str(row.step), row.path, row.window, f"{row.leanread:,}", f"{row.baseline:,}", row.note)
    lean, base = replay.leanread_total, replay.baseline_total
    table.add_row("", "[bold]total[/bold]", "", f"[bold]{lean:,}[/bold]", f"[bold]{base:,}[/bold]", "")
    console.print(table)
    for line in _legend(replay):
        console.print(line, markup=False)
    for line in _sample(replay):
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    if replay.edits:
        console.print(_edits_table(replay))
    ratio = lean / base if base else float("nan")
    console.print(
        f"reads replayed: {len(replay.rows)}; skipped (path absent or outside the repository): "
        f"{len(replay.skipped_reads)}; file changes: "
        + ", ".join(f"{k} {v}" for k, v in sorted(replay.changes.items()))
    )
    console.print(f"[bold]leanread / opencode-style = {lean:,} / {base:,} tokens = {ratio:.3f}[/bold]")


def run_demo(
    trace: Path | None = None,
    traces_dir: Path | None = None,
    cache: Path | None = None,
    *,
    outside_edits: bool = False,
    read_mode: str = "full",
) -> int:
    """Run the demo and print its report; returns the exit status (0 when leanread spent fewer
    tokens than the baseline, 1 otherwise, 2 when it could not run)."""
    console = Console() if sys.stdout.isatty() else Console(width=120)
    try:
        trace_file = trace or find_traces_dir(traces_dir) / DEFAULT_TRACE
        if not trace_file.is_file():
            raise LeanreadError(f"Trace {trace_file} not found; pass --trace FILE.")
        replay = replay_trace(trace_file, cache, outside_edits=outside_edits, read_mode=read_mode)
    except LeanreadError as exc:
        console.print(f"[red]{exc}[/red]")
        return 2
    print_report(replay, console)
    return 0 if replay.leanread_total < replay.baseline_total else 1
