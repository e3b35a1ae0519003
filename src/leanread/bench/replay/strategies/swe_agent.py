"""SWE-agent 0.x's file viewer and search commands, as its trajectories show them.

- A read is a 100-line window: ``[File: /PATH (N lines total)]``, ``(K more lines above)``, the
  lines as ``L:text`` (no space, no cut), ``(M more lines below)``. A read of more than 100 lines is
  the windows ``scroll_down`` would show one after another (each with its frame), up to the 2000
  lines the other anchors stop at. No dedup: an ``open`` of the same window shows it again.
- ``search_file``: ``Found N matches for "P" in /FILE:``, ``Line L:text`` rows, ``End of matches for
  "P" in /FILE``; a folder search with ``-c`` (``search_dir``) lists ``/FILE (k matches)``, and more
  than 100 files gives SWE-agent's "More than 100 files matched …" line. Context lines are not shown
  (SWE-agent's commands have none). ``find_file``: ``Found N matches for "NAME" in /DIR:`` and paths.
- An edit answers with the 100-line window from 50 lines above the first changed line and
  "File updated. …"; ``create`` shows the new file's window.
- Paths are shown as ``/`` + the trace's path; the real frame names the container's folder
  (``/fasterxml__jackson-core/…``), a few tokens more per call.
"""

from __future__ import annotations

from collections import Counter

from ..calls import ChangeCall, FileSnapshot, GrepCall, ListCall, ReadCall
from ..strategy import MAX_LINES, Strategy

WINDOW = 100
SEARCH_FILES_LIMIT = 100
UPDATED = (
    "File updated. Please review the changes and make sure they are correct (correct indentation, "
    "no duplicate lines, etc). Edit the file again if necessary."
)


def frame(path: str, lines: tuple[str, ...], first: int, count: int = WINDOW) -> str:
    """SWE-agent's window of ``count`` lines from line ``first`` (1-based) of ``lines``."""
    total = len(lines)
    first = max(1, min(first, max(total - count + 1, 1)))
    last = min(total, first + count - 1)
    out = [f"[File: /{path} ({total} lines total)]"]
    if first > 1:
        out.append(f"({first - 1} more lines above)")
    out += [f"{n}:{lines[n - 1]}" for n in range(first, last + 1)]
    if last < total:
        out.append(f"({total - last} more lines below)")
    return "\n".join(out)


class SweAgent(Strategy):
    name = "swe-agent"
    title = "swe-agent: 100-line windows `N:text` in a `[File: …]` frame, no dedup"
    order = 45

    def read(self, call: ReadCall) -> str:
        lines = call.file.lines
        if not lines:
            return f"[File: /{call.path} (0 lines total)]"
        first = max(call.offset or 1, 1)
        end = min(len(lines), first - 1 + (call.limit or MAX_LINES))
        windows = [
            frame(call.path, lines, start, min(WINDOW, end - start + 1)) for start in range(first, end + 1, WINDOW)
        ]
        return "\n".join(windows)

    def grep(self, call: GrepCall) -> str:
        pattern = " ".join(call.patterns)
        where = "/" + (call.paths[0] if call.paths else ".")
        matches = [h for h in call.hits if h.match]
        if not matches:
            return f'No matches found for "{pattern}" in {where}'
        if call.count or call.files_only:
            counts = Counter(h.path for h in matches)
            if len(counts) > SEARCH_FILES_LIMIT:
                more = f"More than {SEARCH_FILES_LIMIT} files matched"
                return f'{more} for "{pattern}" in {where}. Please narrow your search.'
            rows = [f"/{path} ({n} matches)" for path, n in counts.items()]
        else:
            single = len({h.path for h in matches}) == 1 and call.paths and matches[0].path == call.paths[0]
            rows = [f"Line {h.line}:{h.text}" if single else f"/{h.path}:{h.line}:{h.text}" for h in matches]
        head = f'Found {len(matches)} matches for "{pattern}" in {where}:'
        return "\n".join([head, *rows, f'End of matches for "{pattern}" in {where}'])

    def listing(self, call: ListCall) -> str:
        if call.kind == "glob":
            where = "/" + call.path
            name = call.pattern or "*"
            if not call.entries:
                return f'No matches found for "{name}" in {where}'
            base = "" if call.path in (".", "") else call.path + "/"
            rows = [f"/{base}{entry}" for entry in call.entries]
            return "\n".join([f'Found {len(call.entries)} matches for "{name}" in {where}:', *rows])
        return "\n".join(call.entries) if call.entries else ""

    def changed(self, call: ChangeCall) -> str:
        if call.kind == "shell" or call.after is None:
            return ""
        if call.kind == "write" and call.before is None and not call.after.lines:
            return frame(call.path, ("",), 1)
        start = _first_change(call.before, call.after)
        return frame(call.path, call.after.lines or ("",), start - WINDOW // 2) + "\n" + UPDATED


def _first_change(before: FileSnapshot | None, after: FileSnapshot) -> int:
    """The first line (1-based) where ``after`` differs from ``before``."""
    old = before.lines if before is not None else ()
    for n, (a, b) in enumerate(zip(old, after.lines, strict=False), start=1):
        if a != b:
            return n
    return min(len(old), len(after.lines)) + 1
