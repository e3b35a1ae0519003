"""Which ledger store a ``--ledger`` value names: ``memory``, a Redis URL, or a SQLite file."""

from __future__ import annotations

from .sqlite_store import shared_ledger
from .store import LedgerStore, MemoryLedger


def is_redis_url(text: str) -> bool:
    """Whether a ``--ledger`` value names a Redis server rather than a SQLite file."""
    return text.startswith(("redis://", "rediss://", "unix://"))


def open_ledger(spec: str | None, *, idle_seconds: int | None = None) -> LedgerStore:
    """The store ``spec`` names.

    Args:
        spec: ``memory`` (this process only), ``redis://host:port/db`` (``rediss://``,
            ``unix://`` too: a fleet of servers sharing sessions), a SQLite file path, or None
            for the default SQLite file (``ledger.sqlite_store.default_ledger_path()``).
        idle_seconds: for Redis, how long a session's keys live after its last write (default
            ``ledger.redis_store.IDLE_SECONDS``, 7 days).

    Raises:
        LeanreadError: the SQLite file cannot be opened, or the Redis server does not answer.
    """
    if spec == "memory":
        return MemoryLedger()
    if spec is not None and is_redis_url(spec):
        from .redis_store import RedisLedger  # the redis client costs 0.1 s to import; a CLI call pays it only here

        return RedisLedger(spec) if idle_seconds is None else RedisLedger(spec, idle_seconds=idle_seconds)
    return shared_ledger(spec)
