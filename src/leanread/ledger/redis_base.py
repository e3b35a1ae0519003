"""What the Redis ledger's parts share (``redis_store``): the connection, the keys, one clear
error for a failed call, and the texts of shown file versions, which every session shares."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any, TypeVar, cast

from ..errors import LeanreadError
from ..memo import Puts

try:
    import redis
    from redis.exceptions import RedisError, WatchError
except ImportError:  # pragma: no cover - redis is a dependency; this names the fix if it is missing
    redis = None  # type: ignore[assignment]

__all__ = ["IDLE_SECONDS", "SOCKET_TIMEOUT", "RedisBase", "WatchError", "as_bytes", "as_text"]

#: Seconds a session's keys live after its last write, unless the URL or caller says otherwise.
IDLE_SECONDS = 7 * 24 * 3600

#: Seconds a Redis command may take before the call fails with a clear error.
SOCKET_TIMEOUT = 5.0

T = TypeVar("T")


def as_bytes(text: str) -> bytes:
    """A string as a Redis key part or value: UTF-8 with lone surrogates kept."""
    return text.encode("utf-8", "surrogatepass")


def as_text(data: bytes) -> str:
    return data.decode("utf-8", "surrogatepass")


class RedisBase:
    """A connection to one Redis and the keys of leanread's sessions in it.

    Raises:
        LeanreadError: the URL is not a Redis URL, or the server does not answer ``PING``.
    """

    def __init__(self, url: str, *, prefix: str, idle_seconds: int) -> None:
        if redis is None:  # pragma: no cover
            raise LeanreadError("The Redis ledger needs the redis package: pip install redis.")
        if idle_seconds < 1:
            raise LeanreadError(f"The Redis ledger's idle expiry must be 1 second or more (got {idle_seconds}).")
        self.url = url
        self.prefix = prefix
        self.idle_seconds = idle_seconds
        try:
            self._redis = redis.Redis.from_url(
                url, socket_timeout=SOCKET_TIMEOUT, socket_connect_timeout=SOCKET_TIMEOUT, health_check_interval=30
            )
        except ValueError as exc:
            raise LeanreadError(f"{url!r} is not a Redis URL ({exc}); pass redis://host:port/db.") from None
        self._all_sessions = as_bytes(f"{prefix}:all-sessions")
        self._puts = Puts()
        self._call(self._redis.ping)

    def __repr__(self) -> str:
        return f"RedisLedger({self.url!r})"

    def close(self) -> None:
        """Close the connection pool (idempotent)."""
        self._redis.close()

    def _key(self, session_id: str, *parts: str) -> bytes:
        # the hash tag {…} keeps a session in one cluster slot; braces inside the id would end it early
        tag = as_bytes(session_id).replace(b"{", b"%7B").replace(b"}", b"%7D")
        return b":".join([as_bytes(self.prefix), b"{" + tag + b"}", *(as_bytes(p) for p in parts)])

    def _version_key(self, content_hash: str) -> bytes:
        return as_bytes(f"{self.prefix}:v:{content_hash}")

    def _call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run one client call; a Redis failure becomes one clear sentence."""
        try:
            return fn(*args, **kwargs)
        except WatchError:
            raise
        except RedisError as exc:
            raise LeanreadError(
                f"The Redis ledger at {self.url} did not answer ({type(exc).__name__}: {exc}); "
                "check that the server is running, then retry the call."
            ) from None

    def put_version(self, content_hash: str, text: str) -> None:
        """Keep the logical text of a shown file version (shared by every session of the file); a
        text this process stored already only has its expiry renewed."""
        key = self._version_key(content_hash)
        if self._puts.seen(content_hash, text) and self._call(self._redis.expire, key, self.idle_seconds):
            return
        self._call(
            self._redis.set, self._version_key(content_hash), zlib.compress(as_bytes(text)), ex=self.idle_seconds
        )

    def get_version(self, content_hash: str) -> str | None:
        """The text kept by ``put_version`` (its expiry renewed), or None.

        Raises:
            LeanreadError: the stored text is damaged.
        """
        key = self._version_key(content_hash)
        blob = cast("bytes | None", self._call(self._redis.getex, key, ex=self.idle_seconds))
        if blob is None:
            return None
        try:
            return as_text(zlib.decompress(blob))
        except (zlib.error, UnicodeDecodeError) as exc:
            raise LeanreadError(
                f"The Redis ledger holds a damaged text for version {content_hash}; delete the key "
                f"{self._version_key(content_hash)!r} and read the file again."
            ) from exc
