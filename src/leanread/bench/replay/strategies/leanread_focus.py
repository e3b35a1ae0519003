"""leanread with the agent's focus questions: a read or grep whose trace op carries one
(``calls.focus_question``: a ``focus`` or ``context_focus_question`` field) is made with
``focus=`` and pruned by the local backend; every other call is answered as ``leanread`` does.

Only traces that give questions measure anything here: the shared traces record what the agents
did, not what they were looking for, so none carries one, and the report says this strategy is
not measurable there rather than print leanread's own figures under its name. A pruned read is
checked too: each line it keeps must be the file's line at that number.
"""

from __future__ import annotations

from typing import Any

from ....render import cut_line
from ..calls import GrepCall, ReadCall
from ..reconstruct import Divergence, View, apply_focus
from .leanread import Leanread


class LeanreadFocus(Leanread):
    name = "leanread+focus"
    title = "leanread with the trace's focus questions (focus=, local backend); else as leanread"
    order = 92
    needs_note = "focus questions"

    def read(self, call: ReadCall) -> str:
        if call.focus is None:
            return super().read(call)
        self.notes["focus questions: read"] += 1
        extra: dict[str, Any] = {"mode": self.read_mode}
        result = self.session.read(call.path, offset=call.offset, limit=call.limit, focus=call.focus, **extra)
        if result.metadata.get("mode") != "focus":
            return self.checked(call, result)
        self.label = "focus"
        self.notes["reads: focus"] += 1
        try:
            kept = apply_focus(self.views.setdefault(call.path, View()), result)
        except Divergence as exc:
            self._diverged(call, f"cannot be rebuilt: {exc}")
            return result.text
        limit = self.session.limits.max_line_chars
        for n, text in kept.items():
            if text != cut_line(call.file.lines[n - 1], limit):
                self._diverged(call, f"line {n}: the model holds {text!r}, the file has {call.file.lines[n - 1]!r}")
                break
        return result.text

    def grep_options(self, call: GrepCall) -> dict[str, Any]:
        if call.focus is None:
            return {}
        self.notes["focus questions: grep"] += 1
        return {"focus": call.focus}
