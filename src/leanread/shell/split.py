"""Cutting a bash command into its parts: commands (``&&``, ``||``, ``;``, newlines) and pipeline
stages, with here-documents kept whole (the replay importers' ``ShellMapper`` and ``leanread.shell`` map the parts)."""

from __future__ import annotations

import re

HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")


def split_commands(cmd: str) -> list[str]:
    """``cmd`` cut at ``&&``, ``||``, ``;`` and newlines outside quotes, here-document bodies
    kept with the command that opens them."""
    parts: list[str] = []
    current: list[str] = []
    quote = ""
    i = 0
    pending: list[str] = []  # here-document terminators opened on the current line
    while i < len(cmd):
        c = cmd[i]
        if quote:
            current.append(c)
            if c == quote:
                quote = ""
            elif c == "\\" and quote == '"' and i + 1 < len(cmd):
                current.append(cmd[i + 1])
                i += 1
            i += 1
            continue
        if c in "'\"":
            quote = c
        elif cmd.startswith("\\\n", i):
            i += 2
            continue
        elif c == "\\" and i + 1 < len(cmd):
            current.append(c + cmd[i + 1])
            i += 2
            continue
        elif c == "<" and cmd.startswith("<<", i) and not cmd.startswith("<<<", i):
            found = HEREDOC.match(cmd, i)
            if found:
                pending.append(found.group(2))
        elif c == "\n" and pending:
            end = _heredoc_end(cmd, i + 1, pending)
            current.append(cmd[i:end])
            parts.append("".join(current))
            current = []
            pending = []
            i = end
            continue
        elif c in ";\n" or cmd.startswith("&&", i) or cmd.startswith("||", i):
            parts.append("".join(current))
            current = []
            i += 1 if c in ";\n" else 2
            continue
        current.append(c)
        i += 1
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def _heredoc_end(cmd: str, start: int, terminators: list[str]) -> int:
    """The index just past the last terminator line of the here-documents starting at ``start``."""
    pos = start
    for word in terminators:
        while pos <= len(cmd):
            nl = cmd.find("\n", pos)
            line = cmd[pos : nl if nl >= 0 else len(cmd)]
            pos = nl + 1 if nl >= 0 else len(cmd) + 1
            if line.strip() == word:
                break
    return min(pos, len(cmd))


def heredoc_body(part: str) -> str | None:
    """The text of the first here-document of ``part`` (each line with its newline), or None."""
    found = HEREDOC.search(part)
    if not found or "\n" not in part[found.end() :]:
        return None
    body = part[part.index("\n", found.end()) + 1 :]
    lines = body.split("\n")
    for n, line in enumerate(lines):
        if line.strip() == found.group(2):
            return "".join(x + "\n" for x in lines[:n])
    return "".join(x + "\n" for x in lines)


def split_pipeline(part: str) -> list[str]:
    """The stages of a pipeline (``|`` outside quotes; the here-document stays with its stage)."""
    head, sep, rest = part.partition("\n")
    stages: list[str] = []
    current: list[str] = []
    quote = ""
    for c in head:
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "|":
            stages.append("".join(current))
            current = []
            continue
        current.append(c)
    stages.append("".join(current))
    if sep:
        stages[-1] += sep + rest
    return [s.strip() for s in stages]
