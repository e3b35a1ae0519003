"""leanread itself, in process: a ``Session`` on the scratch copy with an in-memory ledger, its
defaults and lossless features only (whole files in full: no outline). The agent's ``edit`` and
``write`` ops go through leanread's own tools; a refused one is applied directly by the engine
(counted) and reaches leanread as an outside change. Every read result is checked: the window
the model rebuilds from leanread's outputs alone (``reconstruct``) must equal the file."""

from __future__ import annotations

import dataclasses
import inspect
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from ....config.settings import Limits
from ....ledger.dedup import call_number
from ....ledger.store import MemoryLedger
from ....result import ToolResult
from ....session import Session
from ....view.reconstruct import Divergence, View, apply_edit, apply_grep, apply_read, apply_refusal, apply_write
from ....view.render import cut_line
from ..calls import ChangeCall, GrepCall, ListCall, ReadCall, snapshot
from ..searching import ripgrep_pattern
from ..strategy import Strategy, plain_listing

#: Tries of one change: the first, and one after the read (or diff) its refusal gave.
MAX_ATTEMPTS = 2
#: The read a refusal names: ``(offset=43, limit=1)`` or ``(offset=12)``.
HINT = re.compile(r"\(offset=(\d+)(?:, limit=(\d+))?\)")


def limits_with(read_mode: str, dedup: str = "recent") -> Limits:
    """leanread's default limits with this read mode (``full``: whole files in full, no
    outline) and dedup setting, where the build has them at all."""
    names = {f.name for f in dataclasses.fields(Limits)}
    limits = Limits()
    if "read_mode" in names:
        limits = dataclasses.replace(limits, read_mode=read_mode)
    if "dedup" in names:
        limits = dataclasses.replace(limits, dedup=dedup)
    return limits


#: A read pointing back at an earlier result this many calls old or older is noted: under a client
#: that silently drops results older than that, its stub or markers would point at text gone.
STALE_AGES = (10, 20, 40)


class Leanread(Strategy):
    """Subclasses may change ``read_mode`` (an outline strategy) and override ``read``; the
    session, the change handling and the check stay."""

    name = "leanread"
    title = "leanread: defaults, lossless features only (no outline), in-process Session"
    order = 90
    applies_changes = True
    #: What a read without offset/limit gives (``Limits.read_mode``).
    read_mode: ClassVar[str] = "full"
    #: When a re-read is answered from what the model has (``Limits.dedup``).
    dedup: ClassVar[str] = "recent"

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.session = Session([root], ledger=MemoryLedger(), limits=limits_with(self.read_mode, self.dedup))
        self.views: dict[str, View] = {}
        self._read_mode = "mode" in inspect.signature(self.session.read).parameters

    # --- reads and the truthfulness check ---------------------------------------------------

    def read(self, call: ReadCall) -> str:
        extra: dict[str, Any] = {"mode": self.read_mode} if self._read_mode else {}
        result = self.session.read(call.path, offset=call.offset, limit=call.limit, **extra)
        return self.checked(call, result)

    def checked(self, call: ReadCall, result: ToolResult) -> str:
        """``result``'s text, once the window it gives has been rebuilt and compared with the file."""
        meta = result.metadata
        if result.is_error or meta.get("type") != "file":
            self.notes["reads refused"] += int(result.is_error)
            return result.text
        self.label = str(meta.get("mode", "full"))
        self.notes[f"reads: {self.label}"] += 1
        self._note_age(meta)
        view = self.views.setdefault(meta["path"], View())
        try:
            rebuilt = apply_read(view, result)
        except Divergence as exc:
            self._diverged(call, f"cannot be rebuilt: {exc}")
            self.views[meta["path"]] = View()
            return result.text
        disk = [cut_line(line, self.session.limits.max_line_chars) for line in call.file.lines]
        expected = disk[meta["offset"] - 1 : meta["last_line"]]
        if rebuilt != expected:
            bad = next(i for i, (a, b) in enumerate(zip([*rebuilt, ""], [*expected, ""], strict=False)) if a != b)
            line = meta["offset"] + bad
            self._diverged(
                call,
                f"line {line}: the model holds {rebuilt[bad : bad + 1]!r}, the file has {expected[bad : bad + 1]!r}",
            )
            self.views[meta["path"]] = View()
        return result.text

    def _note_age(self, meta: dict[str, Any]) -> None:
        """Note a read whose stub, markers or diff point at a result ``STALE_AGES`` calls old or older."""
        now = call_number(str(meta.get("call_id", "")))
        earlier = [n for c in meta.get("unchanged_since") or () if (n := call_number(str(c))) is not None]
        if now is None or not earlier:
            return
        for age in STALE_AGES:
            if now - min(earlier) >= age:
                self.notes[f"reads pointing {age}+ calls back"] += 1

    def check_held(
        self,
        call: ReadCall,
        result: ToolResult,
        apply: Callable[[View, ToolResult], dict[int, str]],
        what: str,
        line_chars: int | None = None,
    ) -> None:
        """Check a result that holds only some lines by number (an outline, a focused read):
        ``apply`` takes it into the file's view and returns those lines, each of which must be
        the file's line there (cut at ``line_chars``, by default the read limit). A result that
        cannot be taken in resets the view."""
        path = result.metadata["path"]
        try:
            held = apply(self.views.setdefault(path, View()), result)
        except Divergence as exc:
            self._diverged(call, f"{what} cannot be rebuilt: {exc}")
            self.views[path] = View()
            return
        limit = line_chars or self.session.limits.max_line_chars
        wrong = [n for n, text in held.items() if text != cut_line(call.file.lines[n - 1], limit)]
        if wrong:
            self._diverged(call, f"{what} rows {wrong[:5]} differ from the file")

    def _diverged(self, call: ReadCall, what: str) -> None:
        self.divergences.append(f"step {call.step}: read {call.path} {call.offset or 1}+{call.limit or ''}: {what}")

    # --- the agent's changes ----------------------------------------------------------------

    def apply(self, op: dict[str, Any]) -> tuple[bool, str]:
        """The edit or write through leanread. A refusal is followed as a model would: the read it
        names (``offset=…, limit=…``) is made, or the diff it shows is taken in, and the change is
        tried once more; all of it is charged to the change."""
        texts: list[str] = []
        for attempt in range(MAX_ATTEMPTS):
            result = self._change(op)
            texts.append(result.text)
            if not result.is_error:
                outcome = "through leanread" if attempt == 0 else "through leanread after the read its refusal named"
                self.notes[f"{op['op']}s {outcome}"] += 1
                return True, "\n".join(texts)
            hint = HINT.search(result.text)
            if attempt + 1 < MAX_ATTEMPTS and hint and "not found" not in result.text:
                offset, limit = int(hint.group(1)), int(hint.group(2)) if hint.group(2) else None
                texts.append(self._read_for_retry(str(op["path"]), offset, limit, int(op.get("step", 0))))
            elif attempt + 1 >= MAX_ATTEMPTS or "\n@@ " not in result.text:
                break
        self.notes[f"{op['op']}s refused"] += 1
        return False, "\n".join(texts)

    def _change(self, op: dict[str, Any]) -> ToolResult:
        path = str(op["path"])
        if op["op"] == "edit":
            old, new = str(op["old"]), str(op.get("new", ""))
            edited = self.session.edit(path, old, new)
            self._follow(edited, lambda view: apply_edit(view, edited, old, new))
            return edited
        content = str(op.get("content", ""))
        written = self.session.write(path, content)
        self._follow(written, lambda view: apply_write(view, written, content))
        return written

    def _read_for_retry(self, path: str, offset: int, limit: int | None, step: int) -> str:
        file = snapshot(self.root, path)
        if file is None:
            return ""
        self.notes["reads a refusal named"] += 1
        return self.read(ReadCall(path, offset, limit, file, step))

    def _follow(self, result: ToolResult, update: Any) -> None:
        """Bring the model's view along with an edit or write result (or a refusal's diff)."""
        path = result.metadata.get("path")
        if result.is_error:
            if "\n@@ " in result.text and path in self.views:
                self._guarded(str(path), lambda view: apply_refusal(view, result))
            return
        if path is not None:
            self._guarded(str(path), update)

    def _guarded(self, path: str, update: Any) -> None:
        view = self.views.setdefault(path, View())
        try:
            update(view)
        except Divergence as exc:
            self.divergences.append(f"{path}: an edit result cannot be followed: {exc}")
            self.views[path] = View()

    def changed(self, call: ChangeCall) -> str:
        """Changes leanread did not make (``insert``, ``undo_edit``, appends) came from the
        agent's other tools, which answer as opencode's do."""
        if call.kind == "shell":
            return ""
        return "Wrote file successfully." if call.kind == "write" else "Edit applied successfully."

    # --- search and listings ----------------------------------------------------------------

    def grep(self, call: GrepCall) -> str:
        search = getattr(self.session, "grep", None)
        if search is None:  # a build without the grep tool: the stand-in below
            return _grep_stand_in(call)
        texts = []
        for path in call.paths:
            result = search(
                ripgrep_pattern(call),
                path,
                glob=call.name_filter,
                case_insensitive=call.ignore_case,
                before=call.before or None,
                after=call.after or None,
                files_only=call.files_only or call.count,
                **self.grep_options(call),
            )
            if not result.is_error:
                try:
                    apply_grep(self.views, result)
                except Divergence as exc:
                    self.divergences.append(f"step {call.step}: grep {path}: {exc}")
            else:
                self.notes["greps refused"] += 1
            texts.append(result.text)
        return "\n".join(texts)

    def grep_options(self, call: GrepCall) -> dict[str, Any]:
        """Further arguments of ``Session.grep`` for ``call`` (none here; see ``leanread+focus``)."""
        return {}

    def listing(self, call: ListCall) -> str:
        ls = getattr(self.session, "ls", None)
        if call.kind == "list" and ls is not None:
            return str(ls(call.path, depth=call.depth or 50).text)
        if call.kind == "list":
            return str(self.session.read(call.path).text)
        if ls is not None and "glob" in inspect.signature(ls).parameters:
            return str(ls(call.path, glob=call.pattern).text)
        return plain_listing(call, 100)  # a build without ls's glob: the rows as grep shows rows, no envelope


def _envelope(path: str, kind: str, body: str) -> str:
    return f"<path>{path}</path>\n<type>{kind}</type>\n<content>\n{body}\n</content>"


def _grep_stand_in(call: GrepCall) -> str:
    """leanread's grep result format (``tools/grep/``) for the hits GNU grep found, without the
    ledger: used only when the build has no ``Session.grep``."""
    rows: list[str] = []
    current = None
    count = 0
    for hit in call.hits:
        if hit.match:
            count += 1
            if count > 100:
                break
        if hit.path != current:
            rows.append(hit.path)
            current = hit.path
        rows.append(f"  m{count} {hit.line}: {hit.text}" if hit.match else f"  {hit.line}- {hit.text}")
    files = len({h.path for h in call.hits if h.match})
    summary = f"({count} matches in {files} files.)" if count else "(No matches.)"
    return _envelope(call.path, "grep", "\n".join([*rows, "", summary] if rows else [summary]))
