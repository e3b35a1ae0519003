"""Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``): one JSON object a line,
``{"timestamp", "type", "payload"}`` with ``type`` ``session_meta``, ``turn_context``,
``response_item``, ``event_msg`` or ``compacted`` (rollouts of before September 2025 have no
envelope: the first line is the session's metadata, the others the items themselves).

Mapping (one step per tool call, numbered from 1; ``obs_chars`` is the length of the output the
model got, the ``function_call_output`` / ``custom_tool_call_output`` with the same ``call_id``):
- ``function_call`` ``shell`` / ``container.exec`` (``command`` argv, ``workdir``) and
  ``local_shell_call`` (``action.command``, ``action.working_directory``): ``["bash", "-lc", S]``
  (or ``sh -c``, ``zsh -lc``) runs the script S, another argv runs itself (quoted), through
  ``shell.ShellMapper``; ``shell_command`` (``command``) and ``exec_command`` (``cmd``) are
  scripts. A ``workdir`` other than the root is a leading ``cd``. A non-zero exit code
  (``metadata.exit_code`` of a JSON output, ``Exit code: N`` or ``Process exited with code N``
  of a text one) → ``rc``.
- ``apply_patch``: the ``custom_tool_call`` (``input``), the ``function_call`` (``input``
  argument), ``["apply_patch", PATCH]`` and a script ``apply_patch <<'EOF' … EOF`` (or
  ``cat <<'EOF' | apply_patch``) → the ops of ``patch.patch_ops`` (``write``, ``edit``, ``shell``
  with ``mutates``), paths from ``workdir``; a text with no file section → ``shell`` with
  ``mutates: true``. An output that says it failed (a non-zero exit code, or ``verification
  failed``, ``Failed to apply patch``, ``Invalid patch``, ``Failed to find expected lines``) →
  ``error`` with its first line: no file changed.
- ``write_stdin`` (keys for a running ``exec_command``) → ``shell`` with ``input: true``.
- Skipped: messages, reasoning, ``update_plan``, ``view_image``, web searches, MCP tools and every
  other tool (they touch no repository file), ``event_msg`` lines (the UI's copy of the same calls),
  ``ghost_snapshot`` and ``compacted`` lines.
- Header: ``instance_id`` (the session ``id``), ``orig_repo_root`` (``session_meta.cwd``, else the
  first ``turn_context.cwd``), ``agent`` (``Codex CLI <cli_version>``), ``model`` (the first
  ``turn_context.model``), ``repo`` (``owner/name`` of ``git.repository_url``) and
  ``base_commit`` (``git.commit_hash``, the checkout's commit when the session began) when the
  rollout has them, ``format: codex``, ``n_steps``; ``sources.json`` overrides them.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

from ...shell.split import heredoc_body
from . import Imported, apply_meta, meta_for
from .patch import patch_ops
from .shell import ShellMapper
from .toolcalls import error_line, obj

Op = dict[str, Any]
SHELLS = ("bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh")
EXIT = re.compile(r"(?:Exit code:|Process exited with code) (-?\d+)")
PATCH_FAILED = ("verification failed", "Failed to apply patch", "Invalid patch", "Failed to find expected lines")
#: A script that feeds a here-document to ``apply_patch``: ``apply_patch <<'EOF'`` or
#: ``cat <<'EOF' | apply_patch``.
PIPED = re.compile(r"\s*(?:apply_patch\s*<<|cat\s*<<\S+\s*\|\s*apply_patch\b)")
REPO_URL = re.compile(r"[:/]([^/:]+/[^/]+?)(?:\.git)?/?$")


def _items(rows: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    """(session metadata, turn contexts, response items) of a rollout, old or new layout."""
    meta: dict[str, Any] = {}
    contexts: list[dict[str, Any]] = []
    items: list[dict[str, Any]] = []
    for n, row in enumerate(rows):
        kind, payload = row.get("type"), row.get("payload")
        if kind == "session_meta" and isinstance(payload, dict):
            meta = meta or payload
        elif kind == "turn_context" and isinstance(payload, dict):
            contexts.append(payload)
        elif kind == "response_item" and isinstance(payload, dict):
            items.append(payload)
        elif n == 0 and "id" in row and "type" not in row:
            meta = row
        elif kind not in ("event_msg", "compacted", "session_meta", "turn_context") and "payload" not in row:
            items.append(row)
    return meta, contexts, items


def _outputs(items: list[dict[str, Any]]) -> dict[str, str]:
    found: dict[str, str] = {}
    for item in items:
        if item.get("type") in ("function_call_output", "custom_tool_call_output"):
            output = item.get("output")
            if isinstance(output, dict):
                output = output.get("content", json.dumps(output))
            found[str(item.get("call_id"))] = output if isinstance(output, str) else json.dumps(output)
    return found


def exit_code(output: str) -> int | None:
    """The exit code a shell call's output names: JSON ``metadata.exit_code`` or the text forms."""
    try:
        data = json.loads(output)
    except ValueError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("metadata"), dict):
        code = data["metadata"].get("exit_code")
        return code if isinstance(code, int) else None
    found = EXIT.search(output)
    return int(found.group(1)) if found else None


def _call(item: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """(kind, arguments) of a tool call item: kind ``script``, ``argv``, ``patch`` or ``input``."""
    kind = item.get("type")
    if kind == "local_shell_call":
        action = item.get("action") or {}
        return "argv", {"argv": action.get("command") or [], "workdir": action.get("working_directory")}
    if kind == "custom_tool_call":
        return ("patch", {"patch": str(item.get("input", ""))}) if item.get("name") == "apply_patch" else None
    if kind != "function_call":
        return None
    try:
        args = json.loads(item.get("arguments") or "{}")
    except ValueError:
        return None
    if not isinstance(args, dict):
        return None
    name = item.get("name")
    if name in ("shell", "container.exec"):
        return "argv", {"argv": args.get("command") or [], "workdir": args.get("workdir")}
    if name in ("shell_command", "exec_command"):
        return "script", {"script": str(args.get("command") or args.get("cmd") or ""), "workdir": args.get("workdir")}
    if name == "apply_patch":
        return "patch", {"patch": str(args.get("input", "")), "workdir": args.get("workdir")}
    if name == "write_stdin":
        return "input", {"chars": str(args.get("chars", ""))}
    return None


def _ops(kind: str, args: dict[str, Any], mapper: ShellMapper) -> tuple[list[Op], bool]:
    """The ops of one call and whether it was a patch."""
    if kind == "input":
        return [{"op": "shell", "cmd": args["chars"], "input": True}], False
    here = mapper.rel(str(args["workdir"])) if args.get("workdir") else "."
    script = args.get("script")
    if kind == "argv":
        argv = [str(a) for a in args["argv"]]
        if len(argv) == 2 and argv[0] == "apply_patch":
            kind, args = "patch", {"patch": argv[1]}
        elif len(argv) == 3 and argv[0] in SHELLS and argv[1] in ("-lc", "-c"):
            script = argv[2]
        else:
            script = shlex.join(argv)
    if isinstance(script, str) and PIPED.match(script) and heredoc_body(script.strip()) is not None:
        kind, args = "patch", {"patch": heredoc_body(script.strip()), "cmd": script}
    if kind == "patch":
        mapper.cwd = here if not here.startswith("/") else "."
        ops = patch_ops(str(args["patch"]), mapper.rel)
        mapper.cwd = "."
        return ops or [{"op": "shell", "cmd": str(args.get("cmd") or "apply_patch"), "mutates": True}], True
    cmd = str(script)
    return mapper.ops(cmd if here == "." or here.startswith("/") else f"cd {shlex.quote(here)} && {cmd}"), False


def convert(path: Path, sources: dict[str, Any]) -> list[Imported]:
    """The trace of one Codex CLI rollout file."""
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    meta, contexts, items = _items([r for r in rows if isinstance(r, dict)])
    root = str(meta.get("cwd") or next((c["cwd"] for c in contexts if c.get("cwd")), ""))
    instance = str(meta.get("id") or path.stem)
    header: dict[str, Any] = {"instance_id": instance, "source": str(path)}
    git = obj(meta.get("git"))
    url = REPO_URL.search(str(git.get("repository_url") or ""))
    if url:
        header["repo"] = url.group(1)
    if git.get("commit_hash"):
        header["base_commit"] = git["commit_hash"]
    header["agent"] = f"Codex CLI {meta.get('cli_version', '?')}"
    header["model"] = next((c["model"] for c in contexts if c.get("model")), None)
    header.update({"orig_repo_root": root, "format": "codex"})
    apply_meta(header, sources.get(instance, {}) if sources else meta_for(path, instance))
    mapper = ShellMapper(str(header["orig_repo_root"]))
    outputs = _outputs(items)
    ops: list[Op] = []
    step = 0
    for item in items:
        call = _call(item)
        if call is None:
            continue
        step += 1
        answer = outputs.get(str(item.get("call_id") or item.get("id")))
        found, patched = _ops(call[0], call[1], mapper)
        extra: dict[str, Any] = {"step": step, "obs_chars": len(answer) if answer is not None else None}
        code = exit_code(answer or "")
        if patched and ((code not in (None, 0)) or any(t in (answer or "") for t in PATCH_FAILED)):
            extra["error"] = error_line(_inner(answer or ""))
        elif code not in (None, 0):
            extra["rc"] = code
        for op in found if patched and "error" not in extra else []:
            mapper.track(op)
        ops += [{**op, **extra} for op in found]
    header["n_steps"] = step
    return [Imported(f"{instance}__codex", header, ops)]


def _inner(output: str) -> str:
    """The ``output`` text of a JSON-wrapped tool output, else the output itself."""
    try:
        data = json.loads(output)
    except ValueError:
        return output
    return str(data.get("output", output)) if isinstance(data, dict) else output
