"""grep's regular expressions as ripgrep's (Rust) ones: ``bre_to_ere`` for POSIX basic
expressions (grep's default), ``grep_regex`` for one search's patterns and flags."""

from __future__ import annotations

import re


def grep_regex(patterns: tuple[str, ...], *, extended: bool, fixed: bool, word: bool = False) -> str:
    """One ripgrep (Rust) regular expression matching what ``grep [-E|-F] [-w] -e P1 -e P2 …``
    matches: basic expressions translated (``bre_to_ere``), fixed strings escaped, ``\\<``/``\\>``
    as word boundaries, several patterns as alternatives, ``-w`` as ``\\b(?:…)\\b``."""
    parts = [re.escape(p) if fixed else p if extended else bre_to_ere(p) for p in patterns]
    parts = [p.replace(r"\<", r"\b").replace(r"\>", r"\b") for p in parts]
    joined = parts[0] if len(parts) == 1 else "|".join(f"(?:{p})" for p in parts)
    return rf"\b(?:{joined})\b" if word else joined


def bre_to_ere(pattern: str) -> str:
    """A POSIX basic regular expression (grep's default) as an extended one: ``\\|``, ``\\(``,
    ``\\)``, ``\\{``, ``\\}``, ``\\+``, ``\\?`` become operators, and the bare characters become
    literals; bracket expressions are copied as they are."""
    out: list[str] = []
    i = 0
    special = {"|", "(", ")", "{", "}", "+", "?"}
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            out.append(nxt if nxt in special else "\\" + nxt)
            i += 2
        elif char == "[":
            end = i + 1
            if end < len(pattern) and pattern[end] == "^":
                end += 1
            if end < len(pattern) and pattern[end] == "]":
                end += 1
            while end < len(pattern) and pattern[end] != "]":
                end += 1
            out.append(pattern[i : end + 1])
            i = end + 1
        elif char in special:
            out.append("\\" + char)
            i += 1
        else:
            out.append(char)
            i += 1
    return "".join(out)
