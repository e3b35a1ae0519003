"""SWE-agent 0.x trajectories (``*.traj``): ``trajectory`` is the list of steps, each with the
``action`` the model wrote, the ``observation`` it got back, and the ``state`` (``open_file``,
``working_dir``) it was in.

Mapping (one step per entry, numbered from 1; ``obs_chars`` is the observation's length):
- ``open PATH [LINE]``, ``goto N``, ``scroll_up``, ``scroll_down`` → ``read`` of the lines the
  observation's 100-line window showed (``[File: P (N lines total)]``, then ``L:text`` rows):
  offset = the first row's number, limit = the rows; the file is the frame's; ``cmd`` is the
  shell read of the same numbered window (``nl -ba P | sed -n 'A,Bp'``), so a replay can send
  SWE-agent's viewer through ``leanread sh`` as a bash agent's reads. An observation
  without a window (``File … not found``) → ``shell`` with ``rc: 1``.
- ``edit N:M`` … ``end_of_edit`` → ``edit`` with ``lines: [N, M]`` (the current file's lines N to
  M are replaced), ``new`` (the replacement, with its final newline) and ``old`` (what the window
  last showed of those lines, when it showed all of them; the replay takes the file's own lines).
  An observation that says the edit was not applied (a syntax error, no file open) → ``error``.
- ``create PATH`` → ``write`` of one empty line (SWE-agent writes ``\\n``); a file that already
  existed (``Error: File … already exists``) → ``error``.
- ``search_file TERM [FILE]`` → ``grep`` with ``-n`` of the file (the open one when none is named);
  ``search_dir TERM [DIR]`` → ``grep`` with ``-c`` (SWE-agent lists the files and their match
  counts); ``find_file NAME [DIR]`` → ``glob``.
- ``submit``, ``exit_cost``, ``exit_context``, ``exit_format``, ``exit_error`` → skipped (they end the
  run and touch no file); every other command → ``shell.ShellMapper``, as the other formats'.
- Header: ``instance_id`` (the file's name), ``repo`` from it (``fasterxml__jackson-core-891`` →
  ``fasterxml/jackson-core``) unless ``sources.json`` says, ``orig_repo_root`` (the first step's
  ``working_dir``), ``format: swe-agent``, ``n_steps``, ``final_patch`` (``info.submission``), and
  from ``sources.json``: ``agent``, ``model``, ``result``/``resolved``, ``tree`` (the replay's source).
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

from . import Imported, apply_meta, meta_for
from .mini_swe_agent import repo_of
from .shell import ShellMapper

FRAME = re.compile(r"^\[File: (.+?) \((\d+) lines total\)\]$", re.MULTILINE)
ROW = re.compile(r"^(\d+):(.*)$")
EDIT = re.compile(r"^edit\s+(\d+):(\d+)\s*\n(.*?)\n?end_of_edit\s*$", re.DOTALL)
EDIT_FAILED = ("Your proposed edit has introduced new syntax error", "No file open", "Usage: edit", "Error:")
ENDINGS = frozenset({"submit", "exit_cost", "exit_context", "exit_format", "exit_error", "exit_api"})
VIEWERS = frozenset({"open", "goto", "scroll_up", "scroll_down"})


def window(observation: str) -> tuple[str, int, dict[int, str]] | None:
    """(the file, its total lines, the rows shown by number) of an observation's last window."""
    frames = list(FRAME.finditer(observation))
    if not frames:
        return None
    last = frames[-1]
    rows: dict[int, str] = {}
    for line in observation[last.end() + 1 :].split("\n"):
        found = ROW.match(line)
        if found:
            rows[int(found.group(1))] = found.group(2)
        elif rows and not line.startswith("("):
            break
    return last.group(1), int(last.group(2)), rows


class _Session:
    """What the agent has been shown so far, to say what an ``edit N:M`` replaced."""

    def __init__(self, mapper: ShellMapper) -> None:
        self.mapper = mapper
        self.shown: dict[str, dict[int, str]] = {}
        self.open_file = ""

    def seen(self, observation: str) -> tuple[str, dict[int, str]] | None:
        found = window(observation)
        if found is None:
            return None
        path = self.mapper.rel(found[0])
        self.open_file = path
        self.shown.setdefault(path, {}).update(found[2])
        return path, found[2]

    def view(self, observation: str) -> dict[str, Any]:
        found = self.seen(observation)
        if found is None or not found[1]:
            return {"op": "shell", "rc": 1}
        path, rows = found
        first, last = min(rows), min(rows) + len(rows) - 1
        cmd = f"nl -ba {shlex.quote(path)} | sed -n '{first},{last}p'"
        return {"op": "read", "path": path, "offset": first, "limit": len(rows), "cmd": cmd}

    def edit(self, action: str, observation: str) -> dict[str, Any]:
        match = EDIT.match(action.strip("\n") + "\n")
        if match is None:
            return {"op": "shell", "rc": 1}
        start, end, text = int(match.group(1)), int(match.group(2)), match.group(3)
        path = self.open_file
        op: dict[str, Any] = {"op": "edit", "path": path, "lines": [start, end], "new": text + "\n"}
        known = self.shown.get(path, {})
        if all(n in known for n in range(start, end + 1)):
            op["old"] = "".join(known[n] + "\n" for n in range(start, end + 1))
        if any(observation.startswith(f) or f in observation[:200] for f in EDIT_FAILED) or not path:
            op["error"] = observation.strip().split("\n", 1)[0][:200] or "no file open"
        else:
            shift = text.count("\n") + 1 - (end - start + 1)
            self.shown[path] = {n if n < start else n + shift: t for n, t in known.items() if not start <= n <= end}
            self.seen(observation)
        return op


def _command(action: str, observation: str, session: _Session) -> list[dict[str, Any]]:
    head = action.strip().split("\n", 1)[0]
    try:
        words = shlex.split(head)
    except ValueError:
        words = head.split()
    name = words[0] if words else ""
    if name in ENDINGS:
        return []
    if name in VIEWERS:
        return [session.view(observation)]
    if name == "edit":
        return [session.edit(action, observation)]
    rel = session.mapper.rel
    if name == "create" and len(words) > 1:
        op: dict[str, Any] = {"op": "write", "path": rel(words[1]), "content": "\n"}
        if observation.startswith("Error"):
            op["error"] = observation.split("\n", 1)[0][:200]
        else:
            session.seen(observation)
        return [op]
    if name == "search_file" and len(words) > 1:
        target = rel(words[2]) if len(words) > 2 else session.open_file
        return [{"op": "grep", "pattern": words[1], "path": target or ".", "flags": ["-n"], "cmd": head}]
    if name == "search_dir" and len(words) > 1:
        target = rel(words[2]) if len(words) > 2 else "."
        return [{"op": "grep", "pattern": words[1], "path": target, "flags": ["-c"], "cmd": head}]
    if name == "find_file" and len(words) > 1:
        target = rel(words[2]) if len(words) > 2 else "."
        return [{"op": "glob", "pattern": words[1], "path": target, "cmd": head}]
    return session.mapper.ops(action.strip())


def convert(path: Path, sources: dict[str, Any]) -> list[Imported]:
    """The trace of one SWE-agent trajectory."""
    data = json.loads(path.read_text("utf-8"))
    steps = data["trajectory"]
    instance = path.name.split(".")[0]
    states = [_state(s) for s in steps]
    root = next((s.get("working_dir") for s in states if s.get("working_dir")), "") or ""
    header: dict[str, Any] = {"instance_id": instance, "repo": repo_of(instance), "source": str(path)}
    header.update({"agent": "SWE-agent", "orig_repo_root": root, "format": "swe-agent"})
    apply_meta(header, sources.get(instance, {}) if sources else meta_for(path, instance))
    session = _Session(ShellMapper(str(header.get("orig_repo_root") or root)))
    ops: list[dict[str, Any]] = []
    for number, step in enumerate(steps, start=1):
        action, observation = str(step.get("action", "")), str(step.get("observation") or "")
        extra = {"step": number, "obs_chars": len(observation)}
        ops += [{**op, **extra} for op in _command(action, observation, session)]
    header["n_steps"] = len(steps)
    patch = (data.get("info") or {}).get("submission")
    if isinstance(patch, str) and patch:
        header["final_patch"] = patch
    return [Imported(instance, header, ops)]


def _state(step: dict[str, Any]) -> dict[str, Any]:
    state = step.get("state")
    if isinstance(state, str):
        try:
            state = json.loads(state)
        except ValueError:
            return {}
    return state if isinstance(state, dict) else {}
