"""The lossless floor: each version of a line is shown once per session, plus a minimal envelope
per call. No real tool can do less without leaving something out.

- read: the window as kilo-plain picks it (2000 lines, 50 KB); the header ``path A-B``, then only
  the lines whose version was not shown before, each run of them after ``@N`` (its first line's
  number) unless the whole window is new. A line keeps its version through changes that leave it
  alone (``LineIds``: a diff against the version last seen).
- grep: ``path`` once per file, ``N:text`` for a line version not shown before, ``N`` for one
  already shown (the model needs the location, not the text again).
- list/glob: the header, then the entries the anchors list (the first ``LIST_LIMIT``) that were
  not listed before.
- the agent's own changes: nothing (their acknowledgements are not part of the floor).
"""

from __future__ import annotations

from pathlib import Path

from ..calls import GrepCall, ListCall, ReadCall, snapshot
from ..lineids import LineIds
from ..strategy import LIST_LIMIT, MAX_BYTES, Strategy, window


class Floor(Strategy):
    name = "floor"
    title = "floor: each line version shown once, plus a minimal envelope per call"
    order = 50

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self._ids = LineIds()
        self._shown: set[int] = set()
        self._listed: set[str] = set()

    def read(self, call: ReadCall) -> str:
        first, lines, _ = window(call, MAX_BYTES, "")
        ids = self._ids.ids(call.path, call.file.lines)
        last = first + len(lines) - 1
        rows: list[str] = []
        fresh = {n for n in range(first, last + 1) if ids[n - 1] not in self._shown}
        whole = len(fresh) == len(lines)
        for n in sorted(fresh):
            if not whole and n - 1 not in fresh:
                rows.append(f"@{n}")
            rows.append(lines[n - first])
            self._shown.add(ids[n - 1])
        return "\n".join([f"{call.path} {first}-{last}", *rows])

    def grep(self, call: GrepCall) -> str:
        rows: list[str] = []
        ids: list[int] | None = None
        current = None
        for hit in call.hits:
            if hit.path != current:
                rows.append(hit.path)
                current = hit.path
                file = snapshot(self.root, hit.path)
                ids = self._ids.ids(hit.path, file.lines) if file is not None else None
            if call.files_only or call.count:
                continue
            line_id = ids[hit.line - 1] if ids is not None and hit.line <= len(ids) else None
            if line_id is not None and line_id in self._shown:
                rows.append(str(hit.line))
            else:
                rows.append(f"{hit.line}:{hit.text}")
                if line_id is not None:
                    self._shown.add(line_id)
        return "\n".join(rows) if rows else "no matches"

    def listing(self, call: ListCall) -> str:
        new = [e for e in call.entries[:LIST_LIMIT] if f"{call.path}/{e}" not in self._listed]
        self._listed.update(f"{call.path}/{e}" for e in new)
        return "\n".join([call.path, *new])
