"""``leanread sh -c COMMAND``: a shell command, its reads (``cat``, ``sed -n``, ``nl -ba``,
``head``, ``tail``, ``grep``, ``rg``) answered through the session's ledger (``leanread.shell``)."""

from __future__ import annotations

from typing import Annotated

import typer

from .app import ReadMode, RootOption, SessionOption, app, session_for, settings_for


@app.command("sh")
def sh_command(
    command: Annotated[str, typer.Option("-c", help="The shell command, as an agent would run it with bash -c.")],
    read_mode: ReadMode = None,
    root: RootOption = None,
    session: SessionOption = None,
) -> None:
    """Run a shell command; cat, sed -n, nl -ba, head, tail, grep and rg are answered through the
    session's ledger (stubs, diffs, outlines), anything else runs as it is (bash -c)."""
    from ..shell.command import answer_or_exec

    settings = settings_for(root, read_mode=read_mode)
    raise typer.Exit(answer_or_exec(session_for(root, settings, session), command))
