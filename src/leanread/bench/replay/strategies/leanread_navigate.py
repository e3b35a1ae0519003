"""leanread-outline, with the traces' definition-seeking greps answered by the symbol index.

A grep whose one pattern asks where a name is defined (``def get_queryset``, ``class QuerySet\\b``,
``^\\s*function render``, ``func (s *Store) Get`` is not: only a keyword and a literal name, then
nothing but ``(``, ``:``, ``\\b``, a space or the end) is answered by ``read(symbol=NAME)`` through
the same Session, with the grep's one file or folder as its path (a file that does not define
the name is refused, and the workspace is asked as the file read last sees it): one definition
comes back read (the model holds its lines, and a later read of them is a stub), several as the
ranked list. A name the index does not define is searched as the
trace searched it (the grep is charged after the lookup's answer). Everything else is
leanread-outline's.

What the lookup did not show is paid for: a line of a file the grep had hits in that the agent
later edits without any output having shown it (the grep's hit lines were what it used) is read
first by a follow-up read, as leanread-outline charges the lines an outline left out.

Notes: ``lookups: definition|list|none``, ``lookup tokens``, and ``grep tokens replaced`` (what
leanread's own grep gives for the same calls, counted on a second Session that nothing else sees).
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from ....ledger.store import MemoryLedger
from ....session import Session
from ....symbols import drop_store, use_store
from ....tokens import count_tokens
from ..calls import GrepCall, ReadCall, snapshot
from .leanread_outline import LeanreadOutline, replaced_lines

#: ``def name``, ``class Name``, ``function name`` … with optional anchors and spacing as grep
#: patterns write them; group 1 is the name, group 2 what follows it.
DEFINITION = re.compile(
    r"^\^?(?:\\s\*|\[\[:space:\]\]\*|\s*)?(?:async\s+|export\s+|pub\s+)?"
    r"(?:def|class|function|func|fn|interface|type|struct|enum|trait)"
    r"(?:\\s\+|\[\[:space:\]\]\+|\\s\*|\s+| )"
    r"([A-Za-z_][A-Za-z0-9_]*)(.*)$"
)
#: What may follow the name: nothing, or a boundary (``(``, ``\(``, ``:``, ``\b``, a space).
_AFTER = ("", "(", "\\(", ":", "\\b", " ", "\\s", "[(:]", "\\>")


def defined_name(call: GrepCall) -> str | None:
    """The name a grep looks for the definition of, or None when it is not such a grep."""
    if len(call.patterns) != 1 or call.files_only or call.count or call.fixed:
        return None
    found = DEFINITION.match(call.patterns[0])
    if found is None:
        return None
    rest = found.group(2)
    if (rest and not any(rest.startswith(a) for a in _AFTER if a)) or (
        rest and rest.startswith("\\b") and len(rest) > 2
    ):
        return None
    return found.group(1)


class LeanreadNavigate(LeanreadOutline):
    name = "leanread-navigate"
    title = (
        "leanread-outline, with definition-seeking greps (def name, class Name, function name) answered by "
        "read(symbol=name) over the workspace's symbol index, a follow-up read for what it did not show"
    )
    order = 96

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self._index_folder = tempfile.mkdtemp(prefix="leanread-replay-symbols-")
        policy = self.session.workspace.policy
        self._index = use_store(str(root), policy, Path(self._index_folder) / "index.sqlite3")
        self.looked_up: set[str] = set()
        self._shadow: Session | None = None

    def finish(self) -> dict[str, list[str]]:
        drop_store(self._index)
        shutil.rmtree(self._index_folder, ignore_errors=True)
        return super().finish()

    def grep(self, call: GrepCall) -> str:
        name = defined_name(call)
        if name is None:
            return super().grep(call)
        refused, result = self._lookup(call, name)
        kind = result.metadata.get("type")
        how = "definition" if kind == "file" else ("list" if result.metadata.get("definitions") else "none")
        self.notes[f"lookups: {how}"] += 1
        self.notes["grep tokens replaced"] += self._grep_tokens(call)
        self.looked_up |= {h.path for h in call.hits}
        if how == "definition":
            path = str(result.metadata["path"])
            file = snapshot(self.root, path)
            if file is not None:
                first, last = int(result.metadata["offset"]), int(result.metadata["last_line"])
                text = "\n".join(
                    [*refused, self.checked(ReadCall(path, first, last - first + 1, file, call.step), result)]
                )
                self.label = "lookup"
                self.notes["lookup tokens"] += count_tokens(text)
                return text
        self.label = "lookup"
        text = "\n".join([*refused, result.text])
        self.notes["lookup tokens"] += count_tokens(text)
        if how == "none":
            return "\n".join([text, super().grep(call)])
        return text

    def _lookup(self, call: GrepCall, name: str) -> tuple[list[str], Any]:
        """``read(symbol=name)`` in the one file or folder the grep searched, as an agent narrows it
        (a file that does not define the name is refused: that refusal is charged, then the
        workspace is asked, as the file read last sees the name); the workspace when it searched
        the root or several paths. Returns the refusals' texts and the answer."""
        paths = [p for p in call.paths if p.strip("./")]
        if len(paths) == 1 and (self.root / paths[0]).exists():
            narrowed = self.session.read(paths[0], symbol=name)
            if not narrowed.is_error:
                return [], narrowed
            return [narrowed.text], self.session.read(symbol=name)
        return [], self.session.read(symbol=name)

    def _grep_tokens(self, call: GrepCall) -> int:
        """Tokens of leanread's grep for ``call``, on a Session of its own (it records nothing here)."""
        if self._shadow is None:
            self._shadow = Session([self.root], ledger=MemoryLedger(), limits=self.session.limits)
        texts = [
            self._shadow.grep(
                self.grep_pattern(call), path, case_insensitive=call.ignore_case, before=call.before or None,
                after=call.after or None,
            ).text
            for path in call.paths
        ]  # fmt: skip
        return count_tokens("\n".join(texts))

    @staticmethod
    def grep_pattern(call: GrepCall) -> str:
        from ..searching import ripgrep_pattern

        return ripgrep_pattern(call)

    def apply(self, op: dict[str, Any]) -> tuple[bool, str]:
        path = str(op["path"])
        before: list[str] = []
        if op["op"] == "edit" and path in self.looked_up and path not in self.outlined:
            file = snapshot(self.root, path)
            if file is not None:
                before = self._follow_ups(path, replaced_lines(file, str(op["old"])), int(op.get("step", 0)), "edit")
        done, text = super().apply(op)
        return done, "\n".join([*before, text])
