"""Per file: what the model of a session holds, rebuilt from the results alone, against the disk.

The results of a session's calls are replayed through the replay's reconstructor
(``bench.replay.reconstruct``): every read (full text, stubs, markers, diffs, outlines, focused
views), grep, edit, write and refusal that showed the file. Each line a call showed is checked
against the version of the file the ledger says that call showed; a line that differs, or a
result that cannot be rebuilt, is a divergence. The final view is set beside the file on disk.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from ..ledger.store import CALL, CARRY, LedgerStore, ViewRecord
from ..ledger.transcript import CallRecord
from ..result import ToolResult
from ..view import reconstruct as rc
from .queries import ranges_text


@dataclass(frozen=True)
class Row:
    """One line of the side-by-side view: what the model holds and what the disk has."""

    number: int
    held: str | None
    disk: str | None
    differs: bool


@dataclass(frozen=True)
class Version:
    """One version of the file the model was shown: its hash, the calls and the lines."""

    version: str
    calls: str
    lines: str


@dataclass
class FileView:
    """Everything the file page shows."""

    path: str
    versions: list[Version] = field(default_factory=list)
    divergences: list[str] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    disk_note: str = ""


def _result(call: CallRecord) -> ToolResult:
    return ToolResult(call.text, call.is_error, dict(call.metadata), call.images)


def _same(held: str, line: str) -> bool:
    """Whether the model's ``held`` text is ``line`` (or its start, cut with a line-cut marker)."""
    if held == line:
        return True
    cut = rc.CUT.search(held)
    return cut is not None and line.startswith(held[: cut.start()].rstrip("…").rstrip())


def _grep_key(text: str, names: set[str], real: str) -> str | None:
    for row in text.split("\n"):
        if row and not row.startswith((" ", "(", "<")) and (row in names or real == row or real.endswith("/" + row)):
            return row
    return None


def _step(view: rc.View, call: CallRecord, names: set[str], real: str) -> None:
    """Take one call's result into ``view``; raises ``rc.Divergence`` when it does not add up."""
    result, meta, args = _result(call), call.metadata, call.arguments
    if call.tool == "read" and not call.is_error:
        if meta.get("type") == "outline":
            rc.apply_outline(view, result)
        elif meta.get("type") == "file" and str(call.text.split("<content>\n", 1)[-1]).startswith("[focus: "):
            rc.apply_focus(view, result)
        elif meta.get("type") == "file":
            rc.apply_read(view, result)
    elif call.tool == "edit" and not call.is_error:
        rc.apply_edit(view, result, str(args.get("old_string", "")), str(args.get("new_string", "")))
    elif call.tool == "write" and not call.is_error:
        rc.apply_write(view, result, str(args.get("content", "")))
    elif call.tool in ("edit", "write") and "\n@@ " in call.text:
        rc.apply_refusal(view, result)
    elif call.tool == "grep" and not call.is_error:
        key = _grep_key(call.text, names, real)
        if key is not None:
            rc.apply_grep({key: view}, result)


def _check(view: rc.View, call: CallRecord, text: str | None) -> list[str]:
    """The lines ``call`` showed that differ from the version it showed."""
    if text is None:
        return []
    lines = text.split("\n")
    wrong = []
    for n, (held, calls) in sorted(view.lines.items()):
        if call.call_id in calls and not (n <= len(lines) and _same(held, lines[n - 1])):
            wrong.append(
                f"line {n}: the model holds {held!r}, the version has {lines[n - 1] if n <= len(lines) else None!r}"
            )
    return wrong


def rebuild(store: LedgerStore, real: str, calls: list[CallRecord], records: list[ViewRecord],
            states: dict[str, bool], disk: bytes | None) -> FileView:  # fmt: skip
    """The file page of ``real`` (a realpath) in a session: ``calls`` are the session's calls
    that showed it, in order, ``records`` its view records of the file, ``states`` its
    ``call_states``, ``disk`` the file's bytes now (None: gone)."""
    mine = [r for r in records if r.path == real and r.kind not in (CALL, CARRY)]
    ids = {r.call_id for r in mine}
    by_call = {r.call_id: r for r in mine}
    names = {str(c.metadata["path"]) for c in calls if c.call_id in ids and "path" in c.metadata}
    page = FileView(real)
    versions: dict[str, list[ViewRecord]] = {}
    for r in mine:
        versions.setdefault(r.content_hash, []).append(r)
    number = {c.call_id: c.number for c in calls}
    for digest, shown in versions.items():
        spans = "; ".join(f"#{number.get(r.call_id, '?')}: {ranges_text(r.ranges)}" for r in shown)
        page.versions.append(Version(digest[:12], ", ".join(r.call_id for r in shown), spans))
    view = rc.View()
    for call in calls:
        if call.call_id not in ids:
            continue
        try:
            _step(view, call, names, real)
        except rc.Divergence as exc:
            page.divergences.append(f"call #{call.number} ({call.call_id}): cannot be rebuilt: {exc}")
            view = rc.View()
            continue
        text = store.get_version(by_call[call.call_id].content_hash)
        page.divergences += [f"call #{call.number} ({call.call_id}): {w}" for w in _check(view, call, text)]
    gone = {call_id for call_id, visible in states.items() if not visible}
    rc.compact(view, gone)
    page.rows, page.disk_note = _side_by_side(view, disk, mine)
    return page


def _side_by_side(view: rc.View, disk: bytes | None, mine: list[ViewRecord]) -> tuple[list[Row], str]:
    if disk is None:
        lines: list[str] = []
        note = "The file is no longer on disk."
    else:
        lines = disk.decode("utf-8", "replace").replace("\r\n", "\n").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        latest = mine[-1].content_hash if mine else ""
        same = hashlib.sha256(disk).hexdigest() == latest
        note = (
            "The disk has the version the model saw last."
            if same
            else "The file changed on disk since the model last saw it."
        )
    last = max([*view.lines, len(lines)], default=0)
    rows = []
    for n in range(1, last + 1):
        held = view.lines[n][0] if n in view.lines else None
        on_disk = lines[n - 1] if n <= len(lines) else None
        rows.append(Row(n, held, on_disk, held is not None and (on_disk is None or not _same(held, on_disk))))
    return rows, note
