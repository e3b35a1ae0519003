"""``leanread mcp-config CLIENT``: exact configurations, and the real clients connecting with
them where they are installed (Claude Code's ``claude mcp list``, opencode's ``opencode mcp list``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from leanread.cli.clientconfig import CLAUDE_TOOLS, GEMINI_TOOLS, OPENCODE_TOOLS, render
from leanread.errors import InvalidArgument

PY = "/opt/venv/bin/python"
ROOT = "/home/me/repo"
SERVE = [PY, "-P", "-m", "leanread", "serve", "--root", ROOT]
HOOK = f"{PY} -P -m leanread context compact --hook --root {ROOT}"


def test_claude_code_server_entry_for_mcp_add_json() -> None:
    assert json.loads(render("claude-code", [ROOT], python=PY)) == {"type": "stdio", "command": PY, "args": SERVE[1:]}


def test_claude_code_settings_deny_its_tools_and_hook_compaction() -> None:
    hook = [{"type": "command", "command": HOOK}]
    assert json.loads(render("claude-code", [ROOT], "settings", PY)) == {
        "permissions": {
            "allow": ["mcp__leanread"],
            "deny": ["Read", "Edit", "MultiEdit", "Write", "Grep", "Glob", "NotebookEdit"],
        },
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [{"type": "command", "command": f"{PY} -P -m leanread.shell.hook --root {ROOT}"}],
                }
            ],
            "PreCompact": [{"matcher": "manual|auto", "hooks": hook}],
            "SessionStart": [{"matcher": "compact|clear|resume", "hooks": hook}],
        },
    }
    assert CLAUDE_TOOLS[0] == "Read"


def test_opencode_config_and_plugin() -> None:
    assert json.loads(render("opencode", [ROOT], python=PY)) == {
        "$schema": "https://opencode.ai/config.json",
        "mcp": {"leanread": {"type": "local", "command": SERVE, "enabled": True}},
        "tools": dict.fromkeys(OPENCODE_TOOLS, False),
    }
    plugin = render("opencode", [ROOT], "plugin", PY)
    assert 'event.type === "session.compacted"' in plugin
    assert f"| {HOOK}`.quiet().nothrow()" in plugin


def test_codex_gemini_cursor_vscode() -> None:
    assert tomllib.loads(render("codex", [ROOT], python=PY)) == {
        "mcp_servers": {"leanread": {"command": PY, "args": SERVE[1:]}}
    }
    assert json.loads(render("gemini", [ROOT], python=PY)) == {
        "mcpServers": {"leanread": {"command": PY, "args": SERVE[1:]}},
        "tools": {"exclude": list(GEMINI_TOOLS)},
    }
    entry = {"type": "stdio", "command": PY, "args": SERVE[1:]}
    assert json.loads(render("cursor", [ROOT], python=PY)) == {"mcpServers": {"leanread": entry}}
    assert json.loads(render("vscode", [ROOT], python=PY)) == {"servers": {"leanread": entry}}


def test_paths_with_spaces_survive_the_hook_shell() -> None:
    settings = json.loads(render("claude-code", ["/home/me/my repo"], "settings", "/opt/my venv/python"))
    command = settings["hooks"]["PreCompact"][0]["hooks"][0]["command"]
    assert command == "'/opt/my venv/python' -P -m leanread context compact --hook --root '/home/me/my repo'"


def test_unknown_client_and_part() -> None:
    with pytest.raises(InvalidArgument) as caught:
        render("zed", [ROOT])
    assert str(caught.value) == "Unknown client 'zed'; use one of claude-code, opencode, codex, gemini, cursor, vscode."
    with pytest.raises(InvalidArgument) as caught:
        render("codex", [ROOT], "plugin")
    assert str(caught.value) == (
        "codex has no part 'plugin'; the parts beside server are claude-code --part settings, opencode --part plugin."
    )


# --- the real clients ----------------------------------------------------------------------


def client_binary(name: str) -> str:
    """The client's command: from the npm prefixes in $LEANREAD_NPM_PREFIX (``.ci/run`` installs
    into ~/.cache/leanread/npm), else on PATH; skips when missing, fails under CI=true."""
    prefixes = os.environ.get("LEANREAD_NPM_PREFIX", str(Path.home() / ".cache" / "leanread" / "npm"))
    for prefix in prefixes.split(os.pathsep):
        found = Path(prefix) / "node_modules" / ".bin" / name
        if found.exists():
            return str(found)
    on_path = shutil.which(name)
    if on_path:
        return on_path
    if os.environ.get("CI") == "true":
        pytest.fail(f"{name} is not installed; .ci/run installs it with npm into ~/.cache/leanread/npm.")
    pytest.skip(f"{name} is not installed (npm install --prefix ~/.cache/leanread/npm); CI installs it.")


def mcp_config(client: str, root: Path, *part: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "leanread", "mcp-config", client, "--root", str(root), *part],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout


def client_env(home: Path) -> dict[str, str]:
    return {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "NO_COLOR": "1"}


def test_claude_code_connects_with_the_printed_config(tmp_path: Path) -> None:
    claude = client_binary("claude")
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    env = client_env(home)
    added = subprocess.run(
        [claude, "mcp", "add-json", "leanread", mcp_config("claude-code", project)],
        cwd=project, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    listed = subprocess.run([claude, "mcp", "list"], cwd=project, env=env, capture_output=True, text=True, timeout=120)
    assert f"leanread: {sys.executable} -P -m leanread serve --root {project} - ✔ Connected" in listed.stdout


def test_opencode_connects_with_the_printed_config_and_plugin(tmp_path: Path) -> None:
    opencode = client_binary("opencode")
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    (project / ".opencode" / "plugin").mkdir(parents=True)
    (project / "opencode.json").write_text(mcp_config("opencode", project))
    (project / ".opencode" / "plugin" / "leanread.js").write_text(mcp_config("opencode", project, "--part", "plugin"))
    listed = subprocess.run(
        [opencode, "mcp", "list"], cwd=project, env=client_env(home), capture_output=True, text=True, timeout=120
    )
    assert listed.returncode == 0, listed.stderr
    assert "leanread" in listed.stdout and "connected" in listed.stdout, listed.stdout
