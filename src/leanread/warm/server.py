"""The warm session server behind ``leanread read`` and ``leanread sh`` (see ``warm.client``).

``python -m leanread.warm.server SOCKET`` listens on ``SOCKET`` (mode 0600) and answers one call
at a time, in the caller's folder and with its ``LEANREAD_*`` variables, by running the same CLI
command in this process: the output is the in-process CLI's, byte for byte. A ``leanread sh``
command that is not a read or search comes back as ``EXEC`` with ``[bash, -c, CMD]`` for the
client to run itself (its streams, its exit status). Calls from another uid are refused. When
leanread's sources changed since it started (a new version installed, an edit of a checkout;
looked at most once a second) it answers ``RETRY`` and exits, and the client starts a new one.
It exits after ``LEANREAD_WARM_IDLE`` seconds (default 900) without a call, removing its socket.
One server serves a socket: several started at once by parallel first calls leave but one.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import os
import socket
import struct
import sys
import time
from collections.abc import Iterator

from .client import SEP

#: Seconds without a call before the server exits.
DEFAULT_IDLE = 900.0


class PassThrough(Exception):
    """A ``leanread sh`` command to run as it is, by the client."""

    def __init__(self, argv: list[str]) -> None:
        super().__init__(argv[-1])
        self.argv = argv


def _build_command_once() -> None:
    """Make ``cli.main`` run the click command built once (typer builds it from the functions'
    signatures on every call: 85 % of a warm read's time)."""
    import typer.main

    from ..cli import main as cli  # the module: its main() calls the app bound here

    command = typer.main.get_command(cli.app)

    class Built:
        def __call__(self) -> object:
            return command(prog_name="leanread")  # not "python -m leanread.warm…": the server is __main__

    cli.app = Built()  # type: ignore[assignment]


#: Seconds a server waits for another one of its socket to let go of it before leaving it be.
LOCK_WAIT_S = 2.0


def serve(path: str, idle: float) -> None:
    """Listen on ``path`` until ``idle`` seconds pass without a call. One server a socket: each
    holds ``path + ".lock"`` while it lives, so of several started at once (parallel first calls)
    one binds and the others leave, their clients calling it; one that finds the lock held for
    ``LOCK_WAIT_S`` (another serving) leaves too. On exit it removes the socket only if it is
    still its own."""
    with _sole(path + ".lock") as sole:
        if sole:
            _serve(path, idle)


@contextlib.contextmanager
def _sole(lock_path: str) -> Iterator[bool]:
    """Whether this process holds the lock file ``lock_path`` (waiting ``LOCK_WAIT_S`` for a
    server that is leaving), held until the block ends."""
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        deadline = time.monotonic() + LOCK_WAIT_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    yield False
                    return
                time.sleep(0.05)
        yield True
    finally:
        os.close(fd)  # the lock goes with it


def _serve(path: str, idle: float) -> None:
    from ..shell import command as shell_command
    from ..shell.run import shell

    def refuse_exec(command: str) -> None:
        raise PassThrough([shell(), "-c", command])

    shell_command.run_as_is = refuse_exec  # the client runs what leanread does not answer
    _build_command_once()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        listener.bind(path)
    finally:
        os.umask(old)
    os.chmod(path, 0o600)
    own = os.stat(path).st_ino
    listener.listen(64)
    listener.settimeout(idle)
    build = Build()
    try:
        while True:
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                return
            with conn:
                conn.settimeout(None)
                if _peer_uid(conn) != os.getuid():
                    continue
                request = _read_all(conn)
                if build.changed():
                    conn.sendall(b"RETRY 0 0 0\n")
                    return
                conn.sendall(handle(request))
    finally:
        with contextlib.suppress(FileNotFoundError):
            if os.stat(path).st_ino == own:  # not a socket another server bound since
                os.unlink(path)
        listener.close()


class Build:
    """This build of leanread: the newest modification time of its sources (``package``,
    default leanread's folder), as at the start."""

    def __init__(self, package: str | None = None) -> None:
        self.package = package or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        self.stamp = self._newest()
        self.looked = time.monotonic()

    def _newest(self) -> int:
        newest = 0
        for folder, dirs, files in os.walk(self.package):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for name in files:
                if name.endswith((".py", ".txt")):
                    with contextlib.suppress(OSError):
                        newest = max(newest, os.stat(os.path.join(folder, name)).st_mtime_ns)
        return newest

    def changed(self) -> bool:
        """Whether a source changed since the start (looked at most once a second)."""
        if time.monotonic() - self.looked < 1.0:
            return False
        self.looked = time.monotonic()
        return self._newest() != self.stamp


def _peer_uid(conn: socket.socket) -> int:
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return int(struct.unpack("3i", creds)[1])


def _read_all(conn: socket.socket) -> bytes:
    return b"".join(iter(lambda: conn.recv(1 << 16), b""))


class _Stream(io.StringIO):
    """A captured stream that is a terminal when the client's is (the CLI shows control
    characters in caret notation there)."""

    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def decode_request(data: bytes) -> tuple[list[str], str, dict[str, str], bool]:
    """(argv, cwd, environment, stdout is a terminal) of a request (``client.encode_request``)."""
    fields = data.decode("utf-8", "surrogateescape").split(SEP)
    count = int(fields[3])
    argv = fields[4 : 4 + count]
    env = dict(field.split("=", 1) for field in fields[4 + count :] if "=" in field)
    return argv, fields[1], env, fields[2] == "1"


def handle(data: bytes) -> bytes:
    """Run one call as the CLI would in the caller's folder and environment: its reply (exit
    status, stdout and stderr, or the command the client must run itself)."""
    from ..cli.main import main as cli_main

    argv, cwd, env, tty = decode_request(data)
    saved_env = dict(os.environ)
    out, err = _Stream(tty), _Stream(False)
    status = 0
    try:
        os.chdir(cwd)
        for key in [k for k in os.environ if k.startswith("LEANREAD_")]:
            del os.environ[key]
        os.environ.update(env)
        sys.argv = ["leanread", *argv]
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                cli_main()
            except SystemExit as done:
                status = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
            except PassThrough as passing:
                command = SEP.join(passing.argv).encode("utf-8", "surrogateescape")
                return b"EXEC 0 %d 0\n" % len(command) + command
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
    stdout = out.getvalue().encode("utf-8", "surrogateescape")
    stderr = err.getvalue().encode("utf-8", "surrogateescape")
    return b"OK %d %d %d\n" % (status, len(stdout), len(stderr)) + stdout + stderr


def main() -> None:
    import signal

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # a stop removes the socket too
    idle = float(os.environ.get("LEANREAD_WARM_IDLE") or DEFAULT_IDLE)
    serve(sys.argv[1], idle)


if __name__ == "__main__":
    main()
