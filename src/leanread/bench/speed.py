"""``leanread bench speed``: how long leanread's calls take, each against what an agent harness
would run instead, measured in one run (medians, files in the page cache).

- small file: ``Session.read`` of a whole source file (``fresh=true``: the full text every time)
  against ``cat FILE`` in a subprocess, as a bash tool runs it.
- big-file window: 100 lines near the end of a generated log, through ``Session.read`` (line
  index built once, before timing) against ``sed -n 'A,Bp' FILE``.
- MCP round trip: the same small-file read through ``leanread serve`` over stdio (the MCP SDK's
  client) against the in-process call: what the protocol and the process boundary add.
- grep: ``Session.grep`` (100 matches at most, ids, ledger) against ``rg -n PATTERN`` in a
  subprocess over the same tree, its whole output read.
- outline: a whole read of the tree's longest Python file, which gives its outline, of a new
  version every call (a comment line changed before it, not timed: nothing is cached), and the
  same read again, a stub; both against ``cat FILE``.

The tree defaults to leanread's own source folder, so the benchmark needs no download.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

from ..files.ripgrep import find_rg
from ..ledger.store import MemoryLedger
from ..session import Session
from .window import format_seconds, generate_log

#: The search the grep measurement runs.
PATTERN = r"def \w+\("


def _median(func: Callable[[], object], runs: int, before: Callable[[], object] | None = None) -> float:
    """Median seconds of ``func`` over ``runs`` calls after a warm-up; ``before`` runs ahead of
    each call, untimed."""
    times = []
    for run in range(runs + 1):
        if before is not None:
            before()
        start = time.perf_counter()
        func()
        if run:  # the first is the warm-up
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def pick_small_file(root: Path, lines: int = 200) -> Path:
    """The ``.py`` file under ``root`` whose line count is closest to ``lines``.

    Raises:
        FileNotFoundError: no Python file there.
    """
    best: tuple[int, Path] | None = None
    for path in sorted(root.rglob("*.py")):
        count = path.read_bytes().count(b"\n")
        if best is None or abs(count - lines) < best[0]:
            best = (abs(count - lines), path)
    if best is None:
        raise FileNotFoundError(f"No Python file under {root}.")
    return best[1]


async def _mcp_median(root: Path, relative: str, runs: int) -> float:
    from mcp import Client, StdioServerParameters

    args = ["-m", "leanread", "serve", "--root", str(root), "--ledger", "memory"]
    server = StdioServerParameters(command=sys.executable, args=args)
    async with Client(server) as client:
        arguments = {"path": relative, "fresh": True}
        await client.call_tool("read", arguments)
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            await client.call_tool("read", arguments)
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench_speed(root: Path | None = None, runs: int = 20, big_mb: int = 256) -> dict[str, Any]:
    """Run every measurement; returns rows of ``(what, leanread s, baseline, baseline s)`` and the setup."""
    root = (root or Path(__file__).resolve().parents[1]).resolve()
    small = pick_small_file(root)
    relative = str(small.relative_to(root))
    session = Session([root], ledger=MemoryLedger())
    rows: list[dict[str, Any]] = []

    def row(what: str, lean: float, baseline: str, base: float) -> None:
        rows.append({"what": what, "leanread_s": lean, "baseline": baseline, "baseline_s": base, "ratio": lean / base})

    lean = _median(lambda: session.read(relative, fresh=True), runs)
    cat = _median(lambda: subprocess.run(["cat", str(small)], capture_output=True, check=True), runs)
    small_lines = small.read_bytes().count(b"\n")
    row(f"read a small file ({small_lines} lines), in process", lean, "`cat FILE`", cat)

    with tempfile.TemporaryDirectory(prefix="leanread-speed-") as tmp:
        log = Path(tmp) / "app.log"
        generate_log(log, big_mb)
        total = _count_lines(log)
        first = total - 199
        big = Session([tmp], ledger=MemoryLedger())
        big.read("app.log", offset=first, limit=100, fresh=True)  # builds the line index
        lean_big = _median(lambda: big.read("app.log", offset=first, limit=100, fresh=True), max(3, runs // 4))
        sed = _median(
            lambda: subprocess.run(["sed", "-n", f"{first},{first + 99}p", str(log)], capture_output=True, check=True),
            max(3, runs // 4),
        )
        row(f"read 100 lines near the end of a {big_mb} MiB log (index built)", lean_big, "`sed -n 'A,Bp' FILE`", sed)

    mcp = anyio.run(_mcp_median, root, relative, runs)
    row("the small-file read over MCP stdio (`leanread serve`)", mcp, "the same read in process", lean)

    rg = find_rg()
    search = getattr(session, "grep", None)
    if search is not None:
        lean_grep = _median(lambda: search(PATTERN), runs)
        raw = _median(lambda: subprocess.run([rg, "-n", PATTERN], cwd=root, capture_output=True, check=False), runs)
        row(f"grep `{PATTERN}` over the tree", lean_grep, "`rg -n PATTERN`", raw)

    longest = max(sorted(root.rglob("*.py")), key=lambda path: path.read_bytes().count(b"\n"))
    with tempfile.TemporaryDirectory(prefix="leanread-speed-") as tmp:
        copy, text = Path(tmp) / longest.name, longest.read_text("utf-8", "surrogateescape")
        versions = iter(range(1 << 30))

        def change() -> None:
            copy.write_text(f"{text}# version {next(versions)}\n", "utf-8", "surrogateescape")

        change()
        mapping = Session([tmp], ledger=MemoryLedger())
        lean_outline = _median(lambda: mapping.read(copy.name), runs, before=change)
        lean_stub = _median(lambda: mapping.read(copy.name), runs)
        cat_big = _median(lambda: subprocess.run(["cat", str(copy)], capture_output=True, check=True), runs)
    lines = text.count("\n")
    row(f"read a {lines}-line file whole (its outline), a new version each call", lean_outline, "`cat FILE`", cat_big)
    row("the same whole read again (the outline's stub)", lean_stub, "`cat FILE`", cat_big)
    return {
        "root": str(root),
        "small_file": relative,
        "runs": runs,
        "rows": rows,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
    }


def _count_lines(path: Path) -> int:
    count = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 24):
            count += chunk.count(b"\n")
    return count


def markdown_report(result: dict[str, Any], command: str) -> str:
    """A Markdown section for BENCHMARKS.md from a ``bench_speed`` result."""
    table = "\n".join(
        f"| {r['what']} | {format_seconds(r['leanread_s'], 2)} | {r['baseline']} "
        f"| {format_seconds(r['baseline_s'], 2)} "
        f"| {r['ratio']:.3g} |"
        for r in result["rows"]
    )
    return f"""## Speed: leanread's calls against what a harness runs instead

Command: `{command}`

- Tree: `{result["root"]}`; small file: `{result["small_file"]}`; median of {result["runs"]} runs after a warm-up
  (the big-file window: a quarter as many); files in the page cache.
- Python {result["python"]}; {result["platform"]}; {result["cpus"]} CPUs.

| call | leanread | instead | its time | ratio |
|---|---:|---|---:|---:|
{table}
"""
