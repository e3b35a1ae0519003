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


@contextmanager
def local_redis() -> Iterator[str]:
    """Run ``redis-server`` (persistence off) on a free loopback port; yields its URL.

    Raises:
        LeanreadError: ``redis-server`` is not installed or does not start.
    """
    binary = shutil.which("redis-server")
    if binary is None:
        raise LeanreadError("redis-server is not installed; install it (apt-get install redis-server).")
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="leanread-redis-") as folder:
        args = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", folder]
        process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_for_port(port)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            process.terminate()
            process.wait(timeout=10)
