"""What a recognised shell command asks for: windows of files and searches, or why it is run
as it is (``recognise`` makes them, ``answer`` serves them)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Window:
    """Lines ``first..last`` of a file (1-based; ``last`` None: to the end), then the last
    ``tail`` of them (None: all)."""

    first: int = 1
    last: int | None = None
    tail: int | None = None

    def then_range(self, a: int, b: int | None) -> Window | None:
        """This window's stream lines ``a..b`` (``sed -n 'a,bp'`` after it); None when a tail
        comes first (its start depends on the file's length)."""
        if self.tail is not None:
            return None
        first = self.first + a - 1
        last = None if b is None else self.first + b - 1
        if self.last is not None:
            last = self.last if last is None else min(last, self.last)
        return Window(first, last)

    def then_head(self, n: int) -> Window | None:
        if self.tail is not None:
            return None
        return self.then_range(1, n)

    def then_tail(self, n: int) -> Window:
        return Window(self.first, self.last, n if self.tail is None else min(n, self.tail))

    def resolve(self, total: int) -> tuple[int, int]:
        """``(first, last)`` in a file of ``total`` lines (``last < first``: nothing)."""
        last = total if self.last is None else min(self.last, total)
        first = self.first
        if self.tail is not None:
            first = max(first, last - self.tail + 1)
        return first, last


@dataclass(frozen=True)
class ReadAsk:
    """A read a command asks for: ``path`` as written, the window, line numbers or not, and
    whether it is a whole ``cat`` (which may get an outline)."""

    path: str
    window: Window
    numbered: bool
    whole: bool


@dataclass(frozen=True)
class GrepAsk:
    """A search: one ripgrep regex, the paths as written (none: the current folder)."""

    pattern: str
    paths: tuple[str, ...]
    case_insensitive: bool = False
    before: int | None = None
    after: int | None = None
    files_only: bool = False
    glob: str | None = None
    type: str | None = None
    #: grep without -r: every path must be a file (a folder is passed through)
    files_required: bool = False


Ask = ReadAsk | GrepAsk


@dataclass(frozen=True)
class Recognised:
    """A command leanread answers: its asks, in output order, the folder its paths are taken in
    (relative to the caller's; "" for the caller's own), and the command as the agent wrote it
    with ``command`` before its reading command, which leanread runs as it is (``cd src &&
    command cat -n app.py``: what a stub names to print the lines again)."""

    asks: tuple[Ask, ...]
    cd: str = ""
    again: str = field(default="", compare=False)

    @property
    def lead(self) -> str:
        """``cd DIR && `` (``DIR`` quoted) when the command runs in another folder, else "": what
        goes before a command printed for the agent, so it runs where this one ran."""
        return f"cd {shlex.quote(self.cd)} && " if self.cd else ""


@dataclass(frozen=True)
class Passed:
    """A command run as it is, and why (one short phrase, for the per-command breakdown)."""

    why: str
    detail: str = field(default="", compare=False)
