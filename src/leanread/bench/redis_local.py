"""A throw-away ``redis-server`` on a free loopback port, for the benchmarks that need one."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager

from ..errors import LeanreadError


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (now)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, timeout: float = 10.0) -> None:
    """Return once something accepts connections on ``127.0.0.1:port``.

    Raises:
        LeanreadError: nothing did within ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise LeanreadError(f"Nothing answered on 127.0.0.1:{port} within {timeout:g} s.")


class LocalRedis:
    """A ``redis-server`` on ``port`` keeping its files in ``folder``; ``persist`` turns on the
    append-only file (fsync on every write), so a stop and a start lose nothing."""

    def __init__(self, folder: str, persist: bool = False) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise LeanreadError("redis-server is not installed; install it (apt-get install redis-server).")
        self.port = free_port()
        self.args = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--dir", folder]
        self.args += ["--appendonly", "yes", "--appendfsync", "always"] if persist else ["--appendonly", "no"]
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start it and wait until it accepts connections."""
        self.process = subprocess.Popen(self.args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port(self.port)

    def stop(self) -> None:
        """Stop it (SIGTERM) and wait for it to exit."""
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None


@contextmanager
def local_redis(persist: bool = False) -> Iterator[LocalRedis]:
    """Run a ``LocalRedis`` on a free loopback port for the ``with`` block.

    Raises:
        LeanreadError: ``redis-server`` is not installed or does not start.
    """
    with tempfile.TemporaryDirectory(prefix="leanread-redis-") as folder:
        server = LocalRedis(folder, persist)
        server.start()
        try:
            yield server
        finally:
            server.stop()
