"""What a bash command changes: redirects, here-document writes, ``sed -i``, ``rm``/``mv``/…, ``git
checkout``, ``patch``, and the files a Python script the agent wrote opens for writing."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable

from ...shell.split import heredoc_body

#: Commands that change the files they name.
CHANGERS = frozenset({"rm", "mv", "cp", "touch", "mkdir", "rmdir", "ln", "truncate", "unlink"})
GIT_CHANGERS = frozenset({"checkout", "apply", "stash", "reset", "restore", "am", "revert", "clean", "mv", "rm"})


def redirect_target(head: str) -> tuple[str, bool] | None:
    """The file a ``>``/``>>`` outside quotes writes to (and whether it appends), or None;
    ``2>&1`` and ``/dev/null`` do not count."""
    try:
        lexer = shlex.shlex(head, posix=True, punctuation_chars=";&|<>")
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:
        return None
    for i, token in enumerate(tokens):
        if token in (">", ">>", "&>") and i + 1 < len(tokens):
            target = tokens[i + 1]
            previous = tokens[i - 1] if i else ""
            if target.startswith("&") or target == "/dev/null" or previous.endswith("2"):
                continue
            return target, token == ">>"
    return None


def echo_text(words: list[str]) -> str | None:
    args = words[1:]
    end = "\n"
    if words[0] == "echo":
        if args and args[0] == "-n":
            end, args = "", args[1:]
        if args and args[0].startswith("-"):
            return None
    else:
        return None
    before = []
    for a in args:
        if a in (">", ">>") or a.startswith(">"):
            break
        before.append(a)
    return " ".join(before) + end


_OPEN_WRITE = re.compile(
    r"""open\(\s*(?:(['"])(?P<path>[^'"]+)\1|(?P<var>\w+))\s*,\s*(?:mode\s*=\s*)?['"][^'"]*[wa+][^'"]*['"]"""
)


def script_writes(script: str) -> list[str] | bool:
    """What a Python script changes: ``False`` when it opens nothing for writing, else the files
    it opens for writing by a literal path or a variable set to one, ``True`` when one of them
    cannot be told."""
    if re.search(r"\.write_(?:text|bytes)\(", script):
        return True
    paths: list[str] = []
    found = False
    for match in _OPEN_WRITE.finditer(script):
        found = True
        path = match.group("path")
        if path is None:
            value = re.search(rf"""\b{match.group("var")}\s*=\s*(['"])([^'"]+)\1""", script)
            if value is None:
                return True
            path = value.group(2)
        paths.append(path)
    return list(dict.fromkeys(paths)) or found


def mutates(part: str, argv: list[list[str]] | None, rel: Callable[[str], str]) -> list[str] | bool:
    head = part.split("\n", 1)[0]
    target = redirect_target(head)
    if argv is None:
        return bool(target) or heredoc_body(part) is not None
    paths: list[str] = []
    unknown = False
    for words in argv:
        if not words:
            continue
        name = words[0]
        args = [w for w in words[1:] if not w.startswith("-")]
        if name == "sed" and any(w.startswith("-i") for w in words[1:]):
            files = [w for w in words[1:] if not w.startswith("-")]
            script_given = any(w == "-e" for w in words)
            paths += files if script_given else files[1:]
        elif name in CHANGERS:
            paths += args
        elif name == "git" and len(words) > 1 and words[1] in GIT_CHANGERS:
            unknown = True
        elif name == "patch" and args:
            paths += args
        elif name == "patch":
            unknown = True
        elif name == "tee" and args:
            paths += args
    body = heredoc_body(part)
    if target is not None:
        paths.append(target[0])
    elif body is not None:
        written = script_writes(body)
        if written is True:
            unknown = True
        elif written:
            paths += written
    if unknown:
        return True
    return [rel(p) for p in paths] if paths else False
