"""Big-file window benchmark: leanread's line index against ``sed -n 'A,Bp'``.

A window of lines near the end of a big log (by default 100 lines ending 100 lines before the
end) is read (a) by ``sed -n 'A,Bp' FILE`` in a subprocess, which must scan from the start, and
(b) through ``LineIndexCache``: one index build (timed separately), then per call the ``stat`` a
read does, a cache hit, ``read_lines`` and UTF-8 decoding. Both run with the file in the page
cache (it was just written or is read first). sed's output is compared with leanread's lines.

Run: ``python -m leanread.bench.window --size-mb 1024 --runs 5`` (generates the log in a temp
folder and deletes it after), or ``--path FILE`` for an existing file.
"""

from __future__ import annotations

import os
import platform
import random
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from ..config.settings import Limits
from ..files.indexcache import LineIndexCache
from ..files.lineindex import LineIndex
from ..result import ToolResult
from ..session import Session

_LEVELS = ("INFO",) * 14 + ("DEBUG",) * 3 + ("WARN", "WARN", "ERROR")
_MODULES = (
    "http.server",
    "db.pool",
    "auth.session",
    "cache.redis",
    "worker.queue",
    "billing.invoice",
    "search.indexer",
    "grpc.gateway",
)
_PATHS = ("/api/v1/users", "/api/v1/orders", "/api/v2/search", "/healthz", "/static/app.js", "/login")
_AGENTS = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36",
    "curl/8.5.0",
    "python-requests/2.32.3",
    "Go-http-client/2.0",
)
#: Stands for ``YYYY-MM-DDTHH`` in a template block; replaced per hour of log.
_HOUR = b"@@@@@@@@@@@@@"


def _message(rng: random.Random, level: str) -> str:
    """One log message body; an ERROR sometimes carries a multi-line traceback."""
    kind = rng.randrange(6)
    if level == "ERROR" and rng.random() < 0.5:
        frames = "".join(
            f'\n  File "/srv/app/{rng.choice(_MODULES).replace(".", "/")}.py", line {rng.randrange(1, 900)}, '
            f"in handle_{rng.randrange(40)}"
            for _ in range(rng.randrange(2, 6))
        )
        return f"unhandled exception in request {rng.getrandbits(64):016x}\nTraceback (most recent call last):{frames}\nValueError: invalid literal for int() with base 10: '{rng.getrandbits(20):x}'"  # noqa: E501
    if kind == 0:
        return (
            f"{rng.choice(('GET', 'GET', 'POST', 'PUT'))} {rng.choice(_PATHS)}/{rng.randrange(10**6)} "
            f"{rng.choice((200, 200, 200, 201, 304, 404, 500))} {rng.random() * 250:.1f}ms "
            f'ua="{rng.choice(_AGENTS)}"'
        )
    if kind == 1:
        return (
            f"query took {rng.random() * 80:.2f}ms rows={rng.randrange(500)} "
            f'sql="SELECT id, name, email FROM users WHERE org_id = {rng.randrange(10**5)} LIMIT 50"'
        )
    if kind == 2:
        return f"cache {rng.choice(('hit', 'miss'))} key=user:{rng.randrange(10**6)}:profile ttl=300"
    if kind == 3:
        return (
            f"job {rng.getrandbits(128):032x} finished in {rng.random() * 9:.3f}s "
            f"retries={rng.randrange(3)} queue=default"
        )
    if kind == 4:
        return (
            f"connection reset by peer host=10.{rng.randrange(256)}.{rng.randrange(256)}."
            f"{rng.randrange(256)} port={rng.randrange(1024, 65536)}"
        )
    return f"heartbeat ok uptime={rng.randrange(10**7)}s goroutines={rng.randrange(20, 400)} \u2713"


def _hour_block(rng: random.Random, lines: int) -> bytes:
    """About ``lines`` log records spread over one hour, sorted, with ``_HOUR`` as the hour."""
    stamps = sorted(rng.randrange(3_600_000) for _ in range(lines))
    out = []
    for ms in stamps:
        level = rng.choice(_LEVELS)
        minute, rest = divmod(ms, 60_000)
        out.append(
            f"{_HOUR.decode()}:{minute:02d}:{rest // 1000:02d}.{rest % 1000:03d}Z {level:<5} "
            f"[{rng.choice(_MODULES)}] pid={rng.randrange(1000, 1100)} {_message(rng, level)}\n"
        )
    return "".join(out).encode("utf-8")


def generate_log(path: Path, size_mb: int, seed: int = 1) -> int:
    """Write a realistic application log of at most ``size_mb`` MiB to ``path``; return its bytes.

    Four template blocks (one hour of records each, about 4 MiB) are generated once and written
    again and again with consecutive hours, so timestamps rise through the file; the last block
    is cut at a line end.
    """
    rng = random.Random(seed)
    templates = [_hour_block(rng, 30_000) for _ in range(4)]
    target = size_mb * 1024 * 1024
    written = 0
    hour = 0
    with open(path, "wb", buffering=0) as handle:
        while written < target:
            day, hh = divmod(hour, 24)
            month, dd = divmod(day, 28)
            stamp = f"2024-{month % 12 + 1:02d}-{dd + 1:02d}T{hh:02d}".encode()
            block = templates[hour % len(templates)].replace(_HOUR, stamp)
            room = target - written
            if len(block) > room:
                block = block[: block.rfind(b"\n", 0, room) + 1]
                if not block:
                    break
            handle.write(block)
            written += len(block)
            hour += 1
    return written


def _timed(func: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    value = func()
    return time.perf_counter() - start, value


def bench_window(
    path: Path | None, size_mb: int, runs: int, *, window: int = 100, tmp_dir: Path | None = None
) -> dict[str, Any]:
    """Time one window read near the end of a big file: ``sed`` against leanread's line index.

    Args:
        path: the file to read, or None to generate a log of ``size_mb`` MiB in a temporary folder
            (deleted afterwards).
        size_mb: size of the generated log in MiB (ignored when ``path`` is given).
        runs: timed repetitions of each measurement; medians are reported.
        window: lines in the window; it spans lines ``total - 2*window + 1 .. total - window``.
        tmp_dir: where to create the temporary folder (default: the system's).

    Returns:
        A dict of figures (seconds, bytes, KiB as named): ``sed_median_s``,
        ``leanread_warm_median_s``, ``ratio_warm`` (leanread / sed), ``index_build_s`` (median of
        ``runs`` fresh builds), ``first_call_s`` and ``ratio_first_call`` (build + one read),
        memory figures (``index_bytes``, tracemalloc peaks of a build and of a warm read,
        ``process_maxrss_kib``: the whole process's peak, interpreter and log generator included),
        ``window_matches_sed``, and the setup (file size, lines, window, versions).

    Raises:
        RuntimeError: ``sed`` is not installed, or the file has fewer lines than the window.
    """
    if runs < 1:
        raise ValueError("runs must be 1 or more.")
    sed = shutil.which("sed")
    if sed is None:
        raise RuntimeError("sed is not on PATH; the benchmark compares against it.")
    with tempfile.TemporaryDirectory(prefix="leanread-bench-", dir=tmp_dir) as scratch:
        generated = path is None
        target = Path(scratch) / "app.log" if path is None else path
        generate_s = 0.0
        if path is None:
            generate_s, _ = _timed(lambda: generate_log(target, size_mb))
        result = _measure(target, runs, window, sed)
        result["generated"] = generated
        result["generate_s"] = round(generate_s, 3)
        result["file"] = "generated log" if generated else str(path)
    return result


def _measure(path: Path, runs: int, window: int, sed: str) -> dict[str, Any]:
    real = os.path.realpath(path)
    st = os.stat(real)

    def build() -> tuple[LineIndexCache, LineIndex]:
        fresh = LineIndexCache()
        return fresh, fresh.get(real, st.st_size, st.st_mtime_ns)

    timed_builds = [_timed(build) for _ in range(runs)]
    builds = [seconds for seconds, _ in timed_builds]
    cache, index = timed_builds[-1][1]
    total = index.total_lines
    if total < 2 * window:
        raise RuntimeError(f"{path} has {total} lines; the benchmark needs at least {2 * window}.")
    first, last = total - 2 * window + 1, total - window

    def warm_read() -> list[str]:
        now = os.stat(real)  # what read does before asking the cache
        hit = cache.get(real, now.st_size, now.st_mtime_ns)
        return [line.decode("utf-8") for line in hit.read_lines(real, first, window)]

    first_read_s, lines = _timed(warm_read)
    warm = [_timed(warm_read)[0] for _ in range(runs)]

    # The whole read tool as the model sees it: resolve, stat, cache hit, decode, render, tokens, ledger.
    session = Session([os.path.dirname(real)], limits=Limits(index_bytes=1))
    name = os.path.basename(real)

    def tool_read() -> ToolResult:
        return session.read(name, offset=first, limit=window, fresh=True)

    tool_read()  # builds the process-wide index once
    tool = [_timed(tool_read)[0] for _ in range(runs)]

    command = [sed, "-n", f"{first},{last}p", real]
    sed_times: list[float] = []
    sed_out = b""
    for _ in range(runs):
        seconds, done = _timed(lambda: subprocess.run(command, capture_output=True, check=True))
        sed_times.append(seconds)
        sed_out = done.stdout

    tracemalloc.start()
    LineIndexCache().get(real, st.st_size, st.st_mtime_ns)
    build_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.reset_peak()
    warm_read()
    read_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()

    sed_median = statistics.median(sed_times)
    warm_median = statistics.median(warm)
    build_median = statistics.median(builds)
    first_call = builds[0] + first_read_s
    version = subprocess.run([sed, "--version"], capture_output=True, text=True, check=False).stdout
    return {
        "size_bytes": st.st_size,
        "total_lines": total,
        "window": [first, last],
        "runs": runs,
        "sed_median_s": sed_median,
        "sed_times_s": sed_times,
        "leanread_warm_median_s": warm_median,
        "leanread_warm_times_s": warm,
        "ratio_warm": warm_median / sed_median,
        "tool_warm_median_s": statistics.median(tool),
        "ratio_tool_warm": statistics.median(tool) / sed_median,
        "index_build_s": build_median,
        "index_build_times_s": builds,
        "first_call_s": first_call,
        "ratio_first_call": first_call / sed_median,
        "index_checkpoints": index.checkpoints,
        "index_bytes": index.checkpoints * 16,
        "build_peak_tracemalloc_bytes": build_peak,
        "read_peak_tracemalloc_bytes": read_peak,
        "process_maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "window_matches_sed": sed_out == "".join(line + "\n" for line in lines).encode("utf-8"),
        "sed_version": version.splitlines()[0] if version else "unknown",
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
    }


def format_seconds(value: float, ms_digits: int = 1) -> str:
    """``value`` seconds as ``1.23 s``, ``4.5 ms`` (``ms_digits`` decimals) or ``67 µs``."""
    if value >= 1:
        return f"{value:.2f} s"
    if value >= 1e-3:
        return f"{value * 1e3:.{ms_digits}f} ms"
    return f"{value * 1e6:.0f} µs"


def markdown_report(result: dict[str, Any], command: str) -> str:
    """A Markdown section for BENCHMARKS.md from a ``bench_window`` result."""
    first, last = result["window"]
    size_mib = result["size_bytes"] / (1024 * 1024)
    source = "a generated application log" if result.get("generated") else f"`{result['file']}`"
    rows = [
        ("`sed -n 'A,Bp' FILE` (subprocess)", result["sed_median_s"], 1.0),
        (
            "leanread, warm: `stat` + cache hit + `read_lines` + decode",
            result["leanread_warm_median_s"],
            result["ratio_warm"],
        ),
        (
            "leanread `read` tool, warm: the whole call (resolve, decode, render, tokens, ledger)",
            result["tool_warm_median_s"],
            result["ratio_tool_warm"],
        ),
        (
            "leanread, first call: index build + read",
            result["first_call_s"],
            result["ratio_first_call"],
        ),
    ]
    table = "\n".join(f"| {name} | {format_seconds(sec)} | {ratio:.4g} |" for name, sec, ratio in rows)
    return f"""## Big-file window: line index against `sed`

Command: `{command}`

- File: {source}, {size_mib:,.0f} MiB, {result["total_lines"]:,} lines; window: lines {first:,}-{last:,}
  ({last - first + 1} lines near the end); median of {result["runs"]} runs each; file in the page cache.
- {result["sed_version"]}; Python {result["python"]}; {result["platform"]}; {result["cpus"]} CPUs.
- sed's output {"equals" if result["window_matches_sed"] else "DIFFERS FROM"} leanread's lines.

| read of the window | median time | ratio to sed |
|---|---:|---:|
{table}

- One-off index build (one streaming pass): {format_seconds(result["index_build_s"])}, median of
  {result["runs"]} fresh builds; the index holds {result["index_checkpoints"]:,} checkpoints
  ({result["index_bytes"] / 1024:,.0f} KiB).
- Peak Python allocations (tracemalloc): build {result["build_peak_tracemalloc_bytes"] / 1024:,.0f} KiB,
  warm window read {result["read_peak_tracemalloc_bytes"] / 1024:,.0f} KiB; whole process max RSS
  (interpreter and log generator included): {result["process_maxrss_kib"] / 1024:,.0f} MiB.
"""
