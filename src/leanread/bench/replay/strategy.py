"""What a replay strategy is, and the pieces the anchor strategies share.

A strategy answers each call of a trace (``read``, ``grep``, ``list``/``glob``, and the agent's own
changes) with the text a tool following its rules would put into the model's context window; the
engine counts the tokens. Strategies live in ``strategies/``, one small class per file; a class
with a ``name`` there is found by ``strategies.available()``: adding a strategy is adding a file.

The anchors (opencode, kilo, Claude Code) are our own code following their documented behaviour;
``AnchorStrategy`` holds what they have in common and each anchor sets its differences as class
attributes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from ..ops import OLD_TEXT_NOT_FOUND
from .anchor_edits import opencode_edit_error
from .calls import ChangeCall, GrepCall, Hit, ListCall, ReadCall

#: Lines per read when no limit is given (opencode and Claude Code both use 2000).
MAX_LINES = 2000
#: Characters of a line before it is cut (opencode, Claude Code).
MAX_LINE_CHARS = 2000
#: opencode's cap on the bytes of a read's lines (``MAX_BYTES``, 50 KB).
MAX_BYTES = 50 * 1024
#: opencode's cap on the matches of one grep call, and on a listing's entries.
GREP_LIMIT = 100
LIST_LIMIT = 100


class Strategy:
    """One way to answer the calls of a trace; one instance per trace replay.

    Class attributes:
        name: the id used on the command line and in the results (``opencode``).
        title: one line for the report: whose behaviour and its rules.
        order: position in tables (anchors first, leanread last).
        applies_changes: the strategy makes the agent's ``edit`` and ``write`` changes itself
            (``apply``); the first such strategy of a run changes the shared copy (the engine
            applies a change directly when none runs or it refuses), later ones make the same
            change on the file as it was before, which is then put back (``engine._Run._also``).
        needs_note: see below; "" for a strategy that measures every trace.

    Attributes:
        root: the scratch copy (shared by every strategy of the trace; read it, never change it,
            except in ``apply``).
        notes: counters the report shows (stubs sent, edits refused, …).
        divergences: truthfulness failures (``leanread`` only): each fails the run.
        label: how the last call was answered (``stub``, ``diff``, …), for the per-op results;
            set it in a call, the engine takes and clears it.
    """

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    order: ClassVar[int] = 100
    applies_changes: ClassVar[bool] = False
    #: A strategy that measures something only where the traces give what it needs names here the
    #: note prefix its calls count when they do (``focus questions``); without such a note the
    #: report calls it not measurable instead of printing its figures.
    needs_note: ClassVar[str] = ""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.notes: Counter[str] = Counter()
        self.divergences: list[str] = []
        self.label = ""

    def read(self, call: ReadCall) -> str:
        """The text of a ``read``."""
        raise NotImplementedError

    def grep(self, call: GrepCall) -> str:
        """The text of a ``grep``."""
        raise NotImplementedError

    def listing(self, call: ListCall) -> str:
        """The text of a ``list`` or ``glob``."""
        return plain_listing(call, GREP_LIMIT)

    def changed(self, call: ChangeCall) -> str:
        """The text the tool answers an agent's ``edit``/``insert``/``write``/``undo_edit`` with
        (after the engine applied it); ``""`` for shell commands, whose output is not counted."""
        return ""

    def apply(self, op: dict[str, Any]) -> tuple[bool, str]:
        """For ``applies_changes`` strategies: make the ``edit``/``write`` op's change; returns
        (done, the result's text). Not done means refused: the engine then applies it directly."""
        raise NotImplementedError

    def finish(self) -> dict[str, list[str]]:
        """Calls charged at the end of the trace, their texts by op kind: the follow-up reads a
        strategy that showed less (an outline) owes for the lines the agent used later."""
        return {}


# --- the anchors ------------------------------------------------------------------------------


def cut(line: str, suffix: str) -> str:
    """``line``, or its first ``MAX_LINE_CHARS`` characters and ``suffix``."""
    return line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + suffix


def window(call: ReadCall, max_bytes: int | None, suffix: str) -> tuple[int, list[str], str]:
    """opencode's window: from ``offset``, up to ``limit`` (default ``MAX_LINES``) lines, each cut
    at ``MAX_LINE_CHARS``, stopping before the lines' UTF-8 bytes (newlines included, prefixes not)
    would pass ``max_bytes``. Returns (first line number, the lines, why it stopped: ``eof``,
    ``limit`` or ``bytes``)."""
    lines = call.file.lines
    first = max(call.offset or 1, 1)
    end = min(len(lines), first - 1 + (call.limit or MAX_LINES))
    shown: list[str] = []
    used = 0
    for n in range(first, end + 1):
        line = cut(lines[n - 1], suffix)
        size = len(line.encode("utf-8")) + (1 if shown else 0)
        if max_bytes is not None and used + size > max_bytes:
            return first, shown, "bytes"
        shown.append(line)
        used += size
    return first, shown, "eof" if end == len(lines) else "limit"


def opencode_read(call: ReadCall, prefix: bool, max_bytes: int | None = MAX_BYTES) -> str:
    """opencode's ``read.ts`` output: the ``<path>``/``<type>``/``<content>`` envelope, ``N: ``
    prefixes (none with ``prefix=False``, as kilo), and the footer naming the next offset."""
    first, lines, stop = window(call, max_bytes, "... (line truncated to 2000 chars)")
    body = [f"{first + i}: {line}" if prefix else line for i, line in enumerate(lines)]
    last = first + len(lines) - 1
    if stop == "bytes":
        footer = f"(Output capped at 50 KB. Showing lines {first}-{last}. Use offset={last + 1} to continue.)"
    elif stop == "limit":
        footer = f"(Showing lines {first}-{last} of {call.file.total}. Use offset={last + 1} to continue.)"
    else:
        footer = f"(End of file - total {call.file.total} lines)"
    content = "\n".join(body)
    return f"<path>{call.path}</path>\n<type>file</type>\n<content>\n{content}\n\n{footer}\n</content>"


def opencode_grep(call: GrepCall) -> str:
    """opencode's ``grep.ts`` output: ``Found N matches``, then per file its path and
    ``  Line N: text`` rows, at most ``GREP_LIMIT`` matches. opencode's grep has no context
    parameter; context lines the agent asked for are shown the same way (as if it had read them)."""
    if call.files_only or call.count:
        return files_listing(call)
    matches = [h for h in call.hits if h.match]
    if not matches:
        return "No files found"
    kept = _first_matches(call.hits, GREP_LIMIT)
    out = [f"Found {len(matches)} matches" + (f" (showing first {GREP_LIMIT})" if len(matches) > GREP_LIMIT else "")]
    current = None
    for hit in kept:
        if hit.path != current:
            if current is not None:
                out.append("")
            out.append(f"{hit.path}:")
            current = hit.path
        out.append(f"  Line {hit.line}: {cut(hit.text, '...')}")
    if len(matches) > GREP_LIMIT:
        out += ["", "(Results are truncated. Consider using a more specific path or pattern.)"]
    return "\n".join(out)


def ripgrep_output(call: GrepCall) -> str:
    """Claude Code's ``Grep`` in content mode with ``-n``: ripgrep's ``path:N:text`` rows, context
    as ``path-N-text``, ``--`` between separate groups; ``-l`` gives ``Found N files`` and paths."""
    if call.files_only or call.count:
        return files_listing(call, header=True)
    if not call.hits:
        return "No matches found"
    out: list[str] = []
    previous: Hit | None = None
    for hit in call.hits:
        apart = previous is not None and (previous.path != hit.path or hit.line != previous.line + 1)
        if apart and (call.before or call.after):
            out.append("--")
        sep = ":" if hit.match else "-"
        out.append(f"{hit.path}{sep}{hit.line}{sep}{cut(hit.text, '')}")
        previous = hit
    return "\n".join(out)


def _first_matches(hits: Sequence[Hit], limit: int) -> list[Hit]:
    """The hits up to the ``limit``-th match, with the context of those matches."""
    kept: list[Hit] = []
    count = 0
    for hit in hits:
        if hit.match:
            count += 1
            if count > limit:
                break
        kept.append(hit)
    return kept


def files_listing(call: GrepCall, header: bool = False) -> str:
    """The files with a match, one per line (``grep -l``), or ``path:count`` rows (``grep -c``)."""
    if call.count:
        counts = Counter(h.path for h in call.hits if h.match)
        return "\n".join(f"{path}:{counts[path]}" for path in call.files) or "No files found"
    if not call.files:
        return "No files found"
    rows = list(call.files[:GREP_LIMIT])
    top = [f"Found {len(call.files)} files"] if header else []
    return "\n".join(top + rows)


def plain_listing(call: ListCall, limit: int | None) -> str:
    """A listing as the anchors give it: the folder, then one entry per line (folders end with
    ``/``), at most ``limit`` entries, then how many more there were."""
    entries = list(call.entries if limit is None else call.entries[:limit])
    more = len(call.entries) - len(entries)
    tail = [f"(Showing {len(entries)} of {len(call.entries)} entries; {more} more not shown.)"] if more > 0 else []
    head = [f"{call.path}/"] if call.kind == "list" else []
    return "\n".join(head + entries + tail) if call.entries else f"No files found in {call.path}"


class AnchorStrategy(Strategy):
    """An anchor: reads in opencode's envelope (``envelope``) or bare numbered lines (Claude
    Code), an optional byte cap, an optional unchanged stub keyed on path, range, mtime and size
    while the earlier output is still visible (it always is: the traces have no compaction)."""

    #: ``colon`` (``N: ``), ``plain`` or ``tab`` (``N\\t``).
    line_format: ClassVar[str] = "colon"
    #: the byte cap of a read's lines, or None.
    max_bytes: ClassVar[int | None] = MAX_BYTES
    #: the text of an unchanged re-read (``{path}``, ``{first}``, ``{last}`` filled in), or None: no dedup.
    stub: ClassVar[str | None] = None
    #: texts answering the agent's own changes (``{path}`` filled in).
    edit_ack: ClassVar[str] = "Edit applied successfully."
    write_ack: ClassVar[str] = "Wrote file successfully."

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self._seen: set[tuple[str, int, int | None, int, int]] = set()

    def read(self, call: ReadCall) -> str:
        if self.stub is not None:
            key = (call.path, max(call.offset or 1, 1), call.limit, call.file.mtime_ns, call.file.size)
            if key in self._seen:
                self.notes["unchanged stubs"] += 1
                self.label = "stub"
                first, lines, _ = window(call, self.max_bytes, "")
                last = first + max(len(lines), 1) - 1
                return self.stub.format(path=call.path, first=first, last=last)
            self._seen.add(key)
        return self.render(call)

    def render(self, call: ReadCall) -> str:
        """The full text of a read."""
        return opencode_read(call, prefix=self.line_format == "colon", max_bytes=self.max_bytes)

    def grep(self, call: GrepCall) -> str:
        return opencode_grep(call)

    def listing(self, call: ListCall) -> str:
        return plain_listing(call, LIST_LIMIT)

    def changed(self, call: ChangeCall) -> str:
        if call.kind == "shell":
            return ""
        if call.kind == "edit" and call.outcome.endswith(OLD_TEXT_NOT_FOUND):
            refusal = self.edit_refusal(call)
            if refusal is not None:
                return refusal
        return (self.write_ack if call.kind == "write" else self.edit_ack).format(path=call.path)

    def edit_refusal(self, call: ChangeCall) -> str | None:
        """What the tool answers an edit whose old text the file does not hold exactly (the
        replay's release differs from the traced commit there); None when its own matching finds
        the text anyway and it applies the edit. opencode's, by default."""
        old, content = old_and_content(call)
        return opencode_edit_error(content, old, bool(call.op.get("replace_all")))


def old_and_content(call: ChangeCall) -> tuple[str, str]:
    """An edit call's old text and the file's text before it (``\\n`` line endings; empty when
    the file did not exist)."""
    content = "\n".join(call.before.lines) if call.before is not None else ""
    return str(call.op.get("old", "")), content
