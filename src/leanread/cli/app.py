"""The ``leanread`` command's app and what its commands share: the options, the settings they make
and the session they run on, and how a result is printed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ..config.settings import Settings, load_settings
from ..files.workspace import Workspace, given_roots
from ..pruning import make_pruner
from ..result import ToolResult
from ..session import Session
from ..view.frame import for_terminal

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="File tools for LLM coding agents that spend context tokens with care.",
)

RootOption = Annotated[
    list[str] | None,
    typer.Option(
        "--root",
        help="Workspace root (repeatable); default the current directory. An empty one is left out.",
        callback=lambda roots: given_roots(roots) if roots else roots,  # once per command: one stderr line
    ),
]
MaxLines = Annotated[int | None, typer.Option(help="Lines per read when no limit is given (config: max_lines).")]
MaxBytes = Annotated[int | None, typer.Option(help="Bytes of output per read (config: max_bytes).")]
MaxLineChars = Annotated[
    int | None, typer.Option(help="Characters of a line before it is cut (config: max_line_chars).")
]
ReadMode = Annotated[
    str | None, typer.Option(help="What a read without offset/limit gives: auto, full or outline (config: read_mode).")
]
FocusBackend = Annotated[
    str | None,
    typer.Option(help="Backend pruning outputs for --focus: local, hybrid, llm or swe-pruner (config: focus_backend)."),
]
FocusUrl = Annotated[
    str | None,
    typer.Option(help="Base URL of the llm or swe-pruner backend, e.g. http://localhost:8000/v1 (config: focus_url)."),
]
FocusModel = Annotated[str | None, typer.Option(help="Chat model of the llm backend (config: focus_model).")]
FocusKeyEnv = Annotated[
    str | None,
    typer.Option(help="Environment variable holding the llm backend's API key; default OPENAI_API_KEY."),
]
FocusTimeout = Annotated[
    float | None, typer.Option(help="Seconds a remote focus backend may take in all (config: focus_timeout).")
]
SessionOption = Annotated[
    str | None,
    typer.Option(
        "--session",
        envvar="LEANREAD_SESSION",
        help="Ledger session id, kept in the default ledger between commands (so `read --match-id` finds a "
        "`grep`'s ids, a re-read gets a stub and an edit its grant); default $LEANREAD_SESSION, else a new one.",
    ),
]
MetaOption = Annotated[bool, typer.Option(help="Also print the result's metadata as JSON on stderr.")]
WriteProtected = Annotated[
    bool, typer.Option(help="Let edit and write change .git and leanread's own configuration (refused by default).")
]
LedgerOption = Annotated[
    str | None,
    typer.Option(help="The ledger file the server uses (its --ledger); default the user state folder's."),
]
ImageOut = Annotated[
    Path | None, typer.Option(help="For an image: also write the image as sent to the model to this file.")
]


#: The options that override a setting of the configuration files (``config.settings``).
SETTING_OPTIONS = (
    "max_lines",
    "max_bytes",
    "max_line_chars",
    "read_mode",
    "dedup",
    "allow_write_protected",
    "focus_backend",
    "focus_url",
    "focus_model",
    "focus_api_key_env",
    "focus_timeout",
)


def settings_for(root: list[str] | None, **options: object) -> Settings:
    """The user's and the first root's configuration files, with the command-line options
    (``SETTING_OPTIONS``; None or False: not given) on top; what the project's file tried to
    loosen is named on stderr."""
    overrides = {name: None if options.get(name) is False else options.get(name) for name in SETTING_OPTIONS}
    settings = load_settings(Workspace(root).primary, overrides, "the command-line options")
    for warning in settings.warnings:
        print(f"leanread: {warning}", file=sys.stderr)
    return settings


def session_for(root: list[str] | None, settings: Settings, session: str | None = None) -> Session:
    """A session over ``root`` with ``settings``, its focus backend included."""
    return Session(
        root,
        id=session,
        limits=settings.limits,
        policy=settings.policy,
        pruner=make_pruner(settings.focus),
        transcript=settings.transcript,
    )


def show(result: ToolResult, meta: bool) -> None:
    """Print what the model sees (stdout; a refusal on stderr with status 1), and the metadata on
    request. On a terminal, control characters show in caret notation (``frame.for_terminal``)."""
    if meta:
        import json

        print(json.dumps(result.metadata, indent=2), file=sys.stderr)
    if result.is_error:
        print(result.text, file=sys.stderr)
        raise typer.Exit(1)
    print(for_terminal(result.text) if sys.stdout.isatty() else result.text)
