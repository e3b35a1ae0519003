"""``leanread mcp-config CLIENT --write``: the configuration of ``clientconfig`` merged into the
client's own file, so a quick start neither fails on a missing folder nor overwrites a user's
settings.

- The file is the client's project file in the first root (``.mcp.json``, ``.claude/settings.json``,
  ``opencode.json``, ``.gemini/settings.json``, ``.cursor/mcp.json``, ``.vscode/mcp.json``), or
  Codex's ``config.toml`` in ``$CODEX_HOME`` (default ``~/.codex``); its folders are created.
- JSON is merged key by key (``merge_json``): every key of the user's stays; a list keeps the
  user's items and gains ours that are missing; where a value of the user's differs from ours
  (``tools.read: true`` for opencode), ours replaces it and the answer names that key. Codex's
  TOML is edited as text (``merge_codex``): the user's bytes stay as they are but the
  ``[mcp_servers.leanread]`` table's ``command`` and ``args``.
- Running it twice writes nothing the second time. A file that does not parse is refused in one
  sentence and left as it is. The file is replaced atomically (a temporary file in its folder,
  then ``os.replace``), keeping its mode; a link is followed, so the file it points to is updated.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import LeanreadError
from .clientconfig import codex_table, opencode_plugin, render, server_command

#: Each client's file, relative to the first root (Codex: to ``$CODEX_HOME``), per ``--part``.
FILES: dict[tuple[str, str], str] = {
    ("claude-code", "server"): ".mcp.json",
    ("claude-code", "settings"): ".claude/settings.json",
    ("opencode", "server"): "opencode.json",
    ("opencode", "plugin"): ".opencode/plugin/leanread.js",
    ("codex", "server"): "config.toml",
    ("gemini", "server"): ".gemini/settings.json",
    ("cursor", "server"): ".cursor/mcp.json",
    ("vscode", "server"): ".vscode/mcp.json",
}

#: What to know after writing, per client (one sentence each).
AFTERWARDS: dict[tuple[str, str], str] = {
    ("claude-code", "server"): (
        "Claude Code asks to approve a project's servers the first time `claude` starts in it "
        "(`claude mcp list` shows leanread as Pending approval until then), or add it with `claude mcp add-json`."
    ),
    ("gemini", "server"): (
        "Gemini CLI reads a project's .gemini/settings.json only in a folder it trusts: trust this one when "
        "gemini asks, or with /permissions trust (`gemini mcp list` shows leanread Disabled until then, then "
        "Connected)."
    ),
}

_TABLE = re.compile(r"""^\s*\[\s*mcp_servers\s*\.\s*(?:leanread|"leanread"|'leanread')\s*\]\s*(?:#.*)?$""")
_HEADER = re.compile(r"^\s*\[")
_OUR_KEY = re.compile(r"^\s*(command|args)\s*=")


class ClientFileError(LeanreadError):
    """A client's configuration file cannot be merged into (it does not parse); nothing was written."""


def codex_home(env: Mapping[str, str] | None = None) -> Path:
    """``$CODEX_HOME`` when set (Codex's own variable), else ``~/.codex``."""
    given = (os.environ if env is None else env).get("CODEX_HOME")
    return Path(given) if given else Path.home() / ".codex"


def config_file(client: str, part: str, root: Path, env: Mapping[str, str] | None = None) -> Path:
    """The file ``--write`` merges ``client``'s ``part`` into (see ``FILES``).

    Raises:
        InvalidArgument: an unknown client or part (as ``clientconfig.render``).
    """
    render(client, [str(root)], part)  # refuses what is unknown with the same sentence
    base = codex_home(env) if client == "codex" else root
    return base / FILES[(client, part)]


def merge_json(theirs: Any, ours: Any, at: str = "", replaced: list[str] | None = None) -> Any:
    """``ours`` merged into ``theirs``: objects key by key (every key of ``theirs`` kept), lists as
    ``theirs`` then each item of ``ours`` not already in it, any other value ``ours``; the dotted
    key of each value of ``theirs`` that ``ours`` replaced is appended to ``replaced``.

    ``merge_json(merge_json(a, b), b) == merge_json(a, b)``: a second run changes nothing.
    """
    if isinstance(theirs, dict) and isinstance(ours, dict):
        merged = dict(theirs)
        for key, value in ours.items():
            where = f"{at}.{key}" if at else key
            merged[key] = merge_json(theirs[key], value, where, replaced) if key in theirs else value
        return merged
    if isinstance(theirs, list) and isinstance(ours, list):
        return [*theirs, *(item for item in ours if item not in theirs)]
    if theirs != ours and replaced is not None:
        replaced.append(at)
    return ours


def merge_codex(text: str, command: Sequence[str], shown: str = "config.toml") -> str:
    """Codex's ``config.toml`` text with ``[mcp_servers.leanread]`` running ``command``: the table
    appended when there is none, else its ``command`` and ``args`` lines replaced; every other
    byte kept.

    Raises:
        ClientFileError: ``text`` is not TOML, or defines the table so (inline, or with dotted keys)
            that an edit of its lines could not give the result, checked by parsing it.
    """
    data = _toml(text, shown)
    ours = {"command": command[0], "args": list(command[1:])}
    servers = data.get("mcp_servers", {})
    theirs = servers.get("leanread") if isinstance(servers, dict) else None
    if isinstance(theirs, dict) and all(theirs.get(k) == v for k, v in ours.items()):
        return text
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if _TABLE.match(line)), None)
    if start is None:
        lead = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
        edited = text + lead + codex_table(list(command))
    else:
        end = next((i for i in range(start + 1, len(lines)) if _HEADER.match(lines[i])), len(lines))
        body = _without_keys(lines[start + 1 : end])
        table = codex_table(list(command)).splitlines(keepends=True)
        edited = "".join([*lines[: start + 1], *table[1:], *body, *lines[end:]])
    expected = dict(data)
    expected["mcp_servers"] = {**(servers if isinstance(servers, dict) else {})}
    expected["mcp_servers"]["leanread"] = {**(theirs if isinstance(theirs, dict) else {}), **ours}
    try:
        if tomllib.loads(edited) == expected:
            return edited
    except tomllib.TOMLDecodeError:
        pass
    raise ClientFileError(
        f"{shown} defines mcp_servers.leanread in a form leanread cannot edit (inline or with dotted keys); "
        "replace it by hand with the [mcp_servers.leanread] table `leanread mcp-config codex` prints."
    )


def _without_keys(body: list[str]) -> list[str]:
    """A table's body lines without the ``command`` and ``args`` keys (a multi-line array to its ``]``)."""
    kept: list[str] = []
    depth = 0
    for line in body:
        if depth > 0:
            depth += _brackets(line)
            continue
        if _OUR_KEY.match(line):
            depth = _brackets(line.split("=", 1)[1])
            continue
        kept.append(line)
    return kept


def _brackets(text: str) -> int:
    """``[`` less ``]`` in a line of TOML, leaving out those inside strings and comments."""
    depth, quote, escaped = 0, "", False
    for char in text:
        if quote:
            if escaped:
                escaped = False
            elif quote == '"' and char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
            continue
        if char in "\"'":
            quote = char
        elif char == "#":
            break
        else:
            depth += (char == "[") - (char == "]")
    return depth


def _toml(text: str, shown: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ClientFileError(
            f"{shown} is not valid TOML ({exc}); fix it or move it aside, then run this again: nothing was written."
        ) from None


def _json(text: str, shown: str) -> dict[str, Any]:
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:  # comments and trailing commas (JSONC) included
        raise ClientFileError(
            f"{shown} is not valid JSON (line {exc.lineno}, column {exc.colno}); fix it or move it aside, then run "
            "this again: nothing was written."
        ) from None
    if not isinstance(data, dict):
        raise ClientFileError(
            f"{shown} holds a JSON {type(data).__name__}, not an object; fix it or move it aside, then run this "
            "again: nothing was written."
        )
    return data


def merged_text(
    client: str, part: str, roots: Sequence[str], old: str | None, shown: str, python: str | None = None
) -> tuple[str, list[str]]:
    """The new text of ``client``'s file (``old``: its text, None when there is none) and the
    dotted keys of the user's that it replaced. Pure: no file is touched.

    Raises:
        ClientFileError: ``old`` does not parse.
    """
    if part == "plugin":
        return opencode_plugin(roots, python), []
    if client == "codex":
        command = server_command(roots, python)
        text = merge_codex(old or "", command, shown)
        theirs = tomllib.loads(old).get("mcp_servers", {}).get("leanread", {}) if old else {}
        ours_toml = {"command": command[0], "args": command[1:]}
        changed = [f"mcp_servers.leanread.{k}" for k, v in ours_toml.items() if k in theirs and theirs[k] != v]
        return text, changed
    ours = json.loads(render(client, roots, part, python))
    if client == "claude-code" and part == "server":
        ours = {"mcpServers": {"leanread": ours}}
    if old is None:
        return json.dumps(ours, indent=2, ensure_ascii=False) + "\n", []
    theirs = _json(old, shown)
    replaced: list[str] = []
    merged = merge_json(theirs, ours, replaced=replaced)
    if merged == theirs:
        return old, []
    return json.dumps(merged, indent=2, ensure_ascii=False) + "\n", replaced


def write_config(
    client: str,
    roots: Sequence[str],
    part: str = "server",
    python: str | None = None,
    env: Mapping[str, str] | None = None,
) -> str:
    """Merge ``client``'s configuration into its file (see the module docstring).

    Args:
        roots: absolute workspace roots; the first holds the project files.

    Returns:
        One line to show: ``leanread: wrote /repo/opencode.json (kept your keys; replaced
        tools.read).``, or that the file already held it; then what to know next, if anything.

    Raises:
        InvalidArgument: an unknown client or part.
        ClientFileError: the existing file cannot be read or does not parse, or the folder or the
            file cannot be written; the file is left as it was.
    """
    path = config_file(client, part, Path(roots[0]), env)
    real = Path(os.path.realpath(path))
    try:
        old = real.read_text("utf-8") if real.is_file() else None
    except (OSError, UnicodeDecodeError) as exc:
        raise ClientFileError(f"{path} cannot be read ({_reason(exc)}); nothing was written.") from None
    text, replaced = merged_text(client, part, roots, old, str(path), python)
    after = AFTERWARDS.get((client, part))
    tail = f" {after}" if after else ""
    if text == old:
        return f"leanread: {path} already holds this configuration; nothing was written.{tail}"
    try:
        _replace(real, text)
    except OSError as exc:
        raise ClientFileError(f"{path} cannot be written ({_reason(exc)}); it is left as it was.") from None
    changed = f"; replaced {', '.join(replaced)}" if replaced else ""
    how = "" if old is None else f" (merged with your keys{changed})"
    return f"leanread: wrote {path}{how}.{tail}"


def _reason(exc: Exception) -> str:
    return (exc.strerror if isinstance(exc, OSError) else None) or str(exc) or type(exc).__name__


def _replace(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically: a temporary file in its folder, fsync, ``os.replace``;
    the mode of the file it replaces is kept (a new one gets ``0o644`` less the umask)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o644 & ~umask
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
