"""The writes a store holds until the process is idle (``behind``), and what its hot reads take
from them: a call's records, last path and transcript row (``HeldCall``), a shown version's text
(``HeldVersion``). Pure: the store passes ``WriteBehind.pending()``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .store import LastPath, ViewRecord
from .transcript import CallRecord

__all__ = [
    "Held",
    "HeldCall",
    "HeldVersion",
    "held_instructions",
    "held_last",
    "held_records",
    "held_text",
]


@dataclass(frozen=True)
class HeldCall:
    """One ``finish_call``: the call's records in order (their seqs taken when it was held), its
    last path (None: leave it), its transcript row (None: none), and the session's hide counter
    when it was held: a hide made meanwhile by another process (a client's compaction hook)
    could not know these records, so they are written as gone."""

    session_id: str
    records: tuple[ViewRecord, ...]
    last: LastPath | None
    call: CallRecord | None
    hides: int


@dataclass(frozen=True)
class HeldVersion:
    """One ``put_version``: a shown version's logical text."""

    content_hash: str
    text: str


Held = HeldCall | HeldVersion


def _calls(held: Iterable[Held], session_id: str) -> list[HeldCall]:
    return [h for h in held if isinstance(h, HeldCall) and h.session_id == session_id]


def held_records(held: Iterable[Held], session_id: str, path: str) -> list[ViewRecord]:
    """The held records of ``path`` in the session, oldest first."""
    return [r for h in _calls(held, session_id) for r in h.records if r.path == path]


def held_instructions(held: Iterable[Held], session_id: str) -> set[str]:
    """The instruction files of the session's held visible records."""
    return {name for h in _calls(held, session_id) for r in h.records if r.visible for name in r.instructions}


def held_last(held: Iterable[Held], session_id: str) -> LastPath | None:
    """The session's newest held last path, or None."""
    lasts = [h.last for h in _calls(held, session_id) if h.last is not None]
    return lasts[-1] if lasts else None


def held_text(held: Iterable[Held], content_hash: str) -> str | None:
    """The newest held text of the version ``content_hash``, or None."""
    texts = [h.text for h in held if isinstance(h, HeldVersion) and h.content_hash == content_hash]
    return texts[-1] if texts else None
