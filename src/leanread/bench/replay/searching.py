"""Turn a trace's ``grep``/``list``/``glob`` ops into calls with their results, found in the
scratch copy: GNU grep (the agents' own tool) gives the hits every anchor strategy shows, a walk
of the folder gives the listings. ``ripgrep_pattern`` translates grep's basic regular
expressions for tools built on ripgrep (leanread's ``grep``)."""

from __future__ import annotations

import fnmatch
import os
import re
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

from ...shell.patterns import bre_to_ere as bre_to_ere
from ...shell.patterns import grep_regex
from .calls import GrepCall, Hit, ListCall, focus_question

#: Seconds one GNU grep run may take.
GREP_TIMEOUT = 60
_NUMBERED = re.compile(r"^-([ABC])\s*(\d+)$")


def _flag_set(flags: list[str]) -> tuple[set[str], dict[str, int]]:
    """Single-letter flags (``-rn`` → r, n) and the context counts (``-A 20``, ``-C5``)."""
    letters: set[str] = set()
    counts: dict[str, int] = {}
    for flag in flags:
        numbered = _NUMBERED.match(flag.strip())
        if numbered:
            counts[numbered.group(1)] = int(numbered.group(2))
        elif flag.startswith("--"):
            letters.add(flag)
        elif flag.startswith("-"):
            letters.update(flag[1:])
    return letters, counts


def grep_call(op: dict[str, Any], root: Path) -> GrepCall | None:
    """The search a ``grep`` op asks for, run with GNU grep in ``root``; None when it searches
    nothing inside the repository (absolute paths, paths that do not exist)."""
    raw = op.get("pattern")
    patterns = tuple(str(p) for p in raw) if isinstance(raw, list) else (str(raw),)
    wanted = [str(p) for p in op.get("paths") or [op.get("path") or "."]]
    paths = tuple(p for p in wanted if not os.path.isabs(p) and (root / p).exists() and _inside(root, p))
    if not paths or not any(patterns):
        return None
    letters, counts = _flag_set([str(f) for f in op.get("flags") or []])
    context = counts.get("C", 0)
    call = GrepCall(
        patterns=patterns,
        paths=paths,
        before=counts.get("B", context),
        after=counts.get("A", context),
        ignore_case="i" in letters,
        files_only="l" in letters,
        count="c" in letters,
        extended="E" in letters or "--extended-regexp" in letters,
        fixed="F" in letters or "--fixed-strings" in letters,
        name_filter=str(op["files"]) if op.get("files") else None,
        step=int(op.get("step", 0)),
        focus=focus_question(op),
        cmd=str(op.get("cmd") or ""),
    )
    hits, failed = run_grep(call, root)
    files = tuple(dict.fromkeys(h.path for h in hits if h.match))
    return replace(call, hits=hits, files=files, failed=failed)


def _inside(root: Path, path: str) -> bool:
    return (root / path).resolve().is_relative_to(root.resolve())


def run_grep(call: GrepCall, root: Path) -> tuple[tuple[Hit, ...], str]:
    """GNU grep's matches and context lines for ``call`` (``-H -n --null``, binary files and
    ``.git`` skipped), sorted by path then line; and an error line when grep failed (status 2)."""
    cmd = ["grep", "-H", "-n", "--null", "-I", "--exclude-dir=.git", "--color=never"]
    if any((root / p).is_dir() for p in call.paths):
        cmd.append("-r")
    cmd += ["-i"] if call.ignore_case else []
    cmd += ["-E"] if call.extended else ["-F"] if call.fixed else []
    cmd += [f"-B{call.before}"] if call.before else []
    cmd += [f"-A{call.after}"] if call.after else []
    cmd += [f"--include={call.name_filter}"] if call.name_filter else []
    for pattern in call.patterns:
        cmd += ["-e", pattern]
    cmd += ["--", *call.paths]
    try:
        done = subprocess.run(cmd, cwd=root, capture_output=True, timeout=GREP_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        return (), f"grep took longer than {GREP_TIMEOUT} s"
    failed = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] if done.returncode == 2 else []
    hits: dict[tuple[str, int], Hit] = {}
    for row in done.stdout.split(b"\n"):
        if b"\0" not in row:
            continue
        name, rest = row.split(b"\0", 1)
        found = re.match(rb"^(\d+)([:-])", rest)
        if not found:
            continue
        path = os.path.normpath(name.decode("utf-8", "surrogateescape"))
        number = int(found.group(1))
        text = rest[found.end() :].removesuffix(b"\r").decode("utf-8", "replace")
        is_match = found.group(2) == b":"
        key = (path, number)
        if key not in hits or is_match:
            hits[key] = Hit(path, number, text, is_match)
    ordered = tuple(hits[k] for k in sorted(hits))
    return ordered, failed[0] if failed else ""


def ripgrep_pattern(call: GrepCall) -> str:
    """One ripgrep (Rust) regular expression equivalent to the call's grep pattern(s)."""
    return grep_regex(call.patterns, extended=call.extended, fixed=call.fixed)


def list_call(op: dict[str, Any], root: Path) -> ListCall | None:
    """The entries a ``list`` or ``glob`` op shows, walked in ``root``; None when its folder is not
    inside the repository."""
    path = str(op.get("path") or ".")
    if os.path.isabs(path) or not _inside(root, path) or not (root / path).is_dir():
        return None
    cmd = str(op.get("cmd") or "")
    if op["op"] == "glob":
        pattern = str(op["pattern"]) if op.get("pattern") else None
        entries = tuple(e for e in _walk(root / path, None, hidden=True) if _glob_match(e, pattern))
        return ListCall("glob", path, None, pattern, entries, int(op.get("step", 0)))
    if op.get("depth"):
        depth: int | None = int(op["depth"])
    elif re.search(r"(^|\s)-\w*R|\btree\b|\bfind\b", cmd):
        depth = None
    else:
        depth = 1
    hidden = bool(re.search(r"(^|\s)-\w*a", cmd))
    return ListCall("list", path, depth, None, tuple(_walk(root / path, depth, hidden=hidden)), int(op.get("step", 0)))


def _glob_match(entry: str, pattern: str | None) -> bool:
    if entry.endswith("/"):
        return False
    return pattern is None or fnmatch.fnmatchcase(entry.rsplit("/", 1)[-1], pattern)


def _walk(folder: Path, depth: int | None, *, hidden: bool) -> list[str]:
    """Entries below ``folder`` to ``depth`` levels (all for None), sorted, ``.git`` left out;
    folders end with ``/``; paths are relative to ``folder``."""
    out: list[str] = []

    def visit(current: Path, prefix: str, level: int) -> None:
        try:
            names = sorted(os.listdir(current))
        except OSError:
            return
        for name in names:
            if name == ".git" or (name.startswith(".") and not hidden):
                continue
            full = current / name
            is_dir = full.is_dir() and not full.is_symlink()
            out.append(prefix + name + ("/" if is_dir else ""))
            if is_dir and (depth is None or level < depth):
                visit(full, prefix + name + "/", level + 1)

    visit(folder, "", 1)
    return out
