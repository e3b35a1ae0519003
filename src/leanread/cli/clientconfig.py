"""``leanread mcp-config CLIENT``: a client configuration that works as printed.

Every command in it is an absolute path (the Python running leanread, ``-m leanread``), so it
works without ``leanread`` on ``PATH``; every root is absolute. Where the client lets a
configuration switch its own file tools off, the configuration does, so the model uses
leanread's; where the client has compaction hooks, the configuration runs ``leanread context
compact --hook`` from them, so a stub never points at text the model no longer has.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence

from ..errors import InvalidArgument
from ..process import python_module

#: The clients ``render`` knows, in the order the help lists them.
CLIENTS = ("claude-code", "opencode", "codex", "gemini", "cursor", "vscode")

#: Claude Code's own file tools, denied so the model uses leanread's (permission rules).
CLAUDE_TOOLS = ("Read", "Edit", "MultiEdit", "Write", "Grep", "Glob", "NotebookEdit")
#: opencode's own file tools, switched off in its ``tools`` setting.
OPENCODE_TOOLS = ("read", "edit", "write", "grep", "glob", "list", "patch")
#: Gemini CLI's own file tools, excluded in its ``tools.exclude`` setting.
GEMINI_TOOLS = (
    "read_file",
    "read_many_files",
    "write_file",
    "replace",
    "search_file_content",
    "glob",
    "list_directory",
)


def server_command(roots: Sequence[str], python: str | None = None) -> list[str]:
    """``[python, -P, -m, leanread, serve, --root, R, …]`` with absolute paths (``-P``:
    ``process.python_module``)."""
    command = python_module("leanread", "serve", python=python)
    for root in roots:
        command += ["--root", root]
    return command


def hook_command(roots: Sequence[str], python: str | None = None) -> str:
    """The shell command a compaction hook runs (as one string, quoted for ``sh``)."""
    parts = python_module("leanread", "context", "compact", "--hook", python=python)
    for root in roots:
        parts += ["--root", root]
    return shlex.join(parts)


def bash_hook_command(roots: Sequence[str], python: str | None = None) -> str:
    """The shell command of Claude Code's ``PreToolUse`` hook on Bash (``shell.hook``)."""
    parts = python_module("leanread.shell.hook", python=python)
    for root in roots:
        parts += ["--root", root]
    return shlex.join(parts)


def _claude_code(command: list[str]) -> dict[str, object]:
    """The JSON for ``claude mcp add-json leanread '…'`` (a stdio server)."""
    return {"type": "stdio", "command": command[0], "args": command[1:]}


def claude_settings(roots: Sequence[str], python: str | None = None) -> dict[str, object]:
    """``.claude/settings.json``: leanread's tools allowed, Claude Code's own denied, the hooks
    that tell leanread when the conversation was compacted, cleared or resumed, and the one that
    sends the model's shell reads (``cat``, ``sed -n``, ``grep`` …) through ``leanread sh``."""
    hook = [{"type": "command", "command": hook_command(roots, python)}]
    bash = [{"type": "command", "command": bash_hook_command(roots, python)}]
    return {
        "permissions": {"allow": ["mcp__leanread"], "deny": list(CLAUDE_TOOLS)},
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": bash}],
            "PreCompact": [{"matcher": "manual|auto", "hooks": hook}],
            "SessionStart": [{"matcher": "compact|clear|resume", "hooks": hook}],
        },
    }


def _opencode(command: list[str]) -> dict[str, object]:
    """``opencode.json``: leanread as a local MCP server, opencode's own file tools off."""
    return {
        "$schema": "https://opencode.ai/config.json",
        "mcp": {"leanread": {"type": "local", "command": command, "enabled": True}},
        "tools": {name: False for name in OPENCODE_TOOLS},
    }


OPENCODE_PLUGIN = """// .opencode/plugin/leanread.js: tell leanread when opencode compacted the session, so a
// re-read after it gets the full text, not a stub pointing at what the summary dropped.
export const Leanread = async ({ $ }) => ({
  event: async ({ event }) => {
    if (event.type === "session.compacted") {
      await $`echo '{"hook_event_name":"session.compacted"}' | %s`.quiet().nothrow()
    }
  },
})
"""


def opencode_plugin(roots: Sequence[str], python: str | None = None) -> str:
    """The opencode plugin (JavaScript) that runs the compaction hook on ``session.compacted``."""
    return OPENCODE_PLUGIN % hook_command(roots, python)


def _toml_string(text: str) -> str:
    return json.dumps(text)  # a TOML basic string has JSON's escapes


def codex_table(command: list[str]) -> str:
    """``~/.codex/config.toml``: Codex CLI has no file-reading tool of its own to switch off."""
    args = ", ".join(_toml_string(a) for a in command[1:])
    return f"[mcp_servers.leanread]\ncommand = {_toml_string(command[0])}\nargs = [{args}]\n"


def _gemini(command: list[str]) -> dict[str, object]:
    """``~/.gemini/settings.json`` (or the project's ``.gemini/settings.json``)."""
    return {
        "mcpServers": {"leanread": {"command": command[0], "args": command[1:]}},
        "tools": {"exclude": list(GEMINI_TOOLS)},
    }


def _cursor(command: list[str]) -> dict[str, object]:
    """``.cursor/mcp.json``; Cursor's own tools are switched off in its settings, not here."""
    return {"mcpServers": {"leanread": {"type": "stdio", "command": command[0], "args": command[1:]}}}


def _vscode(command: list[str]) -> dict[str, object]:
    """``.vscode/mcp.json``; VS Code's own tools are unticked in the chat's tool picker."""
    return {"servers": {"leanread": {"type": "stdio", "command": command[0], "args": command[1:]}}}


_BUILDERS = {
    "claude-code": _claude_code,
    "opencode": _opencode,
    "gemini": _gemini,
    "cursor": _cursor,
    "vscode": _vscode,
}


def render(client: str, roots: Sequence[str], part: str = "server", python: str | None = None) -> str:
    """The configuration text for ``client``: JSON (indented, final newline) or, for Codex, TOML.

    Args:
        client: one of ``CLIENTS``.
        roots: absolute workspace roots.
        part: ``server`` (the MCP server entry); for Claude Code also ``settings`` (its
            ``.claude/settings.json``), for opencode also ``plugin`` (its compaction plugin).
        python: the interpreter in the command; default this one.

    Raises:
        InvalidArgument: an unknown client or a part the client does not have.
    """
    if client not in CLIENTS:
        raise InvalidArgument(f"Unknown client {client!r}; use one of {', '.join(CLIENTS)}.")
    extras = {("claude-code", "settings"), ("opencode", "plugin")}
    if part != "server" and (client, part) not in extras:
        known = ", ".join(f"{c} --part {p}" for c, p in sorted(extras))
        raise InvalidArgument(f"{client} has no part {part!r}; the parts beside server are {known}.")
    if part == "settings":
        return json.dumps(claude_settings(roots, python), indent=2) + "\n"
    if part == "plugin":
        return opencode_plugin(roots, python)
    command = server_command(roots, python)
    if client == "codex":
        return codex_table(command)
    return json.dumps(_BUILDERS[client](command), indent=2) + "\n"
