"""What ripgrep left out of a search, read from its ``--debug`` log.

ripgrep (14.x) logs one line for each path its walk prunes, at the top-most pruned path (an
ignored folder is one line; ripgrep never enters it), with the rule that pruned it::

    rg: DEBUG|ignore::walk|crates/ignore/src/walk.rs:1799: ignoring ./build: Ignore(IgnoreMatch(
        Gitignore(Glob { from: Some("./.gitignore"), original: "build/", actual: "**/build", ... })))

(one line in the log). ``Gitignore`` matches come from an ignore file: a repository's
``.gitignore``, ``.ignore`` or ``.rgignore``, git's ``info/exclude`` and global excludes file, or
an ``--ignore-file`` (leanread's deny list). ``Override`` (globs) and ``Types`` matches are the
caller's own filters and are not kept. Reading the log costs no extra walk: the search logs as it
prunes. The log is not a stable interface: the tests pin its shape for the ripgrep versions the
package allows (``ripgrep>=14.1,<15``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

__all__ = ["Ignored", "RgLog", "ignored_lines", "parse_log", "source_name"]

_WALK = re.compile(
    rb"^rg: DEBUG\|ignore::walk\|[^:]*:[0-9]+: ignoring (.*): Ignore\(IgnoreMatch\(Gitignore\(Glob \{ (.*)$"
)
_FROM = re.compile(rb'from: Some\("((?:[^"\\]|\\.)*)"\), original: "((?:[^"\\]|\\.)*)"')
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", '"': '"', "\\": "\\", "'": "'"}
_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]+\}|.)")


def _unescape(text: bytes) -> str:
    """A Rust ``{:?}`` string's contents as the text it stands for."""

    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code.startswith("u{"):
            return chr(int(code[2:-1], 16))
        return _ESCAPES.get(code, code)

    return _ESCAPE.sub(one, os.fsdecode(text))


@dataclass(frozen=True)
class Ignored:
    """One path an ignore file left out.

    Attributes:
        path: the path as ripgrep printed it (absolute when the search path was).
        source: the ignore file's path as ripgrep printed it.
        rule: the line of the ignore file that matched (``build/``, ``*``).
    """

    path: str
    source: str
    rule: str


@dataclass
class RgLog:
    """What one ripgrep run's log says it left out.

    Attributes:
        ignored: paths an ignore file left out, in the log's order.
    """

    ignored: list[Ignored] = field(default_factory=list)


_GITIGNORE = b": Ignore(IgnoreMatch(Gitignore(Glob { "


def _lines_with(data: bytes, marker: bytes) -> list[bytes]:
    """The lines of ``data`` that hold ``marker`` (found with ``bytes.find``: a log of a search
    with a glob has a line for every file the glob rejects, and only these lines count)."""
    lines: list[bytes] = []
    at = data.find(marker)
    while at >= 0:
        start = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        end = len(data) if end < 0 else end
        lines.append(data[start:end])
        at = data.find(marker, end)
    return lines


def ignored_lines(data: bytes) -> dict[str, bytes]:
    """The lines of a ``--debug`` log that ``parse_log`` reads as ignored paths (kept for later),
    each by the path it names (as ripgrep printed it)."""
    lines: dict[str, bytes] = {}
    for line in _lines_with(data, _GITIGNORE):
        walk = _WALK.match(line)
        if walk is not None:
            lines[os.fsdecode(walk.group(1))] = line
    return lines


def parse_log(data: bytes) -> RgLog:
    """The paths an ignore file left out, from a ``--debug`` log (other lines are skipped; a path
    holding a line break is cut there and kept as what was printed)."""
    log = RgLog()
    for line in _lines_with(data, _GITIGNORE):
        walk = _WALK.match(line)
        found = _FROM.search(walk.group(2)) if walk is not None else None
        if walk is not None and found is not None:
            log.ignored.append(
                Ignored(os.fsdecode(walk.group(1)), _unescape(found.group(1)), _unescape(found.group(2)))
            )
    return log


def source_name(source: str) -> str:
    """How a note names the ignore file ``source``: ``.gitignore``, ``.ignore``, ``.rgignore``,
    ``.git/info/exclude``, else ``the global gitignore`` (git's ``core.excludesFile``)."""
    base = os.path.basename(source)
    if base in (".gitignore", ".ignore", ".rgignore"):
        return base
    if source.replace(os.sep, "/").endswith(".git/info/exclude"):
        return ".git/info/exclude"
    return "the global gitignore"
