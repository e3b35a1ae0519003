"""Limits and policy read from the user's and the project's configuration (what they are:
``limits``, ``policy``).

The tool descriptions quote the limits from here, so they never drift. ``load_settings`` reads
the user's own file (``user_config_path()``), then ``[tool.leanread]`` of
``<root>/pyproject.toml`` or the top level of ``<root>/leanread.toml`` (the latter wins when both
exist), which may only tighten what is in force (see ``tighten``), and applies overrides such as
CLI flags on top.
"""

from __future__ import annotations

import os
import tomllib
import urllib.parse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .limits import (
    DEDUP_MODES,
    FOCUS_BACKENDS,
    INT_LIMITS,
    MAX_FOCUS_TIMEOUT,
    READ_MODES,
    Focus,
    Limits,
    Settings,
)
from .policy import DEFAULT_ALLOW, DEFAULT_DENY, DEFAULT_INSTRUCTION_FILES, Policy, pattern_problem
from .tighten import tighten

__all__ = [
    "DEFAULT_ALLOW",
    "DEFAULT_DENY",
    "DEFAULT_INSTRUCTION_FILES",
    "READ_MODES",
    "Focus",
    "Limits",
    "Policy",
    "Settings",
    "load_settings",
    "user_config_path",
]


_INT_KEYS = INT_LIMITS
_LIST_KEYS = ("deny", "allow", "extra_deny", "instruction_files")
#: Every key ``load_settings`` accepts, in the order error messages list them.
_FOCUS_KEYS = ("focus_backend", "focus_url", "focus_model", "focus_api_key_env", "focus_timeout")
_BOOL_KEYS = ("root_instructions", "allow_write_protected")
SETTING_KEYS: tuple[str, ...] = (*_INT_KEYS, "read_mode", "dedup", *_LIST_KEYS, *_BOOL_KEYS, *_FOCUS_KEYS, "transcript")


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"Cannot parse {path}: {exc}; fix the TOML syntax there.") from None
    except OSError as exc:
        raise ConfigError(f"Cannot read {path}: {exc.strerror}; check its permissions.") from None


def _file_section(root: Path) -> tuple[Mapping[str, object], str]:
    """The leanread table of the project and how to name it in messages ({} when none)."""
    own = root / "leanread.toml"
    if own.is_file():
        return _read_toml(own), str(own)
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file():
        return {}, ""
    tool = _read_toml(pyproject).get("tool")
    section = tool.get("leanread") if isinstance(tool, dict) else None
    where = f"[tool.leanread] of {pyproject}"
    if section is None:
        return {}, where
    if not isinstance(section, dict):
        raise ConfigError(f"{where} must be a table (got {section!r}); write it as a [tool.leanread] section.")
    return section, where


def _int_value(key: str, value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(
            f"{key} in {where} must be a whole number of at least 1 (got {value!r}); "
            f"for example {key} = {getattr(Limits, key)}."
        )
    return value


_EXAMPLES = {
    "deny": '[".env", "*.pem"]',
    "allow": '["*.example"]',
    "extra_deny": '["*.secret"]',
    "instruction_files": '["AGENTS.md"]',
}


def _patterns_value(key: str, value: object, where: str) -> tuple[str, ...]:
    if not isinstance(value, list | tuple) or not all(isinstance(item, str) and item for item in value):
        raise ConfigError(
            f"{key} in {where} must be a list of non-empty file-name patterns (got {value!r}); "
            f"for example {key} = {_EXAMPLES[key]}."
        )
    for item in value:
        if key == "instruction_files" and ("/" in item or os.sep in item):
            raise ConfigError(
                f"{key} in {where} has {item!r}, but instruction files are named, not located; "
                'use a file name such as "AGENTS.md".'
            )
        problem = pattern_problem(item)
        if problem is not None:
            raise ConfigError(f"{key} in {where} has the pattern {item!r}, which {problem}.")
    return tuple(value)


def _choice(key: str, value: object, choices: tuple[str, ...], where: str) -> str:
    """``value`` when it is one of ``choices``."""
    if value not in choices:
        raise ConfigError(f"{key} in {where} must be one of {', '.join(choices)} (got {value!r}).")
    return str(value)


#: What only the user may choose (flags, library arguments), never a project's own file: where
#: the files read and the API key in the named variable are sent.
REMOTE_ONLY_FROM_USER = ("focus_url", "focus_api_key_env")


def _url_value(value: str, where: str) -> str:
    """``value`` when it is an http(s) URL with a host."""
    try:
        parts = urllib.parse.urlsplit(value)
        _ = parts.port  # raises on a port that is not a number from 0 to 65535
        valid = parts.scheme in ("http", "https") and bool(parts.hostname)
        valid = valid and not any(c.isspace() or not c.isprintable() for c in value)
    except ValueError:
        valid = False
    if valid and (parts.username is not None or parts.password is not None):
        raise ConfigError(
            f"focus_url in {where} must not carry a user name or password; put the API key in the "
            "variable --focus-api-key-env names instead."
        )
    if not valid:
        raise ConfigError(
            f"focus_url in {where} must be an http or https URL with a host and at most a numeric port "
            f"(got {value!r}); "
            'for example "http://localhost:8000/v1".'
        )
    return value


def _apply_focus(given: Mapping[str, object], where: str, focus: dict[str, Any], from_project: bool) -> None:
    """Check the ``focus_*`` keys of ``given`` and merge them into ``focus``; a project's own
    file (``from_project``) may not name a remote backend, its URL or its key variable."""
    if from_project:
        for key in REMOTE_ONLY_FROM_USER:
            if key in given:
                raise ConfigError(
                    f"{key} cannot be set in {where}: a project's own file must not decide where its files "
                    f"and your API keys are sent; pass --{key.replace('_', '-')} to leanread instead."
                )
        if given.get("focus_backend") in ("llm", "swe-pruner"):
            raise ConfigError(
                f'focus_backend = "{given["focus_backend"]}" cannot be set in {where}: a remote backend is '
                "the user's choice; pass --focus-backend with --focus-url to leanread instead."
            )
    if "focus_backend" in given:
        focus["backend"] = _choice("focus_backend", given["focus_backend"], FOCUS_BACKENDS, where)
    for key in ("focus_url", "focus_model", "focus_api_key_env"):
        if key in given:
            value = given[key]
            if not isinstance(value, str) or not value.strip():
                raise ConfigError(f"{key} in {where} must be a non-empty string (got {value!r}).")
            focus[key.removeprefix("focus_")] = value
    if "url" in focus:
        _url_value(focus["url"], where)
    if "focus_timeout" in given:
        value = given["focus_timeout"]
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= MAX_FOCUS_TIMEOUT:
            raise ConfigError(
                f"focus_timeout in {where} must be a number of seconds above 0 and at most "
                f"{MAX_FOCUS_TIMEOUT:.0f} (got {value!r}); for example focus_timeout = 20."
            )
        focus["timeout"] = float(value)


def _apply(
    values: Mapping[str, object],
    where: str,
    limits: dict[str, Any],
    policy: dict[str, Any],
    focus: dict[str, Any],
    from_project: bool = False,
) -> None:
    """Check ``values`` and merge them into ``limits``, ``policy`` and ``focus`` (None values
    are skipped)."""
    for key in values:
        if key not in SETTING_KEYS:
            raise ConfigError(f"Unknown key {key!r} in {where}; use one of {', '.join(SETTING_KEYS)}.")
    given = {key: value for key, value in values.items() if value is not None}
    for key in _INT_KEYS:
        if key in given:
            limits[key] = _int_value(key, given[key], where)
    if "read_mode" in given:
        limits["read_mode"] = _choice("read_mode", given["read_mode"], READ_MODES, where)
    if "dedup" in given:
        limits["dedup"] = _choice("dedup", given["dedup"], DEDUP_MODES, where)
    for key in ("deny", "allow", "instruction_files"):
        if key in given:
            policy[key] = _patterns_value(key, given[key], where)
    for key in _BOOL_KEYS:
        if key in given:
            if not isinstance(given[key], bool):
                raise ConfigError(f"{key} in {where} must be true or false (got {given[key]!r}).")
            policy[key] = given[key]
    if "extra_deny" in given:
        extra = _patterns_value("extra_deny", given["extra_deny"], where)
        policy["deny"] = tuple(dict.fromkeys(policy["deny"] + extra))
    _apply_focus(given, where, focus, from_project)


def user_config_path() -> Path:
    """The user's own configuration file: ``$LEANREAD_CONFIG`` when set, else
    ``$XDG_CONFIG_HOME/leanread/config.toml`` (``~/.config/leanread/config.toml`` without
    ``XDG_CONFIG_HOME``). It need not exist."""
    named = os.environ.get("LEANREAD_CONFIG")
    if named:
        return Path(named).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "leanread" / "config.toml"


def load_settings(
    root: str | Path, overrides: Mapping[str, object] | None = None, overrides_from: str = "the overrides"
) -> Settings:
    """The settings of the project at ``root``: defaults, the user's own file, the project's
    file (which may only tighten them), then ``overrides``.

    The user's file is ``user_config_path()`` (keys at the top level), applied when it exists.
    The project's file is ``<root>/leanread.toml`` (keys at the top level) if it exists,
    otherwise the ``[tool.leanread]`` table of ``<root>/pyproject.toml``.
    Keys: the whole-number limits of :class:`Limits` (``max_lines``, ``max_bytes``, …,
    ``image_max_bytes``; at least 1), ``read_mode``, ``deny`` and ``allow`` (lists of file-name
    patterns replacing the lists in force), ``extra_deny`` (patterns added to the deny list in
    force), ``instruction_files`` (names), ``root_instructions`` and ``allow_write_protected``
    (true/false), the focus backend (``focus_backend``, ``focus_url``, ``focus_model``,
    ``focus_api_key_env``, ``focus_timeout``; see :class:`Focus`) and ``transcript`` (true/false,
    default true: keep each call's arguments and shown text for ``leanread inspect``; a project's
    file may only turn it off). ``overrides`` (named
    ``overrides_from`` in error messages, e.g. "the command-line options") takes the same keys
    and is applied last; its None values are ignored, so a CLI can pass every flag as given.

    A project's file may add deny patterns, drop allow patterns and lower limits, but what would
    loosen (fewer deny patterns, new exceptions, higher limits, ``allow_write_protected``) is
    ignored and named in ``Settings.warnings``; a remote focus backend, its ``focus_url`` and
    ``focus_api_key_env`` from a project's file are an error: the project being read must not
    choose where its files and the user's API key are sent.

    Raises:
        ConfigError: a file cannot be read or parsed, or a key is unknown or of the wrong
            type; the message names the file, the key and what is expected.
    """
    limits: dict[str, Any] = {}
    policy: dict[str, Any] = {"deny": DEFAULT_DENY, "allow": DEFAULT_ALLOW}
    focus: dict[str, Any] = {}
    user_file = user_config_path()
    transcript = True
    if user_file.is_file():
        user_values = _read_toml(user_file)
        _apply(user_values, str(user_file), limits, policy, focus)
        transcript = _flag(user_values, "transcript", str(user_file), transcript)
    section, where = _file_section(Path(root))
    transcript = transcript and _flag(section, "transcript", where, True)  # a project may only turn it off
    proposed_limits, proposed_policy = dict(limits), dict(policy)
    _apply(section, where, proposed_limits, proposed_policy, focus, from_project=True)
    defaults = {key: getattr(Limits, key) for key in INT_LIMITS}
    ignored = tighten(limits, policy, proposed_limits, proposed_policy, defaults)
    limits, policy = proposed_limits, proposed_policy
    warnings: tuple[str, ...] = ()
    if ignored:
        warnings = (
            f"{where} tries to loosen leanread's sandbox ({'; '.join(ignored)}), but a project's own file "
            f"can only tighten it, so that part is ignored; put it in your own config file {user_file} instead.",
        )
    if overrides:
        _apply(overrides, overrides_from, limits, policy, focus)
        transcript = _flag(overrides, "transcript", overrides_from, transcript)
    _check_focus(focus)
    return Settings(Limits(**limits), Policy(**policy), Focus(**focus), warnings, transcript)


def _flag(values: Mapping[str, object], key: str, where: str, default: bool) -> bool:
    """The true/false ``key`` of ``values``, or ``default`` when absent or None.

    Raises:
        ConfigError: the value is not a boolean.
    """
    value = values.get(key)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ConfigError(f"{key} in {where} must be true or false (got {value!r}).")
    return value


_URL_EXAMPLES = {"llm": "http://localhost:8000/v1", "swe-pruner": "http://localhost:8000"}


def _check_focus(focus: Mapping[str, Any]) -> None:
    """Refuse a remote focus backend without its URL (and, for ``llm``, its model)."""
    backend = focus.get("backend", "local")
    if backend in ("llm", "swe-pruner") and not focus.get("url"):
        raise ConfigError(
            f"The {backend} focus backend needs its URL; pass --focus-url (e.g. --focus-url {_URL_EXAMPLES[backend]})."
        )
    if backend == "llm" and not focus.get("model"):
        raise ConfigError(
            "The llm focus backend needs a model name; pass --focus-model (e.g. --focus-model gpt-4o-mini)."
        )
