"""mini-swe-agent trajectories (``*.traj.json``): ``messages`` alternate the model's replies and the
shell's answers.

Mapping:
- Each assistant reply with exactly one ```` ```bash ```` block is a step (numbered from 1); its
  command goes through ``shell.ShellMapper`` (reads, greps, globs, listings, writes, shell), every
  op carrying the step, the length of the answer (``obs_chars``, the whole next user message),
  ``rc`` when ``<returncode>`` was not 0, and ``obs_truncated`` when the answer says the output
  was too long.
- Skipped: replies with no block or several (mini-swe-agent refused them: "EXACTLY ONE action"),
  so nothing ran; the system and task messages.
- Header: ``instance_id``, ``agent`` (``mini-swe-agent <mini_version> (bash only)``), ``model``
  (``info.config.model.model_name``), ``orig_repo_root`` (``info.config.environment.cwd``, else
  ``/testbed``), ``format: mini``, ``n_steps``, and ``final_patch`` (``info.submission`` without its
  ``build/`` and ``*.egg-info`` sections, their count in ``final_patch_dropped_files``); ``repo``
  from the instance id (``psf__requests-1142`` → ``psf/requests``) unless ``sources.json`` says;
  ``version``, ``base_commit``, ``resolved`` and ``source`` only from ``sources.json``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from . import Imported, apply_meta, meta_for
from .shell import ShellMapper

BLOCK = re.compile(r"```bash\s*\n(.*?)\n```", re.DOTALL)
RETURNCODE = re.compile(r"<returncode>(-?\d+)</returncode>")
TOO_LONG = ("output was too long", "Output too long", "<warning>\nThe output of your last command was too long")


def repo_of(instance: str) -> str:
    """``owner/name`` of a SWE-bench instance id (``psf__requests-1142`` → ``psf/requests``)."""
    owner, _, rest = instance.partition("__")
    return f"{owner}/{rest.rsplit('-', 1)[0]}"


def patch_without_build(patch: str) -> tuple[str, int]:
    """``patch`` without the sections of ``build/`` and ``*.egg-info`` files; how many were dropped."""
    sections = re.split(r"(?m)^(?=diff --git )", patch)
    kept: list[str] = []
    dropped = 0
    for section in sections:
        head = re.match(r"diff --git a/(\S+)", section)
        if head and (head.group(1).startswith("build/") or ".egg-info/" in head.group(1)):
            dropped += 1
            continue
        kept.append(section)
    return "".join(kept), dropped


def convert(path: Path, sources: dict[str, Any]) -> list[Imported]:
    """The trace of one mini-swe-agent trajectory file."""
    data = json.loads(path.read_text("utf-8"))
    info = data.get("info", {})
    config = info.get("config", {})
    instance = str(data.get("instance_id") or path.name.split(".")[0])
    root = str(config.get("environment", {}).get("cwd") or "/testbed")
    header: dict[str, Any] = {"instance_id": instance, "repo": repo_of(instance)}
    header.update(
        {
            "source": str(path),
            "agent": f"mini-swe-agent {info.get('mini_version', '?')} (bash only)",
            "model": config.get("model", {}).get("model_name"),
            "orig_repo_root": root,
            "format": "mini",
        }
    )
    apply_meta(header, sources.get(instance, {}) if sources else meta_for(path, instance))
    mapper = ShellMapper(root)
    ops: list[dict[str, Any]] = []
    messages = data["messages"]
    step = 0
    for i, message in enumerate(messages):
        if message.get("role") != "assistant":
            continue
        blocks = BLOCK.findall(str(message.get("content", "")))
        if len(blocks) != 1:
            continue
        step += 1
        answer = str(messages[i + 1].get("content", "")) if i + 1 < len(messages) else ""
        extra: dict[str, Any] = {"step": step, "obs_chars": len(answer)}
        code = RETURNCODE.search(answer)
        if code and int(code.group(1)) != 0:
            extra["rc"] = int(code.group(1))
        if any(t in answer for t in TOO_LONG):
            extra["obs_truncated"] = True
        ops += [{**op, **extra} for op in mapper.ops(blocks[0])]
    header["n_steps"] = step
    patch = info.get("submission")
    if isinstance(patch, str) and patch:
        header["final_patch"], dropped = patch_without_build(patch)
        if dropped:
            header["final_patch_dropped_files"] = dropped
    return [Imported(f"{instance}__mini", header, ops)]
