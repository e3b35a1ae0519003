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
from dataclasses import dataclass, field

from .patterns import grep_regex
from .split import split_commands, split_pipeline

#: The range of one ``sed -n`` command: ``40,80p``, ``40p``, ``40,$p``.
_SED_RANGE = re.compile(r"^\s*(\d+)\s*(?:,\s*(\d+|\$)\s*)?p\s*$")
#: Characters that make a command more than plain words (redirects, substitutions, globs, …).
_WORD_SPECIALS = "<>`$*?[]{}~&();"


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
    """A command leanread answers: its asks, in output order, and the folder its paths are
    taken in (relative to the caller's; "" for the caller's own)."""

    asks: tuple[Ask, ...]
    cd: str = ""


@dataclass(frozen=True)
class Passed:
    """A command run as it is, and why (one short phrase, for the per-command breakdown)."""

    why: str
    detail: str = field(default="", compare=False)


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
    return found if isinstance(found, Passed) else Recognised(found, cd)


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
        return Passed("a search piped on") if rest else _search(first, ())
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
        return Passed("rg reading a pipe") if rest[0][0] == "rg" else _search(rest[0], (files[0],))
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
        parsed = _window_stage(name, args, with_file=True)
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
    parsed = _window_stage(name, words[1:], with_file=False)
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


def _window_stage(name: str, args: list[str], *, with_file: bool) -> tuple[list[Window], list[str]] | Passed:
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


# --- searches ---------------------------------------------------------------------------------

_GREP_LETTERS = frozenset("nirREFGwlHIs")
_RG_LETTERS = frozenset("niFwlHs")


def _search(words: list[str], piped: tuple[str, ...]) -> tuple[Ask, ...] | Passed:
    """A ``grep``/``rg`` command; ``piped`` is the file fed to it through a pipe."""
    name = words[0]
    rg = name == "rg"
    letters: set[str] = {"E"} if name == "egrep" else {"F"} if name == "fgrep" else set()
    counts: dict[str, int] = {}
    patterns: list[str] = []
    operands: list[str] = []
    globs: list[str] = []
    types: list[str] = []
    args = words[1:]
    i = 0
    only_operands = False
    while i < len(args):
        a = args[i]
        nxt = args[i + 1] if i + 1 < len(args) else None
        if only_operands or not a.startswith("-") or a == "-":
            operands.append(a)
        elif a == "--":
            only_operands = True
        elif a in ("-e", "--regexp") and nxt is not None:
            patterns.append(nxt)
            i += 1
        elif not rg and a.startswith("--include="):
            globs.append(a.split("=", 1)[1])
        elif rg and a in ("-g", "--glob") and nxt is not None:
            globs.append(nxt)
            i += 1
        elif rg and a in ("-t", "--type") and nxt is not None:
            types.append(nxt)
            i += 1
        elif a.startswith("--"):
            long = {"--line-number": "n", "--ignore-case": "i", "--recursive": "r", "--fixed-strings": "F"}
            if a not in long:
                return Passed(f"{name} with a flag it does not know", a)
            letters.add(long[a])
        else:
            taken = _bundle(a[1:], nxt, _RG_LETTERS if rg else _GREP_LETTERS, letters, counts)
            if taken is None:
                return Passed(f"{name} with a flag it does not know", a)
            i += taken
        i += 1
    if not patterns:
        if not operands:
            return Passed(f"{name} without a pattern")
        patterns.append(operands.pop(0))
    if len(globs) > 1 or len(types) > 1:
        return Passed(f"{name} with several filters")
    if piped:
        if operands:
            return Passed(f"{name} reading a pipe and files")
        operands = list(piped)
    elif not operands and not rg and not letters & {"r", "R"}:
        return Passed(f"{name} of standard input")
    if "G" in letters:
        letters.discard("G")
    context = counts.get("C")
    ask = GrepAsk(
        pattern=grep_regex(tuple(patterns), extended="E" in letters or rg, fixed="F" in letters, word="w" in letters),
        paths=tuple(operands),
        case_insensitive="i" in letters,
        before=counts.get("B", context),
        after=counts.get("A", context),
        files_only="l" in letters,
        glob=globs[0] if globs else None,
        type=types[0] if types else None,
        files_required=not rg and not letters & {"r", "R"} and not piped,
    )
    return (ask,)


def _bundle(
    flags: str, nxt: str | None, known: frozenset[str], letters: set[str], counts: dict[str, int]
) -> int | None:
    """Take a bundle of short flags (``rn``, ``C5``, ``A`` then ``nxt``); returns how many more
    words it used (0 or 1), or None for a letter not known."""
    for k, letter in enumerate(flags):
        if letter in "ABC":
            rest = flags[k + 1 :]
            if rest:
                if not rest.isdigit():
                    return None
                counts[letter] = int(rest)
                return 0
            if nxt is None or not nxt.isdigit():
                return None
            counts[letter] = int(nxt)
            return 1
        if letter not in known:
            return None
        letters.add(letter)
    return 0
