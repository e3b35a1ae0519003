"""A real ``redis-server`` on loopback for the tests of the Redis ledger.

The server is Debian's ``redis-server`` (``.ci/run`` installs it), started once per test run on
a free port with persistence off, and stopped at the end. Without the binary the Redis tests are
skipped on a developer's machine and fail under CI (``CI=true``), so a missing install step
cannot pass unseen.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass
class RedisServer:
    """A running server: its URL, port and process (``stop``/``start`` it for fault tests)."""

    port: int
    folder: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server")
        assert binary is not None
        args = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        args += ["--dir", str(self.folder)]
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server did not answer on port {self.port} within 10 s")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """One real Redis server for the whole test run."""
    if shutil.which("redis-server") is None:
        if os.environ.get("CI"):
            pytest.fail("redis-server is not installed; .ci/run installs Debian's redis-server package")
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    server = RedisServer(_free_port(), tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def redis_prefix() -> str:
    """A key prefix of this test's own, so tests sharing the server never see each other's keys."""
    return f"t-{uuid.uuid4().hex[:12]}"
