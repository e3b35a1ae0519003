"""leanread with the other ``dedup`` settings (``leanread.ledger.dedup``): ``on`` (stubs against any
earlier result still visible) and ``off`` (every read shows its text); the default ``recent`` is
the ``leanread`` strategy. The reads pointing back at old results are noted (``STALE_AGES``), so
the report shows what each setting costs and how often a stub would point at text a client that
silently drops old results no longer has."""

from __future__ import annotations

from .leanread import Leanread


class LeanreadDedupOn(Leanread):
    name = "leanread-dedup-on"
    title = "leanread with dedup=on: stubs against any earlier result still visible"
    order = 91
    dedup = "on"


class LeanreadDedupOff(Leanread):
    name = "leanread-dedup-off"
    title = "leanread with dedup=off: every read shows its text"
    order = 91
    dedup = "off"
