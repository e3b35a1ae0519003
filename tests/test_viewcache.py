"""``viewcache.ViewCache`` against the store it stands before: whatever the appends, hides and
reads, and however small the cache, every read gives exactly the store's records."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from leanread.ledger.store import ViewRecord
from leanread.ledger.viewcache import ViewCache


class ListStore:
    """Records per (session, path) in a list, a hide counter and a birth mark per session."""

    def __init__(self) -> None:
        self.records: list[tuple[str, ViewRecord]] = []
        self.hides: dict[str, int] = {}
        self.born: dict[str, int] = {}
        self.seq: dict[str, int] = {}
        self.fetched = 0  # records handed to the cache
        self.births = 0

    def append(self, session: str, path: str) -> None:
        self.seq[session] = self.seq.get(session, 0) + 1
        if session not in self.born:
            self.births += 1
            self.born[session] = self.births
        digest = f"h{self.born[session]}"  # a session begun again shows other versions
        record = ViewRecord(f"r{self.seq[session]}", path, digest, ((1, 2),), 1, 1, seq=self.seq[session])
        self.records.append((session, record))

    def hide(self, session: str, seq: int) -> None:
        self.records = [(s, replace(r, visible=False) if s == session and r.seq == seq else r) for s, r in self.records]
        self.hides[session] = self.hides.get(session, 0) + 1

    def expire(self, session: str) -> None:
        """The session's keys all go (a Redis idle expiry); the id may be begun again."""
        self.records = [(s, r) for s, r in self.records if s != session]
        for counter in (self.hides, self.born, self.seq):
            counter.pop(session, None)

    def truth(self, session: str, path: str) -> list[ViewRecord]:
        return [r for s, r in self.records if s == session and r.path == path]

    def fetch(self, session: str, path: str, after: int) -> tuple[object, int, list[ViewRecord]]:
        found = [r for r in self.truth(session, path) if r.seq > after]
        self.fetched += len(found)
        return self.born.get(session), self.hides.get(session, 0), found

    def hidden(self, session: str, path: str, seqs: list[int]) -> set[int]:
        return {r.seq for r in self.truth(session, path) if not r.visible} & set(seqs)

    def views(self, cache: ViewCache, session: str, path: str) -> list[ViewRecord]:
        return cache.views(
            session, path, lambda after: self.fetch(session, path, after), lambda seqs: self.hidden(session, path, seqs)
        )


STEPS = st.lists(
    st.tuples(
        st.sampled_from(["append", "append", "read", "read", "hide", "expire"]),
        st.sampled_from(["s1", "s2"]),
        st.sampled_from(["/a", "/b", "/c"]),
        st.integers(1, 12),
    ),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(STEPS, st.integers(1, 8))
def test_every_read_gives_the_stores_records(steps: list[tuple[str, str, str, int]], room: int) -> None:
    store = ListStore()
    cache = ViewCache(max_records=room)
    for action, session, path, seq in steps:
        if action == "append":
            store.append(session, path)
        elif action == "hide":
            store.hide(session, seq)
        elif action == "expire":
            store.expire(session)
        else:
            assert store.views(cache, session, path) == store.truth(session, path)


def test_a_read_fetches_only_the_records_added_since_the_last() -> None:
    store = ListStore()
    cache = ViewCache()
    for _ in range(50):
        store.append("s", "/a")
    assert len(store.views(cache, "s", "/a")) == 50
    store.append("s", "/a")
    store.fetched = 0
    assert [r.seq for r in store.views(cache, "s", "/a")] == list(range(1, 52))
    assert store.fetched == 1
    store.hide("s", 3)
    store.fetched = 0
    assert store.views(cache, "s", "/a")[2].visible is False
    assert store.fetched == 0  # a hide: only which records are hidden is asked


def test_a_session_begun_again_after_expiry_is_fetched_anew() -> None:
    store = ListStore()
    cache = ViewCache()
    for _ in range(3):
        store.append("s", "/a")
    store.views(cache, "s", "/a")
    store.expire("s")
    for _ in range(5):
        store.append("s", "/a")
    got = store.views(cache, "s", "/a")
    assert [(r.seq, r.content_hash) for r in got] == [(n, "h2") for n in range(1, 6)]
