"""Which shell commands are reads and searches leanread can answer, and what each asks for.

``recognise(command)`` gives a ``Recognised`` (the reads and searches, in the order the command
would print them) or a ``Passed`` naming why it is run as it is. Recognised, with their common
flags (anything else, and any flag not listed, is passed through):

- ``cat F…``, ``cat -n F``, ``nl -ba F`` (also ``-b a``, ``--body-numbering=a``): whole files,
  numbered for ``-n``/``nl``;
- ``sed -n 'A,Bp' F`` (also ``Ap``, ``A,$p``, several ranges joined by ``;``, ``-e SCRIPT``),
  ``head [-n N | -N | --lines=N] F``, ``tail [-n N | -n +K | -N | --lines=N] F``;
- a pipeline of those: one source (``cat [-n] F``, ``nl -ba F``, ``sed -n``, ``head``, ``tail``)
  then windows (``sed -n``, ``head``, ``tail``): ``nl -ba f | sed -n '40,80p'``;
- ``grep`` (``-n -i -r -R -E -F -w -l -H -I -s -A N -B N -C N -e P --include=G``, bundled as
  ``-rn``), ``rg`` (``-n -i -F -w -l -A -B -C -e -g -t``), and ``cat F | grep …`` /
  ``nl -ba F | grep …`` (a search of ``F``);
- each optionally after ``cd DIR &&``.

Nothing here touches the disk: ``answer`` checks the files (a path that is not a text file in
the workspace is passed through too).
"""

from __future__ import annotations

import itertools
import re
import shlex

from .asks import Ask, GrepAsk, Passed, ReadAsk, Recognised, Window
from .searches import search
from .split import split_commands, split_pipeline
from .windows import window_stage

__all__ = ["Ask", "GrepAsk", "Passed", "ReadAsk", "Recognised", "Window", "recognise"]

#: Characters the shell would expand or redirect outside quotes.
_WORD_SPECIALS = "<>`$*?[]{}~&();"


def recognise(command: str) -> Recognised | Passed:
    """What ``command`` (one line of shell as an agent wrote it) asks leanread for; ``Passed``
    with the reason when it is anything else."""
    text = command.strip()
    if not text:
        return Passed("empty")
    if "\n" in text:
        return Passed("several lines")
    parts = split_commands(text)
    cd = ""
    if len(parts) == 2 and re.match(r"^cd\s", parts[0]) and re.search(r"&&\s*" + re.escape(parts[1]) + r"\s*$", text):
        words = _words(parts[0])
        if words is None or len(words) != 2:
            return Passed("cd with more than a folder")
        cd, parts = words[1], parts[1:]
    if len(parts) != 1:
        return Passed("several commands")
    stages = [_words(stage) for stage in split_pipeline(parts[0])]
    if any(words is None for words in stages):
        return Passed("shell syntax beyond words and pipes")
    argv = [words for words in stages if words is not None]
    if not all(argv):
        return Passed("an empty pipeline stage")
    found = _pipeline(argv)
    if isinstance(found, Passed):
        return found
    lead = text[: len(text) - len(parts[0])]  # "cd DIR && ", or nothing
    return Recognised(found, cd, f"{lead}command {parts[0]}")


def _words(stage: str) -> list[str] | None:
    """The words of one stage, or None when the shell would do more than split it into quoted
    words (a redirect, a substitution, a glob, a variable, a comment): such a stage runs as it is."""
    if _unquoted_specials(stage):
        return None
    try:
        return shlex.split(stage, comments=False, posix=True)
    except ValueError:
        return None


def _unquoted_specials(stage: str) -> bool:
    """Whether the shell would expand or redirect something in ``stage``: a special character
    outside quotes, ``$`` or a backquote inside double quotes."""
    quote = ""
    for i, c in enumerate(stage):
        if quote == "'":
            quote = "" if c == "'" else quote
        elif quote == '"':
            if c == '"' and stage[i - 1] != "\\":
                quote = ""
            elif c in "$`":
                return True
        elif c in "'\"":
            quote = c
        elif c in _WORD_SPECIALS or (c == "#" and (i == 0 or stage[i - 1].isspace())):
            return True
    return False


# --- reads ------------------------------------------------------------------------------------


def _pipeline(argv: list[list[str]]) -> tuple[Ask, ...] | Passed:
    first, rest = argv[0], argv[1:]
    if first[0] in ("grep", "egrep", "fgrep", "rg"):
        return Passed("a search piped on") if rest else search(first, ())
    source = _source(first)
    if isinstance(source, Passed):
        return source
    asks, files = source
    if not rest:
        return tuple(asks)
    if len(asks) != 1:
        return Passed("several files or ranges piped on")
    if rest[-1][0] in ("grep", "egrep", "fgrep", "rg"):
        if len(rest) != 1 or asks[0].window != Window():
            return Passed("a window piped into a search")
        return Passed("rg reading a pipe") if rest[0][0] == "rg" else search(rest[0], (files[0],))
    for index, stage in enumerate(rest):
        step = _filter(asks[0], stage, index == len(rest) - 1)
        if isinstance(step, Passed):
            return step
        asks = step
    return tuple(asks)


def _source(words: list[str]) -> tuple[list[ReadAsk], list[str]] | Passed:
    """The reads a pipeline's first command makes, and the files it names."""
    name, args = words[0], words[1:]
    if name == "cat":
        flags = [a for a in args if a.startswith("-") and a != "-"]
        files = [a for a in args if a not in flags and a != "--"]
        if any(f not in ("-n", "--number") for f in flags):
            return Passed("cat with a flag other than -n", ", ".join(flags))
        numbered = bool(flags)
        if not files or "-" in files:
            return Passed("cat of standard input")
        if numbered and len(files) > 1:
            return Passed("cat -n of several files (numbered across them)")
        return [ReadAsk(f, Window(), numbered, True) for f in files], files
    if name == "nl":
        nl_flags, files = _nl_args(args)
        if nl_flags is None:
            return Passed("nl without -ba", " ".join(args))
        if len(files) != 1:
            return Passed("nl of several files or of standard input")
        return [ReadAsk(files[0], Window(), True, True)], files
    if name in ("sed", "head", "tail"):
        parsed = window_stage(name, args, with_file=True)
        if isinstance(parsed, Passed):
            return parsed
        windows, files = parsed
        if not windows:
            return Passed(f"{name} that prints no line")
        return [ReadAsk(files[0], w, False, False) for w in windows], files[:1]
    return Passed("not a reading command", name)


def _nl_args(args: list[str]) -> tuple[list[str] | None, list[str]]:
    """(the flags if they are exactly ``-ba`` in one of its spellings, else None; the files)."""
    flags: list[str] = []
    files: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-b" and i + 1 < len(args):
            flags.append("-b" + args[i + 1])
            i += 2
            continue
        (flags if a.startswith("-") and a != "-" else files).append(a)
        i += 1
    ok = flags in (["-ba"], ["--body-numbering=a"])
    return (flags if ok else None), files


def _filter(source: ReadAsk, words: list[str], last_stage: bool) -> list[ReadAsk] | Passed:
    """The reads after one more window stage (``sed -n``, ``head``, ``tail`` reading the pipe)."""
    name = words[0]
    if name not in ("sed", "head", "tail"):
        return Passed("a read piped into another command", name)
    parsed = window_stage(name, words[1:], with_file=False)
    if isinstance(parsed, Passed):
        return parsed
    windows, _ = parsed
    if len(windows) > 1 and not last_stage:
        return Passed("sed with several ranges piped on")
    out: list[ReadAsk] = []
    for stage in windows:
        combined = _combine(source.window, stage)
        if combined is None:
            return Passed("a window after tail")
        out.append(ReadAsk(source.path, combined, source.numbered, False))
    if len(out) > 1 and not _ascending(out):
        return Passed("sed ranges out of order or overlapping")
    return out


def _combine(base: Window, stage: Window) -> Window | None:
    """``stage`` (a window of the stream) applied after ``base``."""
    if stage.tail is not None:
        return base.then_tail(stage.tail) if (stage.first, stage.last) == (1, None) else None
    if stage.first == 1 and stage.last is not None and base.tail is None:
        return base.then_head(stage.last)
    return base.then_range(stage.first, stage.last)


def _ascending(asks: list[ReadAsk]) -> bool:
    ends = [(a.window.first, a.window.last) for a in asks]
    return all(last is not None and last < nxt for (_, last), (nxt, _) in itertools.pairwise(ends))
