"""Configuration: limits and policy from pyproject.toml or leanread.toml, then overrides."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from leanread.config.settings import DEFAULT_ALLOW, DEFAULT_DENY, Limits, Policy, Settings, load_settings
from leanread.errors import ConfigError, Denied, LeanreadError
from leanread.files.workspace import Workspace
from leanread.tools import description

KEYS = (
    "max_lines, max_bytes, max_line_chars, sniff_bytes, index_bytes, outline_lines, outline_bytes, "
    "image_max_side, image_max_bytes, read_mode, dedup, "
    "deny, allow, extra_deny, instruction_files, root_instructions, allow_write_protected, "
    "focus_backend, focus_url, focus_model, focus_api_key_env, focus_timeout, transcript"
)


def config_error(root: Path, overrides: dict[str, object] | None = None) -> str:
    with pytest.raises(ConfigError) as info:
        load_settings(root, overrides)
    assert isinstance(info.value, LeanreadError)
    return str(info.value)


def test_defaults_without_any_file(root: Path) -> None:
    settings = load_settings(root)
    assert settings == Settings() == Settings(limits=Limits(), policy=Policy())
    assert settings.policy == Policy(deny=DEFAULT_DENY, allow=DEFAULT_ALLOW)


def test_missing_root_gives_defaults(tmp_path: Path) -> None:
    assert load_settings(tmp_path / "nowhere") == Settings()


def test_pyproject_without_a_leanread_table(root: Path) -> None:
    (root / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.ruff]\nline-length = 100\n')
    assert load_settings(root) == Settings()
    (root / "pyproject.toml").write_text('tool = "not a table"\n')
    assert load_settings(root) == Settings()


def test_pyproject_table(root: Path) -> None:
    (root / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n'
        "[tool.leanread]\n"
        "max_lines = 500\nmax_bytes = 20000\nmax_line_chars = 300\nsniff_bytes = 1024\n"
        'extra_deny = ["*.secret"]\nallow = ["*.example"]\n'
    )
    assert load_settings(str(root)) == Settings(
        limits=Limits(max_lines=500, max_bytes=20000, max_line_chars=300, sniff_bytes=1024),
        policy=Policy(deny=(*DEFAULT_DENY, "*.secret"), allow=("*.example",)),
    )


def test_leanread_toml_top_level(root: Path) -> None:
    (root / "leanread.toml").write_text('max_lines = 100\nextra_deny = ["*.secret"]\n')
    settings = load_settings(root)
    assert settings.limits == Limits(max_lines=100)
    assert settings.policy == Policy(deny=(*DEFAULT_DENY, "*.secret"))


def test_leanread_toml_wins_over_pyproject(root: Path) -> None:
    (root / "pyproject.toml").write_text('[tool.leanread]\nmax_lines = 10\ndeny = ["x"]\n')
    (root / "leanread.toml").write_text("max_bytes = 4096\n")
    # leanread.toml is the whole configuration: nothing of pyproject's table is merged in.
    assert load_settings(root) == Settings(limits=Limits(max_bytes=4096))


def test_extra_deny_adds_to_the_defaults(root: Path) -> None:
    (root / "leanread.toml").write_text('extra_deny = ["*.secret", ".env", "*.secret"]\n')
    assert load_settings(root).policy.deny == (*DEFAULT_DENY, "*.secret")


def test_a_project_file_cannot_loosen_the_sandbox(root: Path, tmp_path: Path) -> None:
    user_file = tmp_path / "user.toml"
    (root / "leanread.toml").write_text(
        'deny = ["*.secret"]\nallow = ["*.sample", "*.pem"]\nmax_bytes = 999999\nmax_lines = 10\n'
        "allow_write_protected = true\n"
    )
    settings = load_settings(root)
    assert settings.limits == Limits(max_lines=10)
    assert settings.policy == Policy(deny=(*DEFAULT_DENY, "*.secret"), allow=("*.sample",))
    where = root / "leanread.toml"
    assert settings.warnings == (
        f"{where} tries to loosen leanread's sandbox (max_bytes = 999999 (above 51200); dropping "
        f"{len(DEFAULT_DENY)} patterns (.env, .env.*, .envrc, …) from the deny list; allowing *.pem past the "
        "deny list; allow_write_protected = true), but a project's own file can only tighten it, so that part "
        f"is ignored; put it in your own config file {Path(os.environ['XDG_CONFIG_HOME'], 'leanread', 'config.toml')} "
        "instead.",
    )
    (root / "leanread.toml").write_text("deny = []\n")
    assert load_settings(root).policy == Policy()
    assert "(dropping" in load_settings(root).warnings[0]
    assert not user_file.exists()


def test_the_users_file_may_loosen_and_the_project_only_tightens_that(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "xdg" / "leanread"
    config.mkdir(parents=True)
    (config / "config.toml").write_text(
        'deny = [".env"]\nallow = []\nmax_bytes = 100000\nallow_write_protected = true\n'
    )
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert load_settings(root) == Settings(
        limits=Limits(max_bytes=100000), policy=Policy(deny=(".env",), allow=(), allow_write_protected=True)
    )
    (root / "leanread.toml").write_text('max_bytes = 200000\nextra_deny = ["*.pem"]\n')
    settings = load_settings(root)
    assert (settings.limits, settings.policy.deny) == (Limits(max_bytes=100000), (".env", "*.pem"))
    assert settings.warnings[0].startswith(
        f"{root / 'leanread.toml'} tries to loosen leanread's sandbox (max_bytes = 200000 (above 100000)), "
    )
    # $LEANREAD_CONFIG names the file directly.
    other = tmp_path / "other.toml"
    other.write_text("max_lines = 7\n")
    monkeypatch.setenv("LEANREAD_CONFIG", str(other))
    assert load_settings(tmp_path / "nowhere") == Settings(limits=Limits(max_lines=7))


def test_a_bad_user_file_is_named(root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "user.toml").write_text("max_lines = 0\n")
    monkeypatch.setenv("LEANREAD_CONFIG", str(tmp_path / "user.toml"))
    assert config_error(root) == (
        f"max_lines in {tmp_path / 'user.toml'} must be a whole number of at least 1 (got 0); "
        "for example max_lines = 2000."
    )


def test_overrides_apply_last_and_none_is_ignored(root: Path) -> None:
    (root / "leanread.toml").write_text('max_lines = 100\nmax_bytes = 9000\nextra_deny = ["*.secret"]\n')
    settings = load_settings(
        root,
        {"max_lines": 50, "max_bytes": None, "max_line_chars": None, "extra_deny": ("*.vault",), "allow": None},
    )
    assert settings.limits == Limits(max_lines=50, max_bytes=9000)
    assert settings.policy == Policy(deny=(*DEFAULT_DENY, "*.secret", "*.vault"))
    assert load_settings(root, {"deny": ["only.this"]}).policy.deny == ("only.this",)
    assert load_settings(root, {}) == load_settings(root)


def test_settings_are_frozen(root: Path) -> None:
    settings = load_settings(root)
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.limits = Limits(max_lines=1)  # type: ignore[misc]


def test_settings_drive_the_workspace_and_the_descriptions(root: Path) -> None:
    (root / "leanread.toml").write_text('max_lines = 123\nextra_deny = ["*.secret"]\n')
    (root / "db.secret").write_text("pw\n")
    settings = load_settings(root)
    with pytest.raises(Denied) as info:
        Workspace([root], settings.policy).resolve("db.secret")
    assert str(info.value) == (
        "db.secret is on leanread's deny list (it matches *.secret, a name kept for secrets); "
        "ask the user for the value you need instead."
    )
    assert "123" in description("read", settings.limits)


# --- Errors: one sentence naming the file, the key and what is expected ------------------------


def test_unknown_key_in_pyproject(root: Path) -> None:
    (root / "pyproject.toml").write_text("[tool.leanread]\nmax_line = 100\n")
    assert config_error(root) == (
        f"Unknown key 'max_line' in [tool.leanread] of {root / 'pyproject.toml'}; use one of {KEYS}."
    )


def test_unknown_key_in_leanread_toml(root: Path) -> None:
    (root / "leanread.toml").write_text("[tool.leanread]\nmax_lines = 1\n")
    assert config_error(root) == f"Unknown key 'tool' in {root / 'leanread.toml'}; use one of {KEYS}."


def test_unknown_override(root: Path) -> None:
    assert config_error(root, {"max_tokens": None}) == (
        f"Unknown key 'max_tokens' in the overrides; use one of {KEYS}."
    )


@pytest.mark.parametrize(
    ("toml", "shown"),
    [('"200"', "'200'"), ("true", "True"), ("0", "0"), ("-5", "-5"), ("2.5", "2.5"), ("[1]", "[1]")],
)
def test_limits_must_be_whole_numbers_of_at_least_one(root: Path, toml: str, shown: str) -> None:
    (root / "leanread.toml").write_text(f"max_lines = {toml}\n")
    assert config_error(root) == (
        f"max_lines in {root / 'leanread.toml'} must be a whole number of at least 1 (got {shown}); "
        "for example max_lines = 2000."
    )


def test_limit_override_of_the_wrong_type(root: Path) -> None:
    assert config_error(root, {"sniff_bytes": "4k"}) == (
        "sniff_bytes in the overrides must be a whole number of at least 1 (got '4k'); for example sniff_bytes = 8192."
    )


@pytest.mark.parametrize(
    ("key", "toml", "shown", "example"),
    [
        ("deny", '".env"', "'.env'", '[".env", "*.pem"]'),
        ("allow", "[1, 2]", "[1, 2]", '["*.example"]'),
        ("extra_deny", '[""]', "['']", '["*.secret"]'),
    ],
)
def test_patterns_must_be_lists_of_strings(root: Path, key: str, toml: str, shown: str, example: str) -> None:
    (root / "pyproject.toml").write_text(f"[tool.leanread]\n{key} = {toml}\n")
    assert config_error(root) == (
        f"{key} in [tool.leanread] of {root / 'pyproject.toml'} must be a list of non-empty file-name "
        f"patterns (got {shown}); for example {key} = {example}."
    )


def test_patterns_are_names_separated_by_single_slashes(root: Path) -> None:
    (root / "leanread.toml").write_text('extra_deny = ["secrets//*"]\n')
    assert config_error(root) == (
        f"extra_deny in {root / 'leanread.toml'} has the pattern 'secrets//*', which has an empty, . or .. "
        "part; write names separated by single slashes, such as .kube/config."
    )
    (root / "leanread.toml").write_text('instruction_files = ["docs/AGENTS.md"]\n')
    assert config_error(root) == (
        f"instruction_files in {root / 'leanread.toml'} has 'docs/AGENTS.md', but instruction files are "
        'named, not located; use a file name such as "AGENTS.md".'
    )
    (root / "leanread.toml").write_text('extra_deny = ["secrets/*"]\n')
    assert load_settings(root).policy.deny == (*DEFAULT_DENY, "secrets/*")


def test_leanread_table_must_be_a_table(root: Path) -> None:
    (root / "pyproject.toml").write_text("[tool]\nleanread = 3\n")
    assert config_error(root) == (
        f"[tool.leanread] of {root / 'pyproject.toml'} must be a table (got 3); write it as a [tool.leanread] section."
    )


def test_toml_syntax_error_names_the_file(root: Path) -> None:
    (root / "leanread.toml").write_text("max_lines 100\n")
    message = config_error(root)
    assert message.startswith(f"Cannot parse {root / 'leanread.toml'}: ")
    assert "line 1" in message
    assert message.endswith("; fix the TOML syntax there.")


def test_broken_pyproject_is_an_error_not_silently_defaults(root: Path) -> None:
    # A silent fallback would drop a user's deny list.
    (root / "pyproject.toml").write_text("[tool.leanread\n")
    assert config_error(root).startswith(f"Cannot parse {root / 'pyproject.toml'}: ")


def test_a_folder_named_leanread_toml_is_ignored(root: Path) -> None:
    (root / "leanread.toml").mkdir()
    (root / "pyproject.toml").write_text("[tool.leanread]\nmax_lines = 7\n")
    assert load_settings(root).limits.max_lines == 7
