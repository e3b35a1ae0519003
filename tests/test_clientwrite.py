"""``leanread mcp-config CLIENT --write``: the configuration merged into the client's own file,
folders made, every key of the user's kept, nothing written the second time, a file that does
not parse refused in one line and left byte for byte; and the real clients connecting with the
files written (Claude Code, opencode, Gemini CLI where installed)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_clientconfig import client_binary, client_env

from leanread.cli.clientconfig import render
from leanread.cli.clientwrite import ClientFileError, merge_codex, merge_json, write_config

PY = "/opt/venv/bin/python"
SERVE = ["-P", "-m", "leanread", "serve", "--root"]
JSON_FILES = {
    ("claude-code", "server"): ".mcp.json",
    ("claude-code", "settings"): ".claude/settings.json",
    ("opencode", "server"): "opencode.json",
    ("gemini", "server"): ".gemini/settings.json",
    ("cursor", "server"): ".cursor/mcp.json",
    ("vscode", "server"): ".vscode/mcp.json",
}
AFTER = {
    "claude-code": (
        " Claude Code asks to approve a project's servers the first time `claude` starts in it (`claude mcp list` "
        "shows leanread as Pending approval until then), or add it with `claude mcp add-json`."
    ),
    "gemini": (
        " Gemini CLI reads a project's .gemini/settings.json only in a folder it trusts: trust this one when gemini "
        "asks, or with /permissions trust (`gemini mcp list` shows leanread Disabled until then, then Connected)."
    ),
}


def _ours(client: str, part: str, root: Path) -> dict[str, Any]:
    ours: dict[str, Any] = json.loads(render(client, [str(root)], part, PY))
    return {"mcpServers": {"leanread": ours}} if (client, part) == ("claude-code", "server") else ours


def _listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize(("client", "part"), list(JSON_FILES))
def test_a_new_file_is_made_with_its_folders_and_a_second_run_writes_nothing(
    tmp_path: Path, client: str, part: str
) -> None:
    name = JSON_FILES[(client, part)]
    after = AFTER.get(client, "") if part == "server" else ""
    assert write_config(client, [str(tmp_path)], part, PY) == f"leanread: wrote {tmp_path / name}.{after}"
    written = (tmp_path / name).read_bytes()
    assert written == (json.dumps(_ours(client, part, tmp_path), indent=2) + "\n").encode()
    assert write_config(client, [str(tmp_path)], part, PY) == (
        f"leanread: {tmp_path / name} already holds this configuration; nothing was written.{after}"
    )
    assert (tmp_path / name).read_bytes() == written
    assert [p for p in _listing(tmp_path) if p.endswith(".tmp")] == []


def test_claude_settings_keep_every_key_and_rule_of_the_users(tmp_path: Path) -> None:
    mine = {
        "model": "opus",
        "permissions": {"allow": ["Bash(npm test)"], "deny": ["Read", "WebFetch"]},
        "hooks": {"PreCompact": [{"matcher": "manual", "hooks": [{"type": "command", "command": "echo hi"}]}]},
        "env": {"A": "1"},
    }
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(mine))
    assert write_config("claude-code", [str(tmp_path)], "settings", PY) == (
        f"leanread: wrote {tmp_path / '.claude' / 'settings.json'} (merged with your keys)."
    )
    merged = json.loads((tmp_path / ".claude" / "settings.json").read_text())
    ours = _ours("claude-code", "settings", tmp_path)
    assert merged == {
        "model": "opus",
        "permissions": {
            "allow": ["Bash(npm test)", "mcp__leanread"],
            "deny": ["Read", "WebFetch", "Edit", "MultiEdit", "Write", "Grep", "Glob", "NotebookEdit"],
        },
        "hooks": {
            "PreCompact": [mine["hooks"]["PreCompact"][0], ours["hooks"]["PreCompact"][0]],  # type: ignore[index]
            "PreToolUse": ours["hooks"]["PreToolUse"],
            "SessionStart": ours["hooks"]["SessionStart"],
        },
        "env": {"A": "1"},
    }


def test_a_value_of_the_users_that_ours_replaces_is_named(tmp_path: Path) -> None:
    mine = {
        "model": "x/y",
        "tools": {"read": True, "bash": True},
        "mcp": {"other": {"type": "local", "command": ["o"]}},
    }
    (tmp_path / "opencode.json").write_text(json.dumps(mine, indent=4))
    assert write_config("opencode", [str(tmp_path)], "server", PY) == (
        f"leanread: wrote {tmp_path / 'opencode.json'} (merged with your keys; replaced tools.read)."
    )
    merged = json.loads((tmp_path / "opencode.json").read_text())
    assert merged["model"] == "x/y" and merged["mcp"]["other"] == {"type": "local", "command": ["o"]}
    assert merged["tools"] == {
        "read": False,
        "bash": True,
        **dict.fromkeys(["edit", "write", "grep", "glob"], False),
    } | {
        "list": False,
        "patch": False,
    }
    assert merged["mcp"]["leanread"]["command"] == [PY, *SERVE, str(tmp_path)]


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('{"servers": {}, }', "line 1, column 17"),
        ('// mine\n{"servers": {}}\n', "line 1, column 1"),
        ('{"servers": {}}\n\n{oops', "line 3, column 1"),
    ],
)
def test_a_file_that_does_not_parse_is_refused_and_left_as_it_is(tmp_path: Path, text: str, why: str) -> None:
    (tmp_path / ".vscode").mkdir()
    target = tmp_path / ".vscode" / "mcp.json"
    target.write_text(text)
    done = subprocess.run(
        [sys.executable, "-m", "leanread", "mcp-config", "vscode", "--write", "--root", str(tmp_path)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        f"{target} is not valid JSON ({why}); fix it or move it aside, then run this again: nothing was written.\n"
    )
    assert target.read_text() == text and _listing(tmp_path) == [".vscode", ".vscode/mcp.json"]


def test_a_json_file_that_is_not_an_object_is_refused(tmp_path: Path) -> None:
    (tmp_path / ".cursor").mkdir()
    (tmp_path / ".cursor" / "mcp.json").write_text("[1, 2]\n")
    with pytest.raises(ClientFileError) as caught:
        write_config("cursor", [str(tmp_path)], "server", PY)
    assert str(caught.value) == (
        f"{tmp_path / '.cursor' / 'mcp.json'} holds a JSON list, not an object; fix it or move it aside, then run "
        "this again: nothing was written."
    )
    assert (tmp_path / ".cursor" / "mcp.json").read_text() == "[1, 2]\n"


def test_the_file_a_link_points_to_is_updated_and_its_mode_kept(tmp_path: Path) -> None:
    dotfiles, project = tmp_path / "dotfiles", tmp_path / "project"
    dotfiles.mkdir()
    (project / ".gemini").mkdir(parents=True)
    (dotfiles / "gemini.json").write_text('{"theme": "dark"}')
    os.chmod(dotfiles / "gemini.json", 0o600)
    (project / ".gemini" / "settings.json").symlink_to(dotfiles / "gemini.json")
    write_config("gemini", [str(project)], "server", PY)
    assert (project / ".gemini" / "settings.json").is_symlink()
    assert json.loads((dotfiles / "gemini.json").read_text())["theme"] == "dark"
    assert stat.S_IMODE((dotfiles / "gemini.json").stat().st_mode) == 0o600


def test_the_opencode_plugin_is_leanreads_own_file(tmp_path: Path) -> None:
    plugin = tmp_path / ".opencode" / "plugin" / "leanread.js"
    assert write_config("opencode", [str(tmp_path)], "plugin", PY) == f"leanread: wrote {plugin}."
    assert plugin.read_text() == render("opencode", [str(tmp_path)], "plugin", PY)
    assert write_config("opencode", [str(tmp_path)], "plugin", PY) == (
        f"leanread: {plugin} already holds this configuration; nothing was written."
    )


# --- Codex's TOML -------------------------------------------------------------------------------

COMMAND = [PY, *SERVE, "/home/me/repo"]
TABLE = (
    f'[mcp_servers.leanread]\ncommand = "{PY}"\nargs = ["-P", "-m", "leanread", "serve", "--root", "/home/me/repo"]\n'
)


def test_codex_table_is_appended_and_the_users_bytes_kept() -> None:
    mine = '# my settings\nmodel = "o3"  # the best\n\n[mcp_servers.other]\ncommand = "x"\n'
    assert merge_codex(mine, COMMAND) == mine + "\n" + TABLE
    assert merge_codex(mine.rstrip("\n"), COMMAND) == mine.rstrip("\n") + "\n\n" + TABLE
    assert merge_codex("", COMMAND) == TABLE
    assert merge_codex(mine + "\n" + TABLE, COMMAND) == mine + "\n" + TABLE  # a second run: the same text


def test_codex_table_of_another_command_gets_ours_and_keeps_its_other_keys() -> None:
    mine = (
        'model = "o3"\n\n[mcp_servers.leanread]\n# pinned\ncommand = "old"\nargs = [\n  "a",\n  "b]\\"]",  # x]\n]\n'
        'startup_timeout_sec = 30\n\n[mcp_servers.leanread.env]\nX = "1"\n'
    )
    assert merge_codex(mine, COMMAND) == (
        'model = "o3"\n\n' + TABLE + '# pinned\nstartup_timeout_sec = 30\n\n[mcp_servers.leanread.env]\nX = "1"\n'
    )


@pytest.mark.parametrize(
    "mine", ['mcp_servers = { leanread = { command = "old" } }\n', 'mcp_servers.leanread.command = "old"\n']
)
def test_codex_table_in_a_form_that_cannot_be_edited_is_refused(mine: str) -> None:
    with pytest.raises(ClientFileError) as caught:
        merge_codex(mine, COMMAND, "/h/.codex/config.toml")
    assert str(caught.value) == (
        "/h/.codex/config.toml defines mcp_servers.leanread in a form leanread cannot edit (inline or with dotted "
        "keys); replace it by hand with the [mcp_servers.leanread] table `leanread mcp-config codex` prints."
    )


def test_codex_write_goes_to_codex_home_and_refuses_bad_toml(tmp_path: Path) -> None:
    home = tmp_path / "codex-home"
    env = {"CODEX_HOME": str(home)}
    assert write_config("codex", [str(tmp_path)], "server", PY, env) == f"leanread: wrote {home / 'config.toml'}."
    assert tomllib.loads((home / "config.toml").read_text()) == {
        "mcp_servers": {"leanread": {"command": PY, "args": [*SERVE, str(tmp_path)]}}
    }
    assert write_config("codex", ["/elsewhere"], "server", PY, env) == (
        f"leanread: wrote {home / 'config.toml'} (merged with your keys; replaced mcp_servers.leanread.args)."
    )
    (home / "config.toml").write_text("x = = 1\n")
    with pytest.raises(ClientFileError) as caught:
        write_config("codex", [str(tmp_path)], "server", PY, env)
    assert str(caught.value) == (
        f"{home / 'config.toml'} is not valid TOML (Invalid value (at line 1, column 5)); fix it or move it aside, "
        "then run this again: nothing was written."
    )
    assert (home / "config.toml").read_text() == "x = = 1\n"


_NAMES = st.text("abcdefgh", min_size=1, max_size=4)
_VALUES = st.integers(-5, 5) | st.text("xyz ", max_size=3) | st.booleans()


@settings(max_examples=80, deadline=None)
@given(
    tables=st.dictionaries(_NAMES, st.dictionaries(_NAMES, _VALUES, max_size=3), max_size=3),
    extra=st.none() | st.dictionaries(st.sampled_from(["startup_timeout_sec", "cwd", "enabled"]), _VALUES, max_size=2),
    old=st.booleans(),
)
def test_codex_merge_gives_exactly_ours_and_keeps_everything_else(
    tables: dict[str, dict[str, Any]], extra: dict[str, Any] | None, old: bool
) -> None:
    def value(v: Any) -> str:
        return ("true" if v else "false") if isinstance(v, bool) else json.dumps(v)

    text = "".join(
        f"[t{name}]\n" + "".join(f"k{key} = {value(v)}\n" for key, v in body.items()) + "\n"
        for name, body in tables.items()
    )
    if extra is not None:
        head = 'command = "old"\nargs = ["x"]\n' if old else ""
        text += "[mcp_servers.leanread]\n" + head + "".join(f"{k} = {value(v)}\n" for k, v in extra.items())
    merged = merge_codex(text, COMMAND)
    expected = tomllib.loads(text)
    expected.setdefault("mcp_servers", {}).setdefault("leanread", {}).update(command=PY, args=COMMAND[1:])
    assert tomllib.loads(merged) == expected
    assert merge_codex(merged, COMMAND) == merged
    if extra is None:
        assert merged.startswith(text)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.text("ab", max_size=2),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text("abc", min_size=1, max_size=2), inner, max_size=3)
    ),
    max_leaves=12,
)


def _paths(data: Any, at: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    if not isinstance(data, dict):
        return {at}
    return {at} | {p for key, value in data.items() for p in _paths(value, (*at, key))}


@settings(max_examples=200, deadline=None)
@given(theirs=st.dictionaries(st.text("abc", min_size=1, max_size=2), _JSON, max_size=4), ours=_JSON)
def test_merge_json_keeps_every_key_of_theirs_is_idempotent_and_holds_ours(theirs: dict[str, Any], ours: Any) -> None:
    if not isinstance(ours, dict):
        ours = {"k": ours}
    replaced: list[str] = []
    merged = merge_json(theirs, ours, replaced=replaced)
    kept = _paths(merged)
    for path in _paths(theirs):  # a key of theirs goes only under a value ours replaced, and that is named
        assert path in kept or any(".".join(path[:n]) in replaced for n in range(1, len(path)))
    assert merge_json(merged, ours) == merged
    again: list[str] = []
    merge_json(merged, ours, replaced=again)
    assert again == []


# --- the real clients -----------------------------------------------------------------------------


def _mcp_config_write(client: str, root: Path, env: dict[str, str], *part: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "leanread", "mcp-config", client, "--root", str(root), "--write", *part],
        capture_output=True, text=True, timeout=60, env=env, check=True,
    )  # fmt: skip
    return done.stdout


def test_opencode_connects_with_the_written_files_and_keeps_the_users(tmp_path: Path) -> None:
    opencode = client_binary("opencode")
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    (project / "opencode.json").write_text(
        json.dumps({"$schema": "https://opencode.ai/config.json", "share": "disabled"})
    )
    env = client_env(home)
    assert _mcp_config_write("opencode", project, env).startswith(f"leanread: wrote {project / 'opencode.json'}")
    _mcp_config_write("opencode", project, env, "--part", "plugin")
    assert json.loads((project / "opencode.json").read_text())["share"] == "disabled"
    listed = subprocess.run(
        [opencode, "mcp", "list"], cwd=project, env=env, capture_output=True, text=True, timeout=120
    )
    assert listed.returncode == 0, listed.stderr
    assert "leanread" in listed.stdout and "connected" in listed.stdout, listed.stdout


def test_claude_code_lists_the_written_project_server_as_pending_approval(tmp_path: Path) -> None:
    claude = client_binary("claude")
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    env = client_env(home)
    _mcp_config_write("claude-code", project, env)
    listed = subprocess.run([claude, "mcp", "list"], cwd=project, env=env, capture_output=True, text=True, timeout=120)
    assert f"leanread: {sys.executable} -P -m leanread serve --root {project} - ⏸ Pending approval" in listed.stdout


def test_gemini_disables_the_written_server_until_the_folder_is_trusted(tmp_path: Path) -> None:
    gemini = client_binary("gemini")
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    env = client_env(home)
    _mcp_config_write("gemini", project, env)
    shown = f"leanread: {sys.executable} -P -m leanread serve --root {project} (stdio)"

    def listed() -> str:
        done = subprocess.run(
            [gemini, "mcp", "list"], cwd=project, env=env, capture_output=True, text=True, timeout=120
        )
        return done.stdout + done.stderr

    assert f"{shown} - Disabled" in listed()
    (home / ".gemini").mkdir(exist_ok=True)
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(project): "TRUST_FOLDER"}))
    assert f"{shown} - Connected" in listed()
