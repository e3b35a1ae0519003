"""Claude Code sessions (``~/.claude/projects/<folder>/<session>.jsonl``): one JSON object a line;
``assistant`` lines hold the model's ``tool_use`` blocks, ``user`` lines the ``tool_result``
blocks (``tool_use_id``, ``content``, ``is_error``).

Mapping (one step per ``tool_use``, numbered from 1, in file order; a block seen again, as in a
resumed session's copied history, counts once; ``obs_chars`` is the length of its result's text):
- ``Read`` (``file_path``, ``offset``, ``limit``) → ``read``; with an ``offset``, the offset is the
  first line number the answer showed (``    12→`` / ``12\\t``), else ``offset`` itself; a
  ``limit`` alone starts at line 1; neither → the whole file (offset and limit null; Claude Code
  itself shows at most 2,000 lines of it).
- ``Edit`` (``old_string``, ``new_string``, ``replace_all``) → ``edit`` (``replace_all: true``
  when set); ``MultiEdit`` → one ``edit`` per entry of ``edits``, in order, same step;
  ``Write`` → ``write``.
- ``Grep`` → ``grep``: ``pattern``, ``path`` (``.`` when none), ``glob`` → ``files``; flags ``-E``
  (ripgrep's syntax), then ``output_mode`` ``files_with_matches`` (the default) → ``-l``,
  ``count`` → ``-c``, ``content`` → none; ``-n``, ``-i`` → ``-n``, ``-i``; ``-A``/``-B``/``-C`` N →
  ``-A N`` …; ``type`` → ``-t T``; ``multiline`` → ``-U``. ``head_limit`` (a cut of the answer) is
  not a search flag and is dropped.
- ``Glob`` (``pattern``, ``path``) → ``glob``; ``LS`` (``path``) → ``list``.
- ``Bash`` (``command``) → ``shell.ShellMapper``, run from the line's ``cwd`` (Claude Code keeps
  its shell's folder between commands; a folder other than the root is a leading ``cd``).
- A result with ``is_error`` → ``error`` (its first line, at most 200 characters) on file-tool
  ops (the file did not change), ``rc`` on ``Bash`` ops (the ``Exit code N`` it names, else 1).
- Skipped: calls the user refused or interrupted (the result says "doesn't want to proceed" or
  "Request interrupted"): nothing ran; ``NotebookEdit`` (cell edits of ``.ipynb`` files, which the
  replay cannot make); ``TodoWrite``, ``Task``, ``WebFetch``, ``WebSearch``, ``BashOutput``,
  ``KillShell``, ``ExitPlanMode``, MCP tools (``mcp__…``) and every other tool: they touch no
  repository file; lines of the other side (``isSidechain``) than the file's first message (a
  sub-agent's work, which Claude Code also writes to its own ``agent-*.jsonl``).
- Header: ``instance_id`` (``sessionId``), ``orig_repo_root`` (the first ``cwd``), ``agent``
  (``Claude Code <version>``), ``model`` (the first assistant message's), ``format:
  claude-code``, ``n_steps``; ``sources.json`` adds the rest (``repo``, ``base_commit``, ``tree``).
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

from . import Imported, apply_meta, meta_for
from .shell import ShellMapper
from .toolcalls import error_line, first_line_number, int_or_none, search_op, text_of

Op = dict[str, Any]
REFUSED = ("doesn't want to proceed with this tool use", "[Request interrupted by user")
EXIT = re.compile(r"Exit code (\d+)")
FILE_TOOLS = ("Read", "Edit", "MultiEdit", "Write", "Grep", "Glob", "LS")
MODES = {"files_with_matches": ["-l"], "count": ["-c"]}


def _lines(path: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    return [r for r in rows if isinstance(r, dict)]


def _results(rows: list[dict[str, Any]]) -> dict[str, tuple[str, bool]]:
    """tool_use id → (the result's text, is_error)."""
    found: dict[str, tuple[str, bool]] = {}
    for row in rows:
        content = (row.get("message") or {}).get("content") if row.get("type") == "user" else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                found[str(block.get("tool_use_id"))] = (text_of(block.get("content")), bool(block.get("is_error")))
    return found


def _grep_flags(args: dict[str, Any]) -> list[str]:
    flags = list(MODES.get(str(args.get("output_mode") or "files_with_matches"), []))
    flags += [f for f in ("-n", "-i") if args.get(f) is True]
    flags += [f"{k} {args[k]}" for k in ("-A", "-B", "-C") if int_or_none(args.get(k)) is not None]
    if args.get("type"):
        flags.append(f"-t {args['type']}")
    if args.get("multiline") is True:
        flags.append("-U")
    return flags


def _tool_ops(name: str, args: dict[str, Any], answer: str, mapper: ShellMapper, cwd: str) -> list[Op]:
    """The ops of one tool call (see the module docstring); [] for the tools that are skipped."""
    path = mapper.rel(str(args.get("file_path") or args.get("path") or ""))
    if name == "Read":
        offset, limit = int_or_none(args.get("offset")), int_or_none(args.get("limit"))
        if offset is not None:
            offset = first_line_number(answer) or offset
        elif limit is not None:
            offset = 1
        return [{"op": "read", "path": path, "offset": offset, "limit": limit}]
    if name in ("Edit", "MultiEdit"):
        edits = args.get("edits") if name == "MultiEdit" else [args]
        return [_edit(path, e) for e in edits or [] if isinstance(e, dict)]
    if name == "Write":
        return [{"op": "write", "path": path, "content": str(args.get("content", ""))}]
    if name == "Grep":
        return [search_op(mapper, args.get("pattern", ""), args.get("path"), args.get("glob"), _grep_flags(args))]
    if name == "Glob":
        return [{"op": "glob", "pattern": args.get("pattern"), "path": path if args.get("path") else "."}]
    if name == "LS":
        return [{"op": "list", "path": path or "."}]
    if name == "Bash":
        command = str(args.get("command", ""))
        here = mapper.rel(cwd) if cwd else "."
        return mapper.ops(command if here in (".", "") else f"cd {shlex.quote(here)} && {command}")
    return []


def _edit(path: str, entry: dict[str, Any]) -> Op:
    op: Op = {"op": "edit", "path": path, "old": entry.get("old_string"), "new": str(entry.get("new_string", ""))}
    if entry.get("replace_all") is True:
        op["replace_all"] = True
    return op


def convert(path: Path, sources: dict[str, Any]) -> list[Imported]:
    """The trace of one Claude Code session file."""
    rows = _lines(path)
    messages = [r for r in rows if r.get("type") in ("user", "assistant")]
    side = bool(messages[0].get("isSidechain")) if messages else False
    root = next((str(r["cwd"]) for r in rows if r.get("cwd")), "")
    instance = str(next((r["sessionId"] for r in rows if r.get("sessionId")), path.stem))
    model = next((r["message"].get("model") for r in rows if r.get("type") == "assistant" and r.get("message")), None)
    version = next((r["version"] for r in rows if r.get("version")), "?")
    header: dict[str, Any] = {"instance_id": instance, "source": str(path), "agent": f"Claude Code {version}"}
    header.update({"model": model, "orig_repo_root": root, "format": "claude-code"})
    apply_meta(header, sources.get(instance, {}) if sources else meta_for(path, instance))
    mapper = ShellMapper(str(header["orig_repo_root"]))
    results = _results(rows)
    ops: list[Op] = []
    seen: set[str] = set()
    step = 0
    for row in messages:
        content = (row.get("message") or {}).get("content")
        if row["type"] != "assistant" or bool(row.get("isSidechain")) != side or not isinstance(content, list):
            continue
        for block in content:
            if not isinstance(block, dict) or block.get("type") != "tool_use" or str(block.get("id")) in seen:
                continue
            seen.add(str(block.get("id")))
            answer, failed = results.get(str(block.get("id")), ("", False))
            name, args = str(block.get("name")), block.get("input") or {}
            if any(r in answer for r in REFUSED) and failed:
                continue
            found = _tool_ops(name, args if isinstance(args, dict) else {}, answer, mapper, str(row.get("cwd") or ""))
            if not found:
                continue
            step += 1
            extra: dict[str, Any] = {"step": step, "obs_chars": len(answer)}
            if failed and name in FILE_TOOLS:
                extra["error"] = error_line(answer)
            elif failed:
                code = EXIT.search(answer)
                extra["rc"] = int(code.group(1)) if code else 1
            for op in found:
                if name != "Bash" and "error" not in extra:
                    mapper.track(op)
            ops += [{**op, **extra} for op in found]
    header["n_steps"] = step
    return [Imported(f"{instance}__claude-code", header, ops)]
