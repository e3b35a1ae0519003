"""OpenHands (CodeActAgent) completion logs (``*.json`` with ``fncall_messages``): the last LLM
call's whole history, tool calls as JSON.

Mapping (one step per tool call, numbered from 1; ``obs_chars`` is the length of the tool's
answer, ``obs_truncated`` when it holds ``<response clipped>``):
- ``str_replace_editor``: ``view`` of a file → ``read`` (``view_range [a, b]`` → offset a, limit
  b-a+1; ``[a, -1]`` → limit null; none → the whole file), ``view`` of a folder (the answer lists
  "files and directories") → ``list`` with ``depth: 2``; ``create`` → ``write``; ``str_replace`` →
  ``edit``; ``insert`` → ``insert`` (after ``insert_line``); ``undo_edit`` → ``undo_edit``. An
  answer starting ``ERROR:`` puts its first line (at most 200 characters) in ``error``: the file
  did not change.
- ``execute_bash``: the command through ``shell.ShellMapper``; ``is_input: true`` and the empty
  command (more output of the running one) → ``shell`` with ``input: true``; a non-zero
  ``[Command finished with exit code N]`` → ``rc``.
- Skipped: ``think`` and ``finish`` (no file is touched), the ``fncall_response`` (the call that
  ended the run), tool calls with arguments that are not JSON.
- Header: ``instance_id`` (from ``sources.json`` or the folder name), ``orig_repo_root`` (the
  ``/workspace/<repo>__<version>`` folder the calls name most), ``format: openhands``,
  ``n_steps``, ``model`` and ``agent`` from ``sources.json`` when it has them.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from . import Imported, apply_meta, meta_for
from .mini_swe_agent import repo_of
from .shell import ShellMapper

EXIT = re.compile(r"\[Command finished with exit code (-?\d+)\]")
WORKSPACE = re.compile(r"/workspace/[A-Za-z0-9_.-]+__[A-Za-z0-9_.-]+")
ERROR_CHARS = 200


def _calls(messages: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any], str | None]]:
    """(tool name, arguments, answer or None) of every tool call, in order."""
    answers = {m.get("tool_call_id"): str(m.get("content") or "") for m in messages if m.get("role") == "tool"}
    calls: list[tuple[str, dict[str, Any], str | None]] = []
    for message in messages:
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            try:
                args = json.loads(function.get("arguments") or "{}")
            except ValueError:
                continue
            calls.append((str(function.get("name")), args, answers.get(call.get("id"))))
    return calls


def _root(calls: list[tuple[str, dict[str, Any], str | None]]) -> str:
    found: Counter[str] = Counter()
    for _name, args, _answer in calls:
        for value in args.values():
            found.update(WORKSPACE.findall(str(value)))
    return found.most_common(1)[0][0] if found else "/workspace"


def _editor(args: dict[str, Any], answer: str, mapper: ShellMapper) -> dict[str, Any] | None:
    command = args.get("command")
    path = mapper.rel(str(args.get("path", "")))
    op: dict[str, Any]
    if command == "view":
        if "files and directories" in answer.split("\n", 1)[0]:
            op = {"op": "list", "path": path, "depth": 2}
        else:
            view = args.get("view_range")
            offset = limit = None
            if isinstance(view, list) and len(view) == 2:
                offset = int(view[0])
                limit = None if int(view[1]) == -1 else int(view[1]) - int(view[0]) + 1
            op = {"op": "read", "path": path, "offset": offset, "limit": limit}
    elif command == "create":
        op = {"op": "write", "path": path, "content": args.get("file_text", "")}
    elif command == "str_replace":
        op = {"op": "edit", "path": path, "old": args.get("old_str"), "new": args.get("new_str", "")}
    elif command == "insert":
        op = {"op": "insert", "path": path, "line": args.get("insert_line"), "new": args.get("new_str", "")}
    elif command == "undo_edit":
        op = {"op": "undo_edit", "path": path}
    else:
        return None
    if answer.startswith("ERROR:"):
        rest = answer[len("ERROR:") :].lstrip("\n")
        op["error"] = rest.split("\n", 1)[0][:ERROR_CHARS]
    return op


def convert(path: Path, sources: dict[str, Any]) -> list[Imported]:
    """The trace of one OpenHands completion log."""
    data = json.loads(path.read_text("utf-8"))
    last = [c.get("message", {}) for c in (data.get("fncall_response") or {}).get("choices", [])]
    calls = _calls([*data["fncall_messages"], *last])
    root = _root(calls)
    instance = path.parent.name if "__" in path.parent.name else path.stem
    header: dict[str, Any] = {"instance_id": instance, "repo": repo_of(instance), "source": str(path)}
    header.update({"orig_repo_root": root, "format": "openhands"})
    apply_meta(header, sources.get(instance, {}) if sources else meta_for(path, instance))
    mapper = ShellMapper(root)
    ops: list[dict[str, Any]] = []
    step = 0
    for name, args, answer in calls:
        if name not in ("str_replace_editor", "execute_bash"):
            continue
        step += 1
        extra: dict[str, Any] = {"step": step, "obs_chars": len(answer) if answer is not None else None}
        answer = answer or ""
        if "<response clipped>" in answer:
            extra["obs_truncated"] = True
        if name == "str_replace_editor":
            op = _editor(args, answer, mapper)
            found = [op] if op else []
            if op and not op.get("error"):
                mapper.track(op)
        elif args.get("is_input") in (True, "true") or not str(args.get("command", "")).strip():
            found = [{"op": "shell", "cmd": str(args.get("command", "")), "input": True}]
        else:
            found = mapper.ops(str(args.get("command", "")))
        code = EXIT.search(answer)
        if name == "execute_bash" and code and int(code.group(1)) != 0:
            extra["rc"] = int(code.group(1))
        ops += [{**op, **extra} for op in found]
    header["n_steps"] = step
    return [Imported(f"{instance}__openhands", header, ops)]
