"""stdin and stdout for the SDK's stdio transport, read and written on the event loop.

The SDK's ``stdio_server`` wraps the standard streams in ``anyio.wrap_file``, which runs every
``readline``, ``write`` and ``flush`` in a worker thread: three thread hand-offs per tool call,
about a third of a small call's round trip on two cores. ``stdio_server`` also takes the two
streams as arguments; ``event_loop_pipes`` gives it ones that wait on the descriptors with the
event loop (``anyio.wait_readable``/``wait_writable``) and read and write them without blocking.
It serves only when both standard streams are pipes (what an MCP client spawns a server with):
otherwise it yields None and the caller uses the SDK's own streams.

As the SDK does for its own streams, it serves the wire from descriptors of its own and points
fd 0 at the null device and fd 1 at stderr while serving, so a child process or a stray
``print`` cannot read the client's messages or tear a frame; both are restored on exit.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
from collections.abc import Iterator

import anyio

__all__ = ["LineReader", "PipeWriter", "event_loop_pipes"]

_CHUNK = 1 << 16  # bytes read per wake-up


class LineReader:
    """The lines of a non-blocking descriptor as text (UTF-8, bad bytes replaced), the newline
    kept, for ``async for``; a last line without a newline is given at end of file."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buffer = bytearray()
        self._scanned = 0  # bytes of the buffer known to hold no newline
        self._ended = False

    def __aiter__(self) -> LineReader:
        return self

    async def __anext__(self) -> str:
        while True:
            cut = self._buffer.find(b"\n", self._scanned)
            if cut >= 0:
                return self._take(cut + 1)
            self._scanned = len(self._buffer)
            if self._ended:
                if self._buffer:
                    return self._take(len(self._buffer))
                raise StopAsyncIteration
            await anyio.wait_readable(self._fd)
            try:
                chunk = os.read(self._fd, _CHUNK)
            except BlockingIOError:
                continue
            self._ended = not chunk
            self._buffer += chunk

    def _take(self, end: int) -> str:
        line = bytes(self._buffer[:end])
        del self._buffer[:end]
        self._scanned = 0
        return line.decode("utf-8", "replace")


class PipeWriter:
    """Text written whole (UTF-8) to a non-blocking descriptor, waiting while the pipe is full;
    ``flush`` has nothing to do."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    async def write(self, text: str) -> int:
        data = memoryview(text.encode("utf-8"))
        while data:
            try:
                data = data[os.write(self._fd, data) :]
            except BlockingIOError:
                await anyio.wait_writable(self._fd)
        return len(text)

    async def flush(self) -> None:
        return None


def _pipe(fd: int) -> bool:
    try:
        return stat.S_ISFIFO(os.fstat(fd).st_mode)
    except OSError:
        return False


@contextlib.contextmanager
def event_loop_pipes() -> Iterator[tuple[LineReader, PipeWriter] | None]:
    """The client's stdin and stdout as a ``LineReader`` and a ``PipeWriter``, fd 0 and 1 diverted
    (to the null device and stderr) until exit; None when either standard stream is not a pipe
    (a socket, a file, a terminal: the SDK's own streams serve those).

    The pipes are opened again through ``/proc/self/fd`` for non-blocking use: ``O_NONBLOCK`` set
    on the descriptions the client handed over would hold for every process sharing them, also
    after this one is killed (a wrapper's next ``read`` would find no data and stop).

    Raises:
        OSError: a descriptor cannot be duplicated or diverted (nothing is left diverted).
    """
    if not (_pipe(0) and _pipe(1)):
        yield None
        return
    with contextlib.ExitStack() as undo:
        try:
            wire_in = _reopened(0, os.O_RDONLY, undo)
            wire_out = _reopened(1, os.O_WRONLY, undo)
        except OSError:  # no /proc, or not a pipe that can be opened again
            undo.close()
            yield None
            return
        _divert(0, os.open(os.devnull, os.O_RDONLY), undo)
        _divert(1, os.dup(2), undo)
        yield LineReader(wire_in), PipeWriter(wire_out)


def _reopened(fd: int, mode: int, undo: contextlib.ExitStack) -> int:
    """The pipe on ``fd`` opened again as a new, non-blocking description, closed by ``undo``."""
    wire = os.open(f"/proc/self/fd/{fd}", mode | os.O_NONBLOCK | os.O_CLOEXEC)
    undo.callback(os.close, wire)
    return wire


def _divert(fd: int, diversion: int, undo: contextlib.ExitStack) -> None:
    """Point ``fd`` at ``diversion`` (closed here) until ``undo`` unwinds, then at what it was."""
    try:
        kept = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    except OSError:
        os.close(diversion)
        raise
    undo.callback(os.close, kept)
    try:
        os.dup2(diversion, fd)
    finally:
        os.close(diversion)
    undo.callback(os.dup2, kept, fd)
