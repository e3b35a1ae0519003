"""Claude Code's ``PreToolUse`` hook for its Bash tool: a recognised read or search is rewritten
to ``leanread sh --session SESSION_ID --root ROOT -c 'COMMAND'`` (Claude Code's ``session_id`` is
the ledger session), anything else is left alone (no output).

``python -m leanread.shell.hook [--root R]…`` reads the hook's JSON on stdin (``session_id``,
``cwd``, ``tool_name``, ``tool_input``) and prints ``hookSpecificOutput`` with ``updatedInput``
(the whole tool input, its ``command`` rewritten) and ``permissionDecision: allow`` (Claude Code
applies ``updatedInput`` with a decision; the rewritten command only reads). So that ``allow``
never lets a read past Claude Code's own prompt, a command is rewritten only when every file it
names is inside the roots and not on leanread's deny list (``.env``, keys, …); the others go
through Claude Code's permissions unchanged. It imports no tokenizer or ledger: a hook runs
before every Bash call. ``leanread mcp-config claude-code --part
settings`` prints the settings that install it.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from typing import Any

from ..process import python_module
from .asks import GrepAsk
from .recognise import Recognised, recognise


def rewrite(event: dict[str, Any], roots: list[str], leanread: list[str]) -> dict[str, Any] | None:
    """The hook's answer to ``event`` (the JSON Claude Code sends), or None to leave the call as
    it is. ``leanread`` is the command that runs leanread (``[path/to/leanread]``)."""
    tool_input = event.get("tool_input")
    if event.get("tool_name") != "Bash" or not isinstance(tool_input, dict):
        return None
    command = tool_input.get("command")
    session = event.get("session_id")
    if not isinstance(command, str) or not isinstance(session, str) or not session:
        return None
    found = recognise(command)
    cwd = event.get("cwd")
    where = roots or ([cwd] if isinstance(cwd, str) and cwd else [])
    if not isinstance(found, Recognised) or not isinstance(cwd, str) or not _within(found, cwd, where):
        return None
    words = [*leanread, "sh", "--session", session]
    for root in where:
        words += ["--root", root]
    rewritten = {**tool_input, "command": shlex.join([*words, "-c", command])}
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "permissionDecisionReason": "leanread answers this read from what the session has seen",
            "updatedInput": rewritten,
        }
    }


def _within(found: Recognised, cwd: str, roots: list[str]) -> bool:
    """Whether every path ``found`` names (taken in ``cwd``) is inside ``roots`` and not denied by
    the first root's policy (its ``leanread.toml``); False when the roots or the policy cannot be
    read."""
    from ..config.settings import load_settings
    from ..errors import LeanreadError
    from ..files.workspace import Workspace

    try:
        workspace = Workspace(roots, policy=load_settings(roots[0]).policy) if roots else None
    except (LeanreadError, OSError):
        return False
    if workspace is None:
        return False
    base = os.path.join(cwd, found.cd)
    named = [p for ask in found.asks for p in (ask.paths if isinstance(ask, GrepAsk) else (ask.path,))] or ["."]
    for path in named:
        real = os.path.realpath(os.path.join(base, path))
        if workspace.root_of(real) is None or workspace.is_denied(real):
            return False
    return True


def leanread_command() -> list[str]:
    """The ``leanread`` script beside this interpreter, else ``python -m leanread.warm.client``."""
    script = os.path.join(os.path.dirname(sys.executable), "leanread")
    return [script] if os.access(script, os.X_OK) else python_module("leanread.warm.client")


def main(argv: list[str] | None = None) -> int:
    """Run the hook: a malformed event leaves the call alone (exit 0, no output)."""
    args = sys.argv[1:] if argv is None else argv
    roots = [os.path.abspath(args[i + 1]) for i, word in enumerate(args[:-1]) if word == "--root"]
    try:
        event = json.loads(sys.stdin.read() or "{}")
    except ValueError:
        return 0
    answer = rewrite(event, roots, leanread_command()) if isinstance(event, dict) else None
    if answer is not None:
        sys.stdout.write(json.dumps(answer) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
