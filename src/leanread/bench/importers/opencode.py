"""opencode sessions: the JSON storage (``~/.local/share/opencode/storage/``: ``session/<project>/
<session>.json``, ``message/<session>/<message>.json``, ``part/<message>/<part>.json``; give the
session's file) or the one file of ``opencode export <session>`` (``{"info", "messages": [{"info",
"parts"}]}``). Tool calls are the ``tool`` parts: ``tool``, ``state.status``, ``state.input``,
``state.output`` / ``state.error``, ``state.metadata``.

Mapping (one step per tool part, numbered from 1, messages by creation time, parts by id;
``obs_chars`` is the length of ``state.output``, or of ``state.error``):
- ``read`` (``filePath``, ``offset``, ``limit``) → ``read``; with an ``offset``, the offset is the
  first line number the answer showed (``00012|`` / ``12:``), else ``offset`` + 1 (the storage
  era's tool counted from 0); a ``limit`` alone starts at line 1; neither → the whole file.
- ``edit`` (``oldString``, ``newString``, ``replaceAll``) → ``edit`` (``replace_all: true`` when
  set); ``multiedit`` → one ``edit`` per entry of ``edits``, same step; ``write`` (``content``) →
  ``write``; ``patch`` / ``apply_patch`` (``patchText``, Codex's patch format) → the ops of
  ``patch.patch_ops``.
- ``grep`` (``pattern``, ``path``, ``include``) → ``grep`` with ``-E`` (ripgrep's syntax) and
  ``-n`` (opencode lists matching lines with their numbers), ``include`` → ``files``; ``glob``
  (``pattern``, ``path``) → ``glob``; ``list`` (``path``) → ``list``.
- ``bash`` (``command``, ``workdir``) → ``shell.ShellMapper`` (a ``workdir`` other than the root
  is a leading ``cd``).
- ``state.status`` ``error`` → ``error`` (its first line, at most 200 characters): the file did not
  change; ``state.metadata.truncated`` → ``obs_truncated`` (for ``read`` only when it had no
  ``limit``: a window that stops before the end is not a clipped answer); a ``bash`` part's
  non-zero ``state.metadata.exit`` → ``rc``.
- Skipped: parts still ``pending`` or ``running`` (the session ended before the tool answered),
  text, reasoning, file, snapshot, patch-summary and step parts, and the tools ``todowrite``,
  ``todoread``, ``task``, ``webfetch``, ``websearch``, ``skill``, ``lsp_*`` and every other one:
  they touch no repository file.
- Header: ``instance_id`` (the session ``id``), ``orig_repo_root`` (the session's ``directory``,
  else the first message's ``path.root``), ``agent`` (``opencode <version>``), ``model`` (the first
  assistant message's ``providerID/modelID``), ``format: opencode``, ``n_steps``.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from . import Imported, apply_meta, meta_for
from .patch import patch_ops
from .shell import ShellMapper
from .toolcalls import error_line, first_line_number, int_or_none, obj, search_op

Op = dict[str, Any]
Message = tuple[dict[str, Any], list[dict[str, Any]]]


def _json(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text("utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path.name} holds no JSON object")
    return data


def load(path: Path) -> tuple[dict[str, Any], list[Message]]:
    """(session info, [(message info, its parts)]) of a stored session file or an export file."""
    data = _json(path)
    if isinstance(data.get("messages"), list) and isinstance(data.get("info"), dict):
        messages = [(obj(m.get("info")), [obj(p) for p in m.get("parts") or []]) for m in data["messages"]]
        return data["info"], messages
    storage = path.parents[2]
    found: list[Message] = []
    for file in sorted((storage / "message" / str(data["id"])).glob("*.json")):
        info = _json(file)
        parts = [_json(p) for p in sorted((storage / "part" / str(info.get("id", file.stem))).glob("*.json"))]
        found.append((info, sorted(parts, key=lambda p: str(p.get("id", "")))))
    found.sort(key=lambda m: (int_or_none(obj(m[0].get("time")).get("created")) or 0, str(m[0].get("id", ""))))
    return data, found


def _read(path: str, args: dict[str, Any], output: str) -> Op:
    offset, limit = int_or_none(args.get("offset")), int_or_none(args.get("limit"))
    if offset is not None:
        offset = first_line_number(output) or offset + 1
    elif limit is not None:
        offset = 1
    return {"op": "read", "path": path, "offset": offset, "limit": limit}


def _edit(path: str, entry: dict[str, Any]) -> Op:
    op: Op = {"op": "edit", "path": path, "old": entry.get("oldString"), "new": str(entry.get("newString", ""))}
    if entry.get("replaceAll") is True:
        op["replace_all"] = True
    return op


def tool_ops(tool: str, args: dict[str, Any], output: str, mapper: ShellMapper) -> list[Op]:
    """The ops of one opencode tool call (see the module docstring); [] for skipped tools."""
    path = mapper.rel(str(args.get("filePath") or args.get("path") or ""))
    if tool == "read":
        return [_read(path, args, output)]
    if tool == "edit":
        return [_edit(path, args)]
    if tool == "multiedit":
        edits = [e for e in args.get("edits") or [] if isinstance(e, dict)]
        return [_edit(mapper.rel(str(e.get("filePath") or args.get("filePath", ""))), e) for e in edits]
    if tool == "write":
        return [{"op": "write", "path": path, "content": str(args.get("content", ""))}]
    if tool in ("patch", "apply_patch"):
        return patch_ops(str(args.get("patchText", "")), mapper.rel)
    if tool == "grep":
        return [search_op(mapper, args.get("pattern", ""), args.get("path"), args.get("include"), ["-n"])]
    if tool == "glob":
        return [{"op": "glob", "pattern": args.get("pattern"), "path": path if args.get("path") else "."}]
    if tool == "list":
        return [{"op": "list", "path": path or "."}]
    if tool == "bash":
        command = str(args.get("command", ""))
        here = mapper.rel(str(args["workdir"])) if args.get("workdir") else "."
        return mapper.ops(command if here == "." or here.startswith("/") else f"cd {shlex.quote(here)} && {command}")
    return []


def _extra(tool: str, args: dict[str, Any], state: dict[str, Any], step: int) -> dict[str, Any]:
    failed = state.get("status") == "error"
    text = str(state.get("error") if failed else state.get("output") or "")
    extra: dict[str, Any] = {"step": step, "obs_chars": len(text)}
    metadata = obj(state.get("metadata"))
    if metadata.get("truncated") is True and (tool != "read" or args.get("limit") is None):
        extra["obs_truncated"] = True
    if failed:
        extra["error"] = error_line(text)
    elif tool == "bash" and int_or_none(metadata.get("exit")) not in (None, 0):
        extra["rc"] = int_or_none(metadata.get("exit"))
    return extra


def convert(path: Path, sources: dict[str, Any]) -> list[Imported]:
    """The trace of one opencode session (its stored session file, or an export file)."""
    session, messages = load(path)
    roots = [str(obj(m.get("path")).get("root")) for m, _ in messages if obj(m.get("path")).get("root")]
    root = str(session.get("directory") or (roots[0] if roots else ""))
    instance = str(session.get("id") or path.stem)
    model = next((f"{m.get('providerID')}/{m.get('modelID')}" for m, _ in messages if m.get("modelID")), None)
    header: dict[str, Any] = {"instance_id": instance, "source": str(path)}
    header["agent"] = f"opencode {session.get('version', '?')}"
    header.update({"model": model, "orig_repo_root": root, "format": "opencode"})
    apply_meta(header, sources.get(instance, {}) if sources else meta_for(path, instance))
    mapper = ShellMapper(str(header["orig_repo_root"]))
    ops: list[Op] = []
    step = 0
    for _info, parts in messages:
        for part in parts:
            state = obj(part.get("state"))
            if part.get("type") != "tool" or state.get("status") not in ("completed", "error"):
                continue
            tool, args = str(part.get("tool")), obj(state.get("input"))
            found = tool_ops(tool, args, str(state.get("output") or ""), mapper)
            if not found:
                continue
            step += 1
            extra = _extra(tool, args, state, step)
            for op in found if tool != "bash" and "error" not in extra else []:
                mapper.track(op)
            ops += [{**op, **extra} for op in found]
    header["n_steps"] = step
    return [Imported(f"{instance}__opencode", header, ops)]
