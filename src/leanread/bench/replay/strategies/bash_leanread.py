"""The bash agent's own commands through ``leanread sh`` (``leanread.shell``), in one session.

Each read and search of a bash agent's trace carries the pipeline it ran (``cmd``); the command
goes to ``leanread.shell.try_answer`` as the ``bash`` strategy's command, in the same order. A
command it recognises is answered through the session's ledger and charged what it prints; one
it passes through is charged what the ``bash`` strategy charges (it runs as it is), after a check
that ``run_command`` gives exactly what ``bash -c`` gives for it in the scratch copy (a mismatch
fails the run). The agent's writes and shell edits are made by the engine, outside leanread, as
the agent's shell made them: the ledger meets them as outside changes.

``bash-leanread`` uses read mode ``auto`` (a whole ``cat`` of a big file gives its outline) and
pays for what an outline left out as ``leanread-outline`` does (follow-up reads of the
definitions around later-used lines); ``bash-leanread-lossless`` uses read mode ``full``.

Truthfulness: every read's printed text, its line numbers taken off, is rebuilt into the
window the model holds (``reconstruct``) and compared with the file. Notes: ``shell: answered``
per command, ``shell: passed: WHY`` per reason, ``shell: passed output differs`` (must be 0).
"""

from __future__ import annotations

import itertools
import os
import re
import subprocess
from pathlib import Path
from typing import Any, ClassVar

from ....result import ToolResult
from ....shell import Passed, Recognised, recognise, run_command
from ....shell.answer import answer
from ....shell.asks import GrepAsk
from ....view.reconstruct import Divergence, View, apply_grep, apply_outline, apply_read
from ..calls import ChangeCall, GrepCall, ListCall, ReadCall
from ..strategy import ripgrep_output
from .bash_agent import BASH_READS, Bash
from .leanread_outline import LeanreadOutline

_NUMBER = re.compile(r"^\d+\t")


class BashLeanread(LeanreadOutline):
    """``leanread sh`` in front of a bash agent's own commands (see the module docstring)."""

    name = "bash-leanread"
    title = "the bash agent's commands through `leanread sh` (read mode auto: outlines for whole cats of big files)"
    order = 96
    applies_changes = False
    needs_note = BASH_READS
    read_mode: ClassVar[str] = "auto"
    # How long a passed-through command may run, each way, for the check that ``leanread sh``
    # prints what ``bash -c`` does (seconds).
    check_seconds: ClassVar[float] = 60.0

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self._bash = Bash(root)
        self._last: tuple[int, str] = (-1, "")

    def changed(self, call: ChangeCall) -> str:
        return ""  # the agent's shell printed nothing for its writes

    def listing(self, call: ListCall) -> str:
        return self._bash.listing(call)  # ls, tree and find run as they are

    # --- reads ------------------------------------------------------------------------------

    def _read(self, call: ReadCall) -> str:
        if call.cmd:
            self.notes[BASH_READS] += 1
        if (call.step, call.cmd) == self._last:  # one command gave several reads: answered at the first
            return ""
        self._last = (call.step, call.cmd)
        placed = _placed(call.cmd, self.root, [call.path])
        if isinstance(placed, Passed):
            return self._passed(call.cmd, placed, self._bash.read(call))
        command, cwd, found = placed
        done = answer(self.session, found, cwd)
        if isinstance(done, Passed):
            return self._passed(command, done, self._bash.read(call), cwd)
        self.notes["shell: answered"] += 1
        for result, text in zip(done.results, done.texts, strict=False):
            self._check(call, result, text)
        return done.stdout

    def _check(self, call: ReadCall, result: ToolResult, text: str) -> None:
        meta = result.metadata
        if result.is_error:
            return
        if meta.get("type") == "outline":
            if meta.get("unchanged_since"):
                self.label = "stub"
                return
            self.label = "outline"
            self.notes["reads: outline"] += 1
            self.outlined.add(call.path)
            self._outline_texts[str(meta["call_id"])] = result.text
            self.check_held(call, result, apply_outline, "the outline")
            return
        self.label = str(meta.get("mode", "full"))
        self.notes[f"reads: {self.label}"] += 1
        rows = [_NUMBER.sub("", row, count=1) for row in text.split("\n")]
        rebuilt = ToolResult(text=_envelope(meta, rows), metadata=meta)
        view = self.views.setdefault(str(meta["path"]), View())
        try:
            held = apply_read(view, rebuilt)
        except Divergence as exc:
            self._diverged(call, f"cannot be rebuilt from what the shell printed: {exc}")
            self.views[str(meta["path"])] = View()
            return
        file = call.file.lines[meta["offset"] - 1 : meta["last_line"]]
        if held != list(file):
            self._diverged(call, "the rebuilt window differs from the file")
            self.views[str(meta["path"])] = View()

    # --- searches ---------------------------------------------------------------------------

    def grep(self, call: GrepCall) -> str:
        placed = _placed(call.cmd, self.root, list(call.paths))
        if isinstance(placed, Passed):
            return self._passed(call.cmd, placed, ripgrep_output(call))
        command, cwd, found = placed
        done = answer(self.session, found, cwd)
        if isinstance(done, Passed):
            return self._passed(command, done, ripgrep_output(call), cwd)
        self.notes["shell: answered"] += 1
        for result in done.results:
            try:
                apply_grep(self.views, result)
            except Divergence as exc:
                self.divergences.append(f"step {call.step}: grep {call.path}: {exc}")
        return done.stdout

    def _passed(self, command: str, why: Passed, text: str, cwd: str = "") -> str:
        """A command run as it is: charged as the bash strategy charges it; its output through
        ``run_command`` must be what ``bash -c`` prints."""
        self.notes[f"shell: passed: {why.why}"] += 1
        cwd = cwd or str(self.root)
        if command:
            try:
                direct = subprocess.run(
                    ["bash", "-c", command], cwd=cwd, capture_output=True, timeout=self.check_seconds, check=False
                )
                through = run_command(self.session, command, cwd=cwd, timeout=self.check_seconds)
            except subprocess.TimeoutExpired:
                # A slow command on a loaded machine (``find -exec grep`` over django): its charge is
                # the trace's own output either way, so only the check is left out, and counted.
                self.notes[f"shell: passed, not checked: ran over {self.check_seconds:g} s here"] += 1
                return text
            if (direct.stdout, direct.returncode) != (through.stdout, through.status):
                self.notes["shell: passed output differs"] += 1
                self.divergences.append(f"{command!r}: passed through, its output differs from bash -c")
        return text


class BashLeanreadLossless(BashLeanread):
    name = "bash-leanread-lossless"
    title = "the bash agent's commands through `leanread sh`, read mode full (lossless: no outlines)"
    order = 97
    read_mode: ClassVar[str] = "full"


def _placed(cmd: str, root: Path, paths: list[str]) -> tuple[str, str, Recognised] | Passed:
    """The command as it runs in the scratch copy ``root`` (the agent's absolute repository
    paths replaced by the copy's), the folder to run it in (where its relative paths name the
    trace's ``paths``), and what it asks; ``Passed`` when it is not a read or search."""
    found = recognise(cmd)
    if isinstance(found, Passed):
        return found
    named = [p for ask in found.asks for p in (ask.paths if isinstance(ask, GrepAsk) else (ask.path,))]
    command, cwd = cmd, str(root)
    for given in named:
        for path in paths:
            if os.path.isabs(given) and given.endswith("/" + path.lstrip("./")) and path != ".":
                prefix = given[: len(given) - len(path.lstrip("./"))]
                command = command.replace(prefix, f"{root}/")
            elif not os.path.isabs(given) and path.endswith("/" + given) and os.path.normpath(given) != path:
                cwd = str(root / path[: -len(given) - 1])
    if command != cmd:
        found = recognise(command)
        if isinstance(found, Passed):
            return found
    return command, cwd, found


def _trailer(rows: list[str]) -> bool:
    """Whether the rows after the last blank one are what leanread adds after a window: notices
    in parentheses, then instructions in their ``<system-reminder>`` block."""
    notes = list(itertools.takewhile(lambda row: row.startswith("("), rows))
    rest = rows[len(notes) :]
    return not rest or (rest[0] == "<system-reminder>" and rest[-1] == "</system-reminder>")


def _envelope(meta: dict[str, Any], rows: list[str]) -> str:
    """The printed rows as a read result's text for ``reconstruct``: the notices after the last
    blank row are left out (a closing notice stands for them)."""
    blanks = [k for k, row in enumerate(rows) if row == ""]
    if blanks and blanks[-1] < len(rows) - 1 and _trailer(rows[blanks[-1] + 1 :]):
        rows = rows[: blanks[-1]]
    kind = "diff" if meta.get("mode") == "diff" else "file"
    body = "\n".join([*rows, "", "(End of file)"])
    return f"<path>{meta.get('path')}</path>\n<type>{kind}</type>\n<content>\n{body}\n</content>"
