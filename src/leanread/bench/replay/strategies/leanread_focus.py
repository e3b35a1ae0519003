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

from ....view.reconstruct import apply_focus
from ..calls import GrepCall, ReadCall
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
        result = self.session.read(
            call.path, offset=call.offset, limit=call.limit, focus=call.focus, mode=self.read_mode
        )
        if result.metadata.get("mode") != "focus":
            return self.checked(call, result)
        self.label = "focus"
        self.notes["reads: focus"] += 1
        self.check_held(call, result, apply_focus, "the focused read")
        return result.text

    def grep_options(self, call: GrepCall) -> dict[str, Any]:
        if call.focus is None:
            return {}
        self.notes["focus questions: grep"] += 1
        return {"focus": call.focus}
