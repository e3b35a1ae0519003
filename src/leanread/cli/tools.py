"""The tools from a shell: one command per tool of ``tools.registry``, made from its ``ToolSpec``.

A command takes the tool's ``path`` and its required parameters as arguments, the others as
``--options`` (with the spec's short ``flags``), each with its description as help, then the
shell's own options (``SHELL``: roots, session, metadata, limits); it prints exactly what the
model would see. A bash-only agent (mini-swe-agent) calls them in separate shell calls; with one
``--session`` (or ``$LEANREAD_SESSION``) they share one ledger session in the default SQLite
ledger, so a re-read gets its stub and an edit the grant of the read before it, also when
several run at once. ``context`` has a command of its own (``cli.context``).
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import InvalidArgument
from ..result import ToolResult
from ..tools.registry import TOOLS
from ..tools.spec import Param, ToolSpec
from .app import (
    FocusBackend,
    FocusKeyEnv,
    FocusModel,
    FocusTimeout,
    FocusUrl,
    ImageOut,
    MaxBytes,
    MaxLineChars,
    MaxLines,
    MetaOption,
    RootOption,
    SessionOption,
    WriteProtected,
    app,
    session_for,
    settings_for,
    show,
)

#: The shell's own options: their type and default.
OPTIONS: dict[str, tuple[Any, object]] = {
    "focus_backend": (FocusBackend, None),
    "focus_url": (FocusUrl, None),
    "focus_model": (FocusModel, None),
    "focus_api_key_env": (FocusKeyEnv, None),
    "focus_timeout": (FocusTimeout, None),
    "root": (RootOption, None),
    "session": (SessionOption, None),
    "meta": (MetaOption, False),
    "max_lines": (MaxLines, None),
    "max_bytes": (MaxBytes, None),
    "max_line_chars": (MaxLineChars, None),
    "allow_write_protected": (WriteProtected, False),
    "image_out": (ImageOut, None),
}
_FOCUS = ("focus_backend", "focus_url", "focus_model", "focus_api_key_env", "focus_timeout")
#: The shell's options of each tool's command, after the tool's parameters; a tool not named
#: here gets ``DEFAULT_SHELL``.
SHELL: dict[str, tuple[str, ...]] = {
    "read": (*_FOCUS, "root", "session", "meta", "max_lines", "max_bytes", "max_line_chars", "image_out"),
    "grep": (*_FOCUS, "root", "session", "meta", "max_bytes"),
    "ls": ("root", "meta"),
    "edit": ("root", "session", "meta", "allow_write_protected"),
    "write": ("root", "session", "meta", "allow_write_protected"),
}
DEFAULT_SHELL = ("root", "session", "meta")

#: What a command says it does, when more than that it prints the model's view.
NOTES: dict[str, str] = {
    "grep": " (`--symbol NAME`: a name's uses)",
    "edit": " (it needs the --session of the read that showed the lines)",
    "write": "; the content comes from the argument or, without one, from standard input (a heredoc), byte for byte",
}
#: The article of a tool's name where its first letter does not tell it (``ls`` is read "el-es").
ARTICLES: dict[str, str] = {"ls": "an"}
#: A parameter that a command reads from standard input when it is not given.
STDIN: dict[str, str] = {"write": "content"}

_TYPES: dict[str, Any] = {"string": str, "integer": int, "boolean": bool, "array": list[str]}


def add_tool_commands(target: typer.Typer = app) -> None:
    """Give ``target`` a command for every registered tool that has none yet (``context`` has its
    own); run again after ``tools.registry.register`` to add the new ones."""
    have = {info.name for info in target.registered_commands}
    for spec in TOOLS.values():
        if spec.numbered and spec.name not in have:
            target.command(spec.name, help=_help(spec))(tool_command(spec))


def _help(spec: ToolSpec) -> str:
    article = ARTICLES.get(spec.name, "an" if spec.name[0] in "aeiou" else "a")
    return f"Print exactly what the model would see for {article} `{spec.name}` tool call{NOTES.get(spec.name, '')}."


def tool_command(spec: ToolSpec) -> Callable[..., None]:
    """The command of ``spec``'s tool: a function whose signature (its parameters, then the shell's
    options) typer reads."""

    def command(**values: Any) -> None:
        args = {p.name: values.pop(p.name) for p in spec.params}
        _before(spec.name, args, values)
        root = values.pop("root", None)
        settings = settings_for(root, **values)
        result = session_for(root, settings, values.get("session")).run_tool(spec.name, args)
        show(result, values.get("meta", False))
        if values.get("image_out") is not None:
            _write_image(result, values["image_out"])

    stdin = STDIN.get(spec.name)
    parameters = [_parameter(p, stdin=p.name == stdin) for p in spec.for_cli()]
    parameters += [_option(name) for name in SHELL.get(spec.name, DEFAULT_SHELL)]
    command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in parameters}
    command.__name__ = spec.name
    return command


def _parameter(param: Param, *, stdin: bool = False) -> inspect.Parameter:
    """A tool parameter as typer takes it: ``path`` and the required ones as arguments."""
    kind = _TYPES[param.kind]
    text = param.description + (" Default: standard input." if stdin else "")
    if param.kind == "boolean":
        info = typer.Option(f"--{param.name.replace('_', '-')}", *param.flags, help=text) if param.flags else None
        return _keyword(param.name, Annotated[bool, info or typer.Option(help=text)], False)
    if param.required and not stdin:
        return _keyword(param.name, Annotated[kind, typer.Argument(help=text)], inspect.Parameter.empty)
    if param.name == "path" or param.positional or stdin:
        return _keyword(param.name, Annotated[kind | None, typer.Argument(help=text)], None)
    names = (f"--{param.name.replace('_', '-')}", *param.flags) if param.flags else ()
    if param.default is not None:
        return _keyword(param.name, Annotated[kind, typer.Option(*names, help=text)], param.default)
    return _keyword(param.name, Annotated[kind | None, typer.Option(*names, help=text)], None)


def _option(name: str) -> inspect.Parameter:
    annotation, default = OPTIONS[name]
    return _keyword(name, annotation, default)


def _keyword(name: str, annotation: Any, default: object) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default)


def _before(tool: str, args: dict[str, Any], values: dict[str, Any]) -> None:
    """What a command checks or fetches before the call: ``read --match-id`` needs a session;
    ``grep --symbol NAME DIR`` takes its one argument as the path; a parameter of ``STDIN`` left out
    is read from standard input."""
    if tool == "read" and args["match_id"] is not None and values.get("session") is None:
        print(
            "--match-id needs --session: match ids live in a ledger session, so run "
            "`leanread grep PATTERN --session NAME`, then `leanread read --match-id m1 --session NAME`.",
            file=sys.stderr,
        )
        raise typer.Exit(2)
    if tool == "grep" and args["symbol"] is not None and args["path"] is None and args["pattern"] is not None:
        args["pattern"], args["path"] = None, args["pattern"]  # `grep --symbol NAME src`: the one argument is the path
    name = STDIN.get(tool)
    if name is not None and args[name] is None:
        args[name] = _stdin_text()


def _write_image(result: ToolResult, target: Path) -> None:
    """Write the image a read sent to ``target``; a one-line error when there is none or it cannot be written."""
    if not result.images:
        print(f"No image written to {target}: this read sent no image.", file=sys.stderr)
        raise typer.Exit(1)
    import base64

    try:
        target.write_bytes(base64.b64decode(result.images[0].data))
    except OSError as exc:
        print(f"Cannot write the image to {target}: {exc.strerror}; pass another --image-out path.", file=sys.stderr)
        raise typer.Exit(1) from None


def _stdin_text() -> str:
    """Standard input as UTF-8 text, line endings as given (no newline translation)."""
    try:
        return sys.stdin.buffer.read().decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidArgument(
            "The content on standard input is not UTF-8; write UTF-8 text (leanread keeps the file's own encoding)."
        ) from None
