"""Replay one trace through every strategy at once, on one scratch copy of its repository.

The ops run in order. ``read``, ``grep``, ``list`` and ``glob`` are turned into calls (``calls``)
about the scratch copy as it is at that moment and handed to every strategy; the tokens of each
answer are counted (o200k_base). The agent's changes are made once, on the shared copy: ``edit``
and ``write`` through the first strategy that ``applies_changes`` (leanread), directly when it
refuses or when no such strategy runs; a further such strategy (leanread-outline) makes the same
change on the file as it was, then the file is put back as the first left it. ``insert``,
``undo_edit`` and appending writes are made directly; shell commands that change files re-run in
the sandbox (``sandbox``). So every strategy sees the same bytes at every step.

A read is servable when its path is inside the repository, names a text file of the release,
and its window starts within the file; the others are listed per trace with the reason.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...tokens import count_tokens
from ..ops import FILE_CHANGES, Replayer, inside, read_window
from ..traces import Trace
from . import sandbox
from .calls import ChangeCall, FileSnapshot, ReadCall, focus_question, snapshot
from .lineids import LineIds
from .linerange import resolve_lines
from .searching import grep_call, list_call
from .source import Source, place
from .strategy import MAX_BYTES, Strategy, window

#: Op kinds the report splits tokens by.
KINDS = ("read", "grep", "list", "glob", "edit", "write")
#: Whole first reads of files at least this long go into the usage figures.
USAGE_MIN_LINES = 200


class Changes(Replayer):
    """``ops.Replayer`` that also learns of changes made elsewhere, so ``undo_edit`` can undo an
    edit that went through leanread."""

    def remember(self, target: Path, before: bytes | None) -> None:
        self._history.setdefault(target, []).append(before)


@dataclass
class FirstRead:
    """A whole-file first read, and which of its lines the agent used later."""

    path: str
    lines: int
    tokens: int
    ids: set[int]
    used: set[int] = field(default_factory=set)
    grepped: set[int] = field(default_factory=set)

    def summary(self) -> dict[str, Any]:
        both = self.used | self.grepped
        return {
            "path": self.path,
            "lines": self.lines,
            "tokens": self.tokens,
            "used_lines": len(self.used),
            "used_share": round(len(self.used) / self.lines, 4) if self.lines else 0.0,
            "used_or_grepped_lines": len(both),
            "used_or_grepped_share": round(len(both) / self.lines, 4) if self.lines else 0.0,
        }


@dataclass
class TraceResult:
    """Everything one trace's replay measured; ``as_json`` is what the JSON results hold."""

    name: str
    header: dict[str, Any]
    source: Source
    layout_prefix: str = ""
    tokens: dict[str, Counter[str]] = field(default_factory=dict)
    calls: Counter[str] = field(default_factory=Counter)
    reads: int = 0
    unservable: list[dict[str, Any]] = field(default_factory=list)
    changes: Counter[str] = field(default_factory=Counter)
    shell: Counter[str] = field(default_factory=Counter)
    shell_failures: list[str] = field(default_factory=list)
    divergences: list[str] = field(default_factory=list)
    notes: dict[str, Counter[str]] = field(default_factory=dict)
    first_reads: list[FirstRead] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    def total(self, strategy: str, kinds: tuple[str, ...] = KINDS) -> int:
        return sum(self.tokens[strategy][k] for k in kinds)

    def as_json(self) -> dict[str, Any]:
        return {
            "trace": self.name,
            "agent": self.header.get("agent"),
            "model": self.header.get("model"),
            "repo": self.header.get("repo"),
            "version": self.header.get("version"),
            "source": {
                "kind": self.source.kind,
                "archive": self.source.archive,
                "describe": self.source.describe(),
                "why_fallback": self.source.note,
                "layout_prefix": self.layout_prefix,
            },
            "servable_reads": self.reads,
            "unservable": self.unservable,
            "calls": dict(self.calls),
            "tokens": {s: dict(c) for s, c in self.tokens.items()},
            "changes": dict(self.changes),
            "shell": dict(self.shell),
            "shell_failures": self.shell_failures,
            "divergences": self.divergences,
            "notes": {s: dict(c) for s, c in self.notes.items() if c},
            "first_reads": [f.summary() for f in self.first_reads],
            "ops": self.rows,
            "seconds": round(self.seconds, 2),
        }


def _mentions_git(trace: Trace) -> bool:
    return any(
        op["op"] == "shell" and op.get("mutates") and re.search(r"\bgit\b", str(op.get("cmd", ""))) for op in trace.ops
    )


def _roots(trace: Trace) -> tuple[str, ...]:
    root = str(trace.header.get("orig_repo_root") or "")
    return (root,) if root else ()


class _Run:
    """The state of one trace's replay."""

    def __init__(self, trace: Trace, scratch: Path, strategies: list[Strategy], result: TraceResult) -> None:
        self.trace = trace
        self.scratch = scratch
        self.strategies = strategies
        self.result = result
        changers = [s for s in strategies if s.applies_changes]
        self.changer = changers[0] if changers else None
        #: Further strategies that make changes themselves: each makes the same change on the
        #: file as it was, then the file is put back as the first one left it (``_also``).
        self.also = changers[1:]
        self.replayer = Changes(scratch)
        self.ids = LineIds()
        self.first: dict[str, FirstRead] = {}
        self.read_before: set[str] = set()
        for s in strategies:
            result.tokens[s.name] = Counter({k: 0 for k in KINDS})

    def charge(self, kind: str, texts: dict[str, str], row: dict[str, Any]) -> None:
        counts = {name: count_tokens(text) for name, text in texts.items()}
        for name, n in counts.items():
            self.result.tokens[name][kind] += n
        self.result.calls[kind] += 1
        labels = {s.name: s.label for s in self.strategies if s.label}
        for s in self.strategies:
            s.label = ""
        self.result.rows.append({**row, "op": kind, "tokens": counts, **({"labels": labels} if labels else {})})

    def unservable(self, op: dict[str, Any], why: str) -> None:
        self.result.unservable.append({"step": op.get("step"), "op": op["op"], "path": op.get("path"), "why": why})

    # --- reads -----------------------------------------------------------------------------

    def read(self, op: dict[str, Any]) -> None:
        path = str(op.get("path", ""))
        target = inside(self.scratch, path)
        if target is None:
            return self.unservable(op, "outside the repository")
        if target.is_dir():
            return self.unservable(op, "a folder")
        file = snapshot(self.scratch, path)
        if file is None:
            return self.unservable(op, "not in the release" if not target.exists() else "not a text file")
        offset, limit = read_window(op, target)
        if (offset or 1) > max(file.total, 1):
            return self.unservable(op, f"window starts past the end (line {offset} of {file.total})")
        call = ReadCall(path, offset, limit, file, int(op.get("step", 0)), focus_question(op), str(op.get("cmd") or ""))
        self.result.reads += 1
        texts = {s.name: s.read(call) for s in self.strategies}
        self.charge("read", texts, {"step": call.step, "path": path, "offset": offset, "limit": limit})
        self._usage(call, texts)

    def _usage(self, call: ReadCall, texts: dict[str, str]) -> None:
        ids = self.ids.ids(call.path, call.file.lines)
        first, lines, _ = window(call, MAX_BYTES, "")
        shown = set(ids[first - 1 : first - 1 + len(lines)])
        known = self.first.get(call.path)
        if known is not None:
            known.used |= shown & known.ids
        elif call.whole and call.path not in self.read_before and call.file.total >= USAGE_MIN_LINES:
            tokens = count_tokens(texts["opencode"]) if "opencode" in texts else 0
            record = FirstRead(call.path, len(lines), tokens, shown)
            self.first[call.path] = record
            self.result.first_reads.append(record)
        self.read_before.add(call.path)

    # --- searches and listings -------------------------------------------------------------

    def grep(self, op: dict[str, Any]) -> None:
        call = grep_call(op, self.scratch)
        if call is None:
            return self.unservable(op, "searches nothing inside the repository")
        texts = {s.name: s.grep(call) for s in self.strategies}
        self.charge("grep", texts, {"step": call.step, "path": call.path, "matches": call.matches})
        for path in {h.path for h in call.hits} & set(self.first):
            file = snapshot(self.scratch, path)
            if file is not None:
                ids = self.ids.ids(path, file.lines)
                shown = {ids[h.line - 1] for h in call.hits if h.path == path and h.line <= len(ids)}
                self.first[path].grepped |= shown & self.first[path].ids

    def listing(self, op: dict[str, Any]) -> None:
        call = list_call(op, self.scratch)
        if call is None:
            return self.unservable(op, "not a folder inside the repository")
        texts = {s.name: s.listing(call) for s in self.strategies}
        self.charge(call.kind, texts, {"step": call.step, "path": call.path, "entries": len(call.entries)})

    # --- changes ---------------------------------------------------------------------------

    def change(self, op: dict[str, Any]) -> None:
        path = str(op.get("path", ""))
        target = inside(self.scratch, path)
        if target is not None:
            op = resolve_lines(op, target)
        kind = op["op"]
        if op.get("error") or target is None or (kind == "edit" and not isinstance(op.get("old"), str)):
            self.result.changes[self.replayer.apply(op)] += 1
            return
        before_bytes = target.read_bytes() if target.is_file() else None
        before = snapshot(self.scratch, path)
        texts: dict[str, str] = {}
        through = kind == "edit" or (kind == "write" and not op.get("append"))
        if self.changer is not None and through:
            done, text = self.changer.apply(op)
            texts[self.changer.name] = text
            if done:
                self.replayer.remember(target, before_bytes)
                outcome = f"{kind} through {self.changer.name}"
            else:
                outcome = f"{kind} refused by {self.changer.name}, then " + self.replayer.apply(op)
            for other in self.also:
                texts[other.name] = self._also(other, op, target, before_bytes)
        else:
            outcome = f"{kind} " + self.replayer.apply(op)
        self.result.changes[outcome] += 1
        after = snapshot(self.scratch, path)
        call = ChangeCall(kind, path, op, before, after, outcome, int(op.get("step", 0)))
        for s in self.strategies:
            texts.setdefault(s.name, s.changed(call))
        self.charge(
            "write" if kind == "write" else "edit", texts, {"step": call.step, "path": path, "outcome": outcome}
        )
        self._changed_lines(path, before, after)

    @staticmethod
    def _also(other: Strategy, op: dict[str, Any], target: Path, before: bytes | None) -> str:
        """``other`` makes the change too, on the file as it was before it; then the file is as
        the first changer left it again, bytes and modification time (the anchors key their stubs
        on it). Where the two differ, ``other`` meets an outside change at its next call."""
        after = target.read_bytes() if target.is_file() else None
        stat = target.stat() if after is not None else None
        if before is None:
            target.unlink(missing_ok=True)
        else:
            target.write_bytes(before)
        _done, text = other.apply(op)
        if after is None:
            target.unlink(missing_ok=True)
        else:
            target.write_bytes(after)
            assert stat is not None
            os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        return text

    def shell(self, op: dict[str, Any]) -> None:
        mutates = op.get("mutates")
        listed = [str(p) for p in mutates] if isinstance(mutates, list) else []
        befores = {p: snapshot(self.scratch, p) for p in listed if inside(self.scratch, p) is not None}
        run = sandbox.run_confined(str(op.get("cmd", "")), self.scratch, _roots(self.trace))
        if run.status is None:
            self.result.shell["not run"] += 1
            return
        self.result.shell["run"] += 1
        if not run.ok:
            also = op.get("rc") not in (None, 0)
            self.result.shell["failed, as in the original run" if also else "failed"] += 1
            where = " (failed in the original run too)" if also else ""
            self.result.shell_failures.append(f"step {op.get('step')}: exit {run.status}{where}: {run.error}")
        for path, before in befores.items():
            self._changed_lines(path, before, snapshot(self.scratch, path))

    def _changed_lines(self, path: str, before: FileSnapshot | None, after: FileSnapshot | None) -> None:
        """Lines of a whole first read that a change replaced count as used."""
        known = self.first.get(path)
        if before is None:
            return
        old = self.ids.ids(path, before.lines)
        new = set(self.ids.ids(path, after.lines)) if after is not None else set()
        if known is not None:
            known.used |= (set(old) - new) & known.ids

    def finish(self) -> None:
        for s in self.strategies:
            for kind, texts in s.finish().items():
                self.result.tokens[s.name][kind] += sum(count_tokens(text) for text in texts)
            self.result.notes[s.name] = s.notes
            self.result.divergences += [f"{s.name}: {d}" for d in s.divergences]


def _scratch_folder(tmp_dir: Path | None) -> Path:
    """A new private folder for one replay, ``leanread-replay-`` and nine random digits: a trace
    whose commands print absolute paths (an OpenHands agent's ``grep -n … /workspace/…``, run in
    the copy) then costs the same tokens in every run, as a digit always tokenizes alike where
    ``mkdtemp``'s random letters moved a result by a few tokens from run to run."""
    parent = Path(tmp_dir) if tmp_dir is not None else Path(tempfile.gettempdir())
    while True:
        folder = parent / f"leanread-replay-{secrets.randbelow(10**9):09d}"
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            continue
        return folder


def replay(trace: Trace, source: Source, classes: list[type[Strategy]], *, tmp_dir: Path | None = None) -> TraceResult:
    """Replay ``trace`` on a scratch copy of ``source`` through an instance of each class."""
    started = time.perf_counter()
    result = TraceResult(trace.name, trace.header, source)
    tmp = _scratch_folder(tmp_dir)
    try:
        scratch = tmp / "repo"
        paths = [str(op["path"]) for op in trace.ops if isinstance(op.get("path"), str)]
        result.layout_prefix = place(source, scratch, paths)
        if _mentions_git(trace) and not sandbox.git_snapshot(scratch):
            result.shell_failures.append("git init of the scratch copy failed; git commands will fail")
        run = _Run(trace, scratch, [cls(scratch) for cls in classes], result)
        for op in trace.ops:
            kind = op["op"]
            if kind == "read":
                run.read(op)
            elif kind == "grep":
                run.grep(op)
            elif kind in ("list", "glob"):
                run.listing(op)
            elif kind in FILE_CHANGES:
                run.change(op)
            elif kind == "shell" and op.get("mutates") and not op.get("input"):
                run.shell(op)
        run.finish()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    result.seconds = time.perf_counter() - started
    return result


def usage_summary(results: list[TraceResult]) -> dict[str, Any]:
    """How much of each whole file read first (``USAGE_MIN_LINES``+ lines) the agent used later:
    the median share of lines, and the share weighted by the first read's tokens."""
    firsts = [f for r in results for f in r.first_reads]
    if not firsts:
        return {"files": 0}
    weight = sum(f.tokens for f in firsts)

    def shares(used: Callable[[FirstRead], set[int]]) -> tuple[float, float]:
        each = [len(used(f)) / f.lines for f in firsts if f.lines]
        weighted = sum(f.tokens * len(used(f)) / f.lines for f in firsts if f.lines) / weight if weight else 0.0
        return round(statistics.median(each), 4), round(weighted, 4)

    median, weighted = shares(lambda f: f.used)
    median_grep, weighted_grep = shares(lambda f: f.used | f.grepped)
    return {
        "files": len(firsts),
        "min_lines": USAGE_MIN_LINES,
        "median_used_share": median,
        "token_weighted_used_share": weighted,
        "median_used_or_grepped_share": median_grep,
        "token_weighted_used_or_grepped_share": weighted_grep,
        "first_read_tokens_opencode": weight,
    }
