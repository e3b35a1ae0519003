"""The sandbox cannot be loosened from inside: a project's file only tightens it, and the tools do
not write leanread's own configuration or ``.git``."""

from __future__ import annotations

import os
from pathlib import Path

from clirun import leanread


def test_a_written_leanread_toml_does_not_open_env_to_the_next_run(root: Path) -> None:
    (root / ".env").write_text("API_KEY=sk-live-123\n")
    (root / "leanread.toml").write_text("deny = []\n")
    done = leanread("grep", "sk-live", cwd=root)
    user_file = Path(os.environ["XDG_CONFIG_HOME"], "leanread", "config.toml")
    assert (done.returncode, done.stdout) == (
        0,
        "<path>.</path>\n<type>grep</type>\n<content>\n(No matches in the workspace; gitignored, binary and "
        "deny-listed files are not searched.)\n</content>\n",
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
