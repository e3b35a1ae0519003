"""The bash-only agent (mini-swe-agent) and leanread given to it from the shell.

``bash`` is that agent's own baseline: what its read commands printed, rebuilt from the file as
it was (``nl -ba``/``cat -n``: ``cat -n`` numbers, ``%6d<TAB>``; ``cat``, ``sed -n``, ``head``,
``tail``: the lines as they are; no cap), and ``grep -n``'s ``path:line:text`` for searches.

``leanread-cli`` serves the same reads as ``leanread read PATH --offset A --limit N`` in one
``$LEANREAD_SESSION`` would: each call on its own, the session kept in a SQLite ledger file
(what separate shell invocations share), stdout with its final newline; the default settings
(``dedup = "recent"``, whole files in full). In process, so the replay does not start a Python
per read; the text is the command's stdout byte for byte.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import ClassVar

from ....ledger.sqlite_store import SQLiteLedger
from ....session import Session
from ..calls import GrepCall, ReadCall
from ..strategy import Strategy, ripgrep_output
from .leanread import Leanread, limits_with

#: The note a read of a bash agent's trace counts (see ``Strategy.needs_note``).
BASH_READS = "bash reads"


def _numbered(call: ReadCall) -> bool:
    return "nl " in call.cmd or "cat -n" in call.cmd or call.cmd.startswith("nl")


class Bash(Strategy):
    """What the bash agent's own commands printed for its reads and searches."""

    name = "bash"
    title = "bash agent: its own cat / sed -n / head / tail / nl -ba output, grep -n for searches"
    order = 5
    #: only a bash agent's trace (its reads carry their shell command) measures it
    needs_note = BASH_READS

    def read(self, call: ReadCall) -> str:
        if call.cmd:
            self.notes[BASH_READS] += 1
        first = max(call.offset or 1, 1)
        lines = call.file.lines[first - 1 : None if call.limit is None else first - 1 + call.limit]
        if _numbered(call):
            return "".join(f"{first + i:6d}\t{line}\n" for i, line in enumerate(lines))
        return "".join(f"{line}\n" for line in lines)

    def grep(self, call: GrepCall) -> str:
        return ripgrep_output(call)


class LeanreadCli(Leanread):
    """leanread's CLI in one session across shell calls (see the module docstring)."""

    name = "leanread-cli"
    title = "leanread from the shell: `leanread read/grep` in one $LEANREAD_SESSION (SQLite ledger), default dedup"
    order = 95
    read_mode: ClassVar[str] = "full"

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self._folder = Path(tempfile.mkdtemp(prefix="leanread-cli-ledger-"))
        self._ledger = SQLiteLedger(self._folder / "ledger.sqlite3")
        self.session = Session([root], id="bash-agent", ledger=self._ledger, limits=limits_with(self.read_mode))

    def finish(self) -> dict[str, list[str]]:
        self._ledger.close()
        shutil.rmtree(self._folder, ignore_errors=True)
        return super().finish()

    needs_note = BASH_READS

    def read(self, call: ReadCall) -> str:
        if call.cmd:
            self.notes[BASH_READS] += 1
        return super().read(call) + "\n"

    def grep(self, call: GrepCall) -> str:
        return super().grep(call) + "\n"
