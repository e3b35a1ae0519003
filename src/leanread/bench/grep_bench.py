"""grep benchmark: leanread's ``grep`` end to end against raw ``rg -n`` on a real source tree.

For each search of ``SEARCHES`` on the django 4.2 sdist (downloaded from PyPI once, cached), the
same ripgrep binary runs (a) as an agent harness runs it, ``rg -n PATTERN`` in the tree's root,
its whole output read from a pipe, and (b) inside ``Session.grep`` through a SQLite ledger: the
search, sorting, the page of at most 100 matches read from the files, the match ids and the
grants written to the ledger, the rendering and the token count. Runs alternate between the two;
medians are reported, after one warm-up each (files in the page cache).

Tokens (o200k_base) compare leanread's result with ripgrep's ``path:line:text`` lines for the
same hits (the matches leanread shows); ripgrep's whole output is counted as well when the
search has few enough hits. Every search checks that leanread's hits are ripgrep's first hits
in path and line order.

Run: ``leanread bench grep --runs 5``.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..files.rgsearch import search_json
from ..files.ripgrep import RgOptions, find_rg
from ..ledger.sqlite_store import SQLiteLedger
from ..session import Session
from ..tokens import count_tokens
from .sources import release_source


@dataclass(frozen=True)
class Search:
    """One search: what an agent would look for, and the grep arguments."""

    label: str
    pattern: str
    glob: str | None = None
    file_type: str | None = None
    context: int = 0


#: Searches an agent makes in a Python web framework: symbols, call sites, a class pattern, a
#: narrowed search, one with context, and two broad ones that hit the cap.
SEARCHES: tuple[Search, ...] = (
    Search("a method definition", r"def get_queryset\("),
    Search("a call site", r"select_related\("),
    Search("a class pattern", r"class \w+Form\b"),
    Search("an exception raised", r"raise ImproperlyConfigured"),
    Search("narrowed by type", r"import re$", file_type="py"),
    Search("with context 2", r"def get_queryset\(", context=2),
    Search("broad, capped", r"def __init__"),
    Search("very broad, capped", r"self\."),
)

#: ripgrep outputs larger than this are not tokenized whole (only the same-hits comparison is).
_WHOLE_TOKENS_BYTES = 2 * 1024 * 1024


def _rg_lines(output: bytes) -> dict[tuple[str, int], str]:
    """``rg -n`` output as ``(path, line) → the output line``."""
    found: dict[tuple[str, int], str] = {}
    for raw in output.decode("utf-8", "replace").splitlines():
        path, sep, rest = raw.partition(":")
        number, sep2, _ = rest.partition(":")
        if sep and sep2 and number.isdigit():
            found[(path, int(number))] = raw
    return found


def _time_rg(rg: str, search: Search, root: Path) -> tuple[float, bytes]:
    args = [rg, "-n"]
    if search.file_type:
        args += ["--type", search.file_type]
    if search.glob:
        args += ["--glob", search.glob]
    if search.context:
        args += ["--context", str(search.context)]
    args += ["--regexp", search.pattern]
    start = time.perf_counter()
    done = subprocess.run(args, cwd=root, stdin=subprocess.DEVNULL, capture_output=True, check=False)
    return time.perf_counter() - start, done.stdout


def _time_search(root: Path, search: Search) -> float:
    """leanread's own ripgrep run alone (``search_json``, as ``grep`` starts it)."""
    options = RgOptions(file_type=search.file_type, glob=search.glob)
    start = time.perf_counter()
    search_json(search.pattern, [str(root)], options, cwd=str(root))
    return time.perf_counter() - start


def _time_leanread(root: Path, ledger: SQLiteLedger, search: Search) -> tuple[float, Any]:
    session = Session([root], id=uuid.uuid4().hex, ledger=ledger)
    start = time.perf_counter()
    result = session.grep(search.pattern, glob=search.glob, type=search.file_type, context=search.context)
    return time.perf_counter() - start, result


def bench_grep(source: Path | None = None, runs: int = 5, cache: Path | None = None) -> dict[str, Any]:
    """Time and count tokens for every search of ``SEARCHES`` (see the module docstring).

    Raises:
        LeanreadError: the sdist cannot be downloaded, or ripgrep is missing.
    """
    root = Path(source) if source is not None else release_source("django", "4.2", cache)
    rg = find_rg()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as folder, SQLiteLedger(Path(folder) / "ledger.sqlite3") as ledger:
        for search in SEARCHES:
            _time_rg(rg, search, root)
            _time_leanread(root, ledger, search)
            rg_times: list[float] = []
            lean_times: list[float] = []
            search_times: list[float] = []
            output = b""
            result: Any = None
            for _ in range(runs):
                seconds, output = _time_rg(rg, search, root)
                rg_times.append(seconds)
                seconds, result = _time_leanread(root, ledger, search)
                lean_times.append(seconds)
                search_times.append(_time_search(root, search))
            rows.append(
                _row(search, rg_times, lean_times, output, result) | {"search_s": statistics.median(search_times)}
            )
    version = subprocess.run([rg, "--version"], capture_output=True, text=True, check=False).stdout.splitlines()[0]
    return {
        "source": root.name,
        "files": sum(len(files) for _, _, files in os.walk(root)),
        "runs": runs,
        "rows": rows,
        "rg_version": version,
        "python": platform.python_version(),
        "platform": platform.platform(terse=True),
        "cpus": os.cpu_count(),
        "time_ratio_total": sum(r["leanread_s"] for r in rows) / sum(r["rg_s"] for r in rows),
        "search_ratio_total": sum(r["search_s"] for r in rows) / sum(r["rg_s"] for r in rows),
        "token_ratio_total": sum(r["leanread_tokens"] for r in rows) / sum(r["rg_same_tokens"] for r in rows),
    }


def _row(search: Search, rg_times: list[float], lean_times: list[float], output: bytes, result: Any) -> dict[str, Any]:
    meta = result.metadata
    hits = [(m["path"], m["line"]) for m in meta["matches"]]
    by_hit = _rg_lines(output)
    same = [by_hit[hit] for hit in hits if hit in by_hit]
    match_lines = sorted(hit for hit in by_hit if not search.context or _is_match_line(by_hit[hit], hit))
    rg_s = statistics.median(rg_times)
    lean_s = statistics.median(lean_times)
    if search.context:  # ripgrep's groups of match and context lines: whole, when leanread shows every match
        same_tokens = count_tokens(output.decode("utf-8", "replace")) if len(hits) == meta["total_matches"] else 0
    else:
        same_tokens = count_tokens("\n".join(same))
    return {
        "label": search.label,
        "pattern": search.pattern,
        "args": _args(search),
        "matches": meta["total_matches"],
        "files": meta["total_files"],
        "shown": len(hits),
        "rg_matches": len(match_lines),
        "hits_agree": len(same) == len(hits) and (search.context > 0 or match_lines[: len(hits)] == hits),
        "rg_s": rg_s,
        "leanread_s": lean_s,
        "time_ratio": lean_s / rg_s,
        "rg_same_tokens": same_tokens,
        "leanread_tokens": meta["tokens"],
        "token_ratio": meta["tokens"] / same_tokens if same_tokens else float("nan"),
        "rg_output_bytes": len(output),
        "rg_all_tokens": count_tokens(output.decode("utf-8", "replace"))
        if len(output) <= _WHOLE_TOKENS_BYTES
        else None,
    }


def _is_match_line(raw: str, hit: tuple[str, int]) -> bool:
    """With ``--context``, ripgrep marks context lines ``path-12-text``; matches keep the colon."""
    return raw.startswith(f"{hit[0]}:{hit[1]}:")


def _args(search: Search) -> str:
    parts = [f"`{search.pattern}`"]
    if search.file_type:
        parts.append(f"type={search.file_type}")
    if search.glob:
        parts.append(f"glob={search.glob}")
    if search.context:
        parts.append(f"context={search.context}")
    return ", ".join(parts)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def markdown_report(result: dict[str, Any], command: str) -> str:
    """A Markdown section for BENCHMARKS.md from a ``bench_grep`` result."""
    lines = []
    for r in result["rows"]:
        whole = (
            f"{r['rg_all_tokens']:,}" if r["rg_all_tokens"] is not None else f"({r['rg_output_bytes'] / 1e6:.1f} MB)"
        )
        lines.append(
            f"| {r['label']}: {r['args']} | {r['matches']:,} in {r['files']:,} | {r['shown']} | "
            f"{_ms(r['rg_s'])} | {_ms(r['search_s'])} | {_ms(r['leanread_s'])} | {r['time_ratio']:.2f}x | "
            f"{r['rg_same_tokens']:,} | {r['leanread_tokens']:,} | {r['token_ratio']:.2f}x | {whole} |"
        )
    agree = all(r["hits_agree"] for r in result["rows"])
    header = (
        "| search | matches in files | shown | rg -n | leanread's rg run | leanread grep | time ratio "
        "| rg tokens, same hits "
        "| leanread tokens | token ratio | rg tokens, whole output |"
    )
    table = "\n".join(lines)
    return f"""## grep: leanread end to end against raw `rg -n`

Command: `{command}`

- Tree: the {result["source"]} sdist from PyPI ({result["files"]:,} files); {result["rg_version"]} (the
  `ripgrep` wheel) for both; Python {result["python"]}; {result["platform"]}; {result["cpus"]} CPUs.
- `rg -n PATTERN` in the tree's root, output read from a pipe, against `Session.grep` with a SQLite
  ledger (search, sort, the page of up to 100 matches read from the files, match ids and edit
  grants written, rendering, token count); median of {result["runs"]} alternating runs each.
- "leanread's rg run" is the ripgrep process `grep` starts (`--json`, hidden files, the deny list as
  an ignore file), timed alone; the rest of `grep`'s time is reading the shown files as `read`
  decodes them and recording their lines as seen.
- Tokens (o200k_base): leanread's whole result against ripgrep's `path:line:text` lines for the
  same hits (the matches leanread shows; with context, ripgrep's whole output, which then shows the
  same groups); the last column is ripgrep's whole output, which an agent would get uncapped.
- leanread's hits {"are" if agree else "are NOT always"} ripgrep's first hits in path and line order.

{header}
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
{table}

- Sum over the searches: time {result["time_ratio_total"]:.2f}x rg's (leanread's ripgrep run alone:
  {result["search_ratio_total"]:.2f}x); tokens {result["token_ratio_total"]:.2f}x rg's for the same hits.
"""
