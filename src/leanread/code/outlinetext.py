"""The outlines of text formats, found by small line scanners: Markdown and reStructuredText
headings, the top-level keys of JSON, YAML and TOML; a log's head and tail."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence

from .outlinemodel import Outline, Symbol, head_and_tail


def _sections(marks: list[tuple[int, int, str]], total: int, kind: str) -> tuple[Symbol, ...]:
    """Symbols from ``(line, level, title)`` marks: each runs to the line before the next mark
    of the same or a higher level."""
    symbols: list[Symbol] = []
    path: list[tuple[int, str]] = []
    for index, (line, level, title) in enumerate(marks):
        end = total
        for later_line, later_level, _ in marks[index + 1 :]:
            if later_level <= level:
                end = later_line - 1
                break
        while path and path[-1][0] >= level:
            path.pop()
        path.append((level, title))
        name = " > ".join(t for _, t in path)
        symbols.append(Symbol(name, kind, line, end, line, len(path) - 1))
    return tuple(symbols)


def _markdown(lines: Sequence[str]) -> Outline:
    marks: list[tuple[int, int, str]] = []
    fence = False
    for number, line in enumerate(lines, start=1):
        if re.match(r"\s{0,3}(```|~~~)", line):
            fence = not fence
        elif not fence and (match := re.match(r"\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$", line)):
            marks.append((number, len(match.group(1)), match.group(2)))
        elif not fence and number > 1 and re.fullmatch(r"\s{0,3}(=+|-+)\s*", line) and lines[number - 2].strip():
            marks.append((number - 1, 1 if "=" in line else 2, lines[number - 2].strip()))
    return Outline("markdown", len(lines), (), _sections(marks, len(lines), "heading"))


def _rst(lines: Sequence[str]) -> Outline:
    marks: list[tuple[int, int, str]] = []
    levels: list[str] = []
    for number in range(2, len(lines) + 1):
        line, title = lines[number - 1], lines[number - 2].strip()
        if title and re.fullmatch(r"([=\-~^\"'`#*+.:_])\1{2,}\s*", line) and len(line.rstrip()) >= len(title):
            if line[0] not in levels:
                levels.append(line[0])
            marks.append((number - 1, levels.index(line[0]) + 1, title))
    return Outline("rst", len(lines), (), _sections(marks, len(lines), "heading"))


def _keys(language: str, lines: Sequence[str], pattern: str) -> Outline:
    """Top-level keys found by ``pattern`` on unindented lines; each runs to the next."""
    marks = [(n, 1, m.group(1)) for n, line in enumerate(lines, start=1) if (m := re.match(pattern, line))]
    return Outline(language, len(lines), (), _sections(marks, len(lines), "key"))


def _toml(lines: Sequence[str]) -> Outline:
    """Tables (``[name]``, ``[[name]]``), and the keys before the first table."""
    marks: list[tuple[int, int, str]] = []
    for number, line in enumerate(lines, start=1):
        table = re.match(r"^\s*(\[\[?[^\]]+\]\]?)\s*(?:#.*)?$", line)
        key = None if table or marks else re.match(r"^([A-Za-z0-9_\-\"'.]+)\s*=", line)
        if found := table or key:
            marks.append((number, 1, found.group(1)))
    return Outline("toml", len(lines), (), _sections(marks, len(lines), "key"))


def _json(lines: Sequence[str]) -> Outline:
    """Keys of the top-level object: a key at nesting depth 1, found by a small scanner."""
    marks: list[tuple[int, int, str]] = []
    depth, in_string, escaped = 0, False, False
    for number, line in enumerate(lines, start=1):
        start = None
        for index, char in enumerate(line):
            if in_string:
                if escaped:
                    escaped = False
                elif char == "\\":
                    escaped = True
                elif char == '"':
                    in_string = False
                    if depth == 1 and start is not None and line[index + 1 :].lstrip().startswith(":"):
                        marks.append((number, 1, json.loads(line[start : index + 1])))
                    start = None
            elif char == '"':
                in_string, start = True, index
            elif char in "{[":
                depth += 1
            elif char in "}]":
                depth -= 1
    return Outline("json", len(lines), (), _sections(marks, len(lines), "key"))


def log_outline(lines: Sequence[str]) -> Outline:
    """The map of lines with no structure leanread knows: their head and tail."""
    return head_and_tail(len(lines))


#: The scanners of text formats, by language (as ``outline.language_of`` names it).
TEXT_SCANNERS: dict[str, Callable[[Sequence[str]], Outline]] = {
    "markdown": _markdown,
    "rst": _rst,
    "json": _json,
    "yaml": lambda lines: _keys("yaml", lines, r"""^(?!-|#|\s)(["']?[^:#\s][^:#]*?["']?)\s*:(?:\s|$)"""),
    "toml": _toml,
}
