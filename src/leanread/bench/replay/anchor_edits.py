"""What an anchor's edit tool answers when the file does not hold the agent's old text exactly.

The replay runs on a release, not the traced commit, so some of the agents' edits name text the
release lacks. The engine's replayer (an exact match) skips them and leanread refuses them; an
anchor is charged what its own tool would have answered on the same file, not its success line.

opencode (``packages/opencode/src/tool/edit.ts``, read 2026-12-07) does not need an exact match:
``replace`` tries nine matchers in order and takes the first candidate found once in the file.
They are modelled here from that source's behaviour: exact; line by line with each line trimmed;
a block of 3+ lines whose trimmed first and last lines match (one such block is taken whatever
its middle; of several, the one whose middle lines are on average at least 0.3 alike by
Levenshtein distance); whitespace runs collapsed; indentation removed; escapes (``\\n``,
``\\t``, quotes) undone; the text trimmed; first and last lines with half the middle lines equal.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from ...code.edit_text import lines_of

#: opencode's errors, as ``replace`` throws them (the model sees ``Error: `` and the message).
OPENCODE_NOT_FOUND = (
    "Error: Could not find oldString in the file. It must match exactly, including whitespace, "
    "indentation, and line endings."
)
OPENCODE_MULTIPLE = (
    "Error: Found multiple matches for oldString. Provide more surrounding context to make the match unique."
)

_Matcher = Callable[[str, str], Iterator[str]]


def opencode_edit_error(content: str, old: str, replace_all: bool = False) -> str | None:
    """opencode's answer to an edit of ``content`` (the file's text, ``\\n`` line endings) that
    replaces ``old``: None when one of its matchers finds a candidate it would replace, else its
    error text (not found, or found several times without ``replace_all``)."""
    found = False
    for matcher in _MATCHERS:
        for candidate in matcher(content, old):
            first = content.find(candidate)
            if first < 0:
                continue
            found = True
            if replace_all or content.rfind(candidate) == first:
                return None
    return OPENCODE_MULTIPLE if found else OPENCODE_NOT_FOUND


def _exact(content: str, old: str) -> Iterator[str]:
    yield old


def _line_trimmed(content: str, old: str) -> Iterator[str]:
    lines, wanted = content.split("\n"), [line.strip() for line in lines_of(old)]
    for i in range(len(lines) - len(wanted) + 1):
        if all(lines[i + j].strip() == w for j, w in enumerate(wanted)):
            yield "\n".join(lines[i : i + len(wanted)])


def _levenshtein(a: str, b: str) -> int:
    if not a or not b:
        return max(len(a), len(b))
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def _anchored_blocks(lines: list[str], first: str, last: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each block from a line equal to ``first`` (trimmed) to the nearest line at
    least two below it equal to ``last``."""
    for i, line in enumerate(lines):
        if line.strip() != first:
            continue
        for j in range(i + 2, len(lines)):
            if lines[j].strip() == last:
                yield i, j
                break


def _middle_alike(lines: list[str], start: int, end: int, wanted: list[str]) -> float:
    """The mean likeness (1 - Levenshtein distance / longer length) of the middle lines."""
    count = min(len(wanted), end - start + 1) - 2
    if count <= 0:
        return 1.0
    total = 0.0
    for k in range(1, count + 1):
        a, b = lines[start + k].strip(), wanted[k].strip()
        longest = max(len(a), len(b))
        if longest:
            total += 1 - _levenshtein(a, b) / longest
    return total / count


def _block_anchor(content: str, old: str) -> Iterator[str]:
    if len(old.split("\n")) < 3:
        return
    wanted, lines = lines_of(old), content.split("\n")
    blocks = list(_anchored_blocks(lines, wanted[0].strip(), wanted[-1].strip()))
    if len(blocks) == 1:
        start, end = blocks[0]
        yield "\n".join(lines[start : end + 1])
    elif blocks:
        score, (start, end) = max((_middle_alike(lines, s, e, wanted), (s, e)) for s, e in blocks)
        if score >= 0.3:
            yield "\n".join(lines[start : end + 1])


def _collapse(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _whitespace_collapsed(content: str, old: str) -> Iterator[str]:
    wanted, lines = _collapse(old), content.split("\n")
    words = old.split()
    for line in lines:
        if _collapse(line) == wanted:
            yield line
        elif wanted in _collapse(line) and words:
            match = re.search(r"\s+".join(map(re.escape, words)), line)
            if match:
                yield match.group(0)
    size = len(old.split("\n"))
    if size > 1:
        for i in range(len(lines) - size + 1):
            block = "\n".join(lines[i : i + size])
            if _collapse(block) == wanted:
                yield block


def _dedent(text: str) -> str:
    lines = text.split("\n")
    indents = [len(line) - len(line.lstrip()) for line in lines if line.strip()]
    if not indents:
        return text
    cut = min(indents)
    return "\n".join(line[cut:] if line.strip() else line for line in lines)


def _indentation_flexible(content: str, old: str) -> Iterator[str]:
    wanted, lines, size = _dedent(old), content.split("\n"), len(old.split("\n"))
    for i in range(len(lines) - size + 1):
        block = "\n".join(lines[i : i + size])
        if _dedent(block) == wanted:
            yield block


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "'": "'", '"': '"', "`": "`", "\\": "\\", "\n": "\n", "$": "$"}


def _unescape(text: str) -> str:
    return re.sub(r"\\(n|t|r|'|\"|`|\\|\n|\$)", lambda m: _ESCAPES[m.group(1)], text)


def _escape_normalized(content: str, old: str) -> Iterator[str]:
    wanted = _unescape(old)
    if wanted in content:
        yield wanted
    lines, size = content.split("\n"), len(wanted.split("\n"))
    for i in range(len(lines) - size + 1):
        block = "\n".join(lines[i : i + size])
        if _unescape(block) == wanted:
            yield block


def _trimmed_boundary(content: str, old: str) -> Iterator[str]:
    trimmed = old.strip()
    if trimmed == old:
        return
    if trimmed in content:
        yield trimmed
    lines, size = content.split("\n"), len(old.split("\n"))
    for i in range(len(lines) - size + 1):
        block = "\n".join(lines[i : i + size])
        if block.strip() == trimmed:
            yield block


def _context_aware(content: str, old: str) -> Iterator[str]:
    if len(old.split("\n")) < 3:
        return
    wanted, lines = lines_of(old), content.split("\n")
    for start, end in _anchored_blocks(lines, wanted[0].strip(), wanted[-1].strip()):
        block = lines[start : end + 1]
        if len(block) != len(wanted):
            continue
        pairs = [(a.strip(), b.strip()) for a, b in zip(block[1:-1], wanted[1:-1], strict=True)]
        pairs = [(a, b) for a, b in pairs if a or b]
        if not pairs or sum(a == b for a, b in pairs) / len(pairs) >= 0.5:
            yield "\n".join(block)


_MATCHERS: tuple[_Matcher, ...] = (
    _exact,
    _line_trimmed,
    _block_anchor,
    _whitespace_collapsed,
    _indentation_flexible,
    _escape_normalized,
    _trimmed_boundary,
    _context_aware,
)
