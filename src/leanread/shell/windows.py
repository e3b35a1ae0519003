"""The window stages of a reading pipeline: ``sed -n 'A,Bp'``, ``head``, ``tail``, with their
flags, as ``Window``s of the stream they read."""

from __future__ import annotations

import itertools
import re

from .asks import Passed, Window

#: The range of one ``sed -n`` command: ``40,80p``, ``40p``, ``40,$p``.
_SED_RANGE = re.compile(r"^\s*(\d+)\s*(?:,\s*(\d+|\$)\s*)?p\s*$")


def window_stage(name: str, args: list[str], *, with_file: bool) -> tuple[list[Window], list[str]] | Passed:
    """The windows of one ``sed -n``/``head``/``tail`` stage and the files it names."""
    if name == "sed":
        return _sed(args, with_file)
    count, files = _count_args(name, args)
    if count is None:
        return Passed(f"{name} with a flag it does not know", " ".join(args))
    if with_file and len(files) != 1:
        return Passed(f"{name} of several files or of standard input")
    if not with_file and files:
        return Passed(f"{name} naming a file after a pipe")
    kind, n = count
    if name == "head":
        return ([Window(1, n)] if n > 0 else []), files
    if kind == "from":
        return [Window(max(n, 1), None)], files
    return ([Window(1, None, n)] if n > 0 else []), files


def _count_args(name: str, args: list[str]) -> tuple[tuple[str, int] | None, list[str]]:
    """``head``/``tail``'s count (``("last", N)`` or, for ``tail -n +K``, ``("from", K)``; default
    10) and its files; None for a flag not known."""
    count: tuple[str, int] | None = ("last", 10)
    files: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        value: str | None = None
        if a in ("-n", "--lines") and i + 1 < len(args):
            value, i = args[i + 1], i + 2
        elif a.startswith("--lines="):
            value, i = a.split("=", 1)[1], i + 1
        elif a.startswith("-n") and len(a) > 2:
            value, i = a[2:], i + 1
        elif re.fullmatch(r"-\d+", a):
            value, i = a[1:], i + 1
        elif a.startswith("-") and a != "-":
            return None, files
        else:
            files.append(a)
            i += 1
            continue
        if re.fullmatch(r"\d+", value):
            count = ("last", int(value))
        elif name == "tail" and re.fullmatch(r"\+\d+", value):
            count = ("from", int(value[1:]))
        else:
            return None, files
    return count, files


def _sed(args: list[str], with_file: bool) -> tuple[list[Window], list[str]] | Passed:
    """``sed -n SCRIPT [F]`` where SCRIPT is ranges that print (``40,80p;100p``)."""
    scripts: list[str] = []
    files: list[str] = []
    quiet = False
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-n", "--quiet", "--silent"):
            quiet = True
        elif a in ("-e", "--expression") and i + 1 < len(args):
            scripts.append(args[i + 1])
            i += 1
        elif a in ("-ne",) and i + 1 < len(args):
            quiet = True
            scripts.append(args[i + 1])
            i += 1
        elif a.startswith("-") and a != "-":
            return Passed("sed with a flag other than -n/-e", a)
        elif not scripts:
            scripts.append(a)
        else:
            files.append(a)
        i += 1
    if not quiet:
        return Passed("sed without -n")
    if len(scripts) != 1:
        return Passed("sed with several scripts")
    if with_file and len(files) != 1:
        return Passed("sed of several files or of standard input")
    if not with_file and files:
        return Passed("sed naming a file after a pipe")
    windows: list[Window] = []
    for part in scripts[0].split(";"):
        if not part.strip():
            continue
        found = _SED_RANGE.match(part)
        if found is None:
            return Passed("sed script other than line ranges", scripts[0])
        start, end = int(found.group(1)), found.group(2)
        last = start if end is None else None if end == "$" else int(end)
        if start < 1 or (last is not None and last < start):
            return Passed("sed range ending before it starts")
        windows.append(Window(start, last))
    if not windows:
        return Passed("sed script other than line ranges")
    if with_file and len(windows) > 1:
        return _ranges_of_file(windows, files[0])
    return windows, files


def _ranges_of_file(windows: list[Window], path: str) -> tuple[list[Window], list[str]] | Passed:
    ordered = all(w.last is not None and w.last < nxt.first for w, nxt in itertools.pairwise(windows))
    if not ordered:
        return Passed("sed ranges out of order or overlapping")
    return windows, [path] * len(windows)
