"""The warm session server behind ``leanread read`` and ``leanread sh`` (see ``warm.client``).

``python -m leanread.warm.server SOCKET`` listens on ``SOCKET`` (mode 0600) and answers one call
at a time, in the caller's folder and with its ``LEANREAD_*`` variables, by running the same CLI
command in this process: the output is the in-process CLI's, byte for byte. A ``leanread sh``
command that is not a read or search comes back as ``{"exec": [bash, -c, CMD]}`` for the client
to run itself (its streams, its exit status). Calls from another uid are refused. It exits after
``LEANREAD_WARM_IDLE`` seconds (default 900) without a call, removing its socket.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import socket
import struct
import sys
from typing import Any

#: Seconds without a call before the server exits.
DEFAULT_IDLE = 900.0


class PassThrough(Exception):
    """A ``leanread sh`` command to run as it is, by the client."""

    def __init__(self, argv: list[str]) -> None:
        super().__init__(argv[-1])
        self.argv = argv


def serve(path: str, idle: float) -> None:
    """Listen on ``path`` until ``idle`` seconds pass without a call."""
    from ..shell import command as shell_command
    from ..shell.run import shell

    def refuse_exec(command: str) -> None:
        raise PassThrough([shell(), "-c", command])

    shell_command.run_as_is = refuse_exec  # the client runs what leanread does not answer
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        listener.bind(path)
    finally:
        os.umask(old)
    os.chmod(path, 0o600)
    listener.listen(64)
    listener.settimeout(idle)
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
                request = json.loads(_read_all(conn))
                conn.sendall(json.dumps(handle(request)).encode())
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        listener.close()


def _peer_uid(conn: socket.socket) -> int:
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return int(struct.unpack("3i", creds)[1])


def _read_all(conn: socket.socket) -> bytes:
    return b"".join(iter(lambda: conn.recv(1 << 16), b""))


def handle(request: dict[str, Any]) -> dict[str, Any]:
    """Run one call as the CLI would in the caller's folder and environment: its stdout, stderr
    and exit status, or the command the client must run itself."""
    from ..cli import main as cli_main

    argv = [str(word) for word in request["argv"]]
    saved_env = dict(os.environ)
    out, err = io.StringIO(), io.StringIO()
    status = 0
    try:
        os.chdir(str(request["cwd"]))
        for key in [k for k in os.environ if k.startswith("LEANREAD_")]:
            del os.environ[key]
        os.environ.update({str(k): str(v) for k, v in dict(request.get("env") or {}).items()})
        sys.argv = ["leanread", *argv]
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                cli_main()
            except SystemExit as done:
                status = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
            except PassThrough as passing:
                return {"exec": passing.argv}
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
    return {"stdout": out.getvalue(), "stderr": err.getvalue(), "status": status}


def main() -> None:
    idle = float(os.environ.get("LEANREAD_WARM_IDLE") or DEFAULT_IDLE)
    serve(sys.argv[1], idle)


if __name__ == "__main__":
    main()
