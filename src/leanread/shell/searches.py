"""``grep``/``egrep``/``fgrep``/``rg`` commands with the flags leanread knows, as a ``GrepAsk``."""

from __future__ import annotations

from .asks import Ask, GrepAsk, Passed
from .patterns import grep_regex

_GREP_LETTERS = frozenset("nirREFGwlHIs")
_RG_LETTERS = frozenset("niFwlHs")


def search(words: list[str], piped: tuple[str, ...]) -> tuple[Ask, ...] | Passed:
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
