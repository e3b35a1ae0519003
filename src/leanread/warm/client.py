"""The ``leanread`` command's entry point: ``leanread read`` and ``leanread sh`` go to a warm
session server (``warm.server``) over a Unix socket, started on the first call; every other
command, and these when no server can be had, run the full CLI in this process.

This module imports only the standard library's small modules: a warm call costs a Python
start and one round trip, not the tokenizer, tree-sitter and the ledger.

Where: ``$XDG_RUNTIME_DIR/leanread`` (else ``~/.cache/leanread/warm``), a folder of mode 0700;
one socket (mode 0600) per workspace, ledger session and build of leanread, named by a hash of
the three, so a new build starts a new server and the old one exits when idle. The server checks
each peer's uid (``SO_PEERCRED``); the client checks the folder's owner and mode.

Settings (environment): ``LEANREAD_WARM=0`` runs in process; ``LEANREAD_WARM_IDLE`` seconds a
server waits for a call before it exits (default 900).
"""

from __future__ import annotations

import _socket  # the C module: socket.py imports selectors and enum, a third of the client's start
import os
import stat
import sys
import time
import zlib

from ..process import exec_program, python_module  # os and sys only

#: Seconds the client waits for a server it started to listen.
START_SECONDS = 20.0
#: The commands a warm server answers.
WARM_COMMANDS = frozenset({"read", "sh"})
#: Bytes that end a request's fields (a NUL never occurs in an argument, a path or a variable).
SEP = "\0"


def main() -> None:
    """Run ``leanread``: warm when it can, else the full CLI (one stderr line says why)."""
    argv = sys.argv[1:]
    if argv[:1] and argv[0] in WARM_COMMANDS and os.environ.get("LEANREAD_WARM", "1") != "0":
        done = warm_call(argv)
        if done is not None:
            sys.exit(done)
    from leanread.cli.main import main as full

    full()


def runtime_folder() -> str:
    """The folder of the sockets, made with mode 0700 if missing.

    Raises:
        OSError: it cannot be made, or it is not a folder of this user's with mode 0700.
    """
    base = os.environ.get("XDG_RUNTIME_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "leanread")
    folder = os.path.join(base, "leanread" if os.environ.get("XDG_RUNTIME_DIR") else "warm")
    os.makedirs(folder, mode=0o700, exist_ok=True)
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or stat.S_IMODE(info.st_mode) != 0o700:
        raise OSError(f"{folder} is not a folder of this user's with mode 0700")
    return folder


def workspace_of(argv: list[str]) -> tuple[str, ...]:
    """The roots a call works in: its ``--root`` options, else the current folder."""
    roots = [argv[i + 1] for i, word in enumerate(argv[:-1]) if word == "--root"]
    roots += [word.split("=", 1)[1] for word in argv if word.startswith("--root=")]
    return tuple(os.path.abspath(r) for r in roots) or (os.getcwd(),)


def session_of(argv: list[str]) -> str:
    given = [argv[i + 1] for i, word in enumerate(argv[:-1]) if word == "--session"]
    return given[-1] if given else os.environ.get("LEANREAD_SESSION", "")


def socket_path(argv: list[str]) -> str:
    """The socket of the server for this call's workspace and session. The name only spreads the
    calls over servers: a server takes the folder, session and roots from each call itself."""
    key = SEP.join([*workspace_of(argv), session_of(argv)]).encode("utf-8", "surrogateescape")
    return os.path.join(runtime_folder(), f"{zlib.crc32(key):08x}{zlib.adler32(key):08x}.sock")


def warm_call(argv: list[str]) -> int | None:
    """Send the call to its server (starting one when none listens, or when the one there runs
    an older build of leanread) and print its answer; the exit status, or None when no server
    could be had (after one stderr line)."""
    try:
        path = socket_path(argv)
        reply = _ask(path, argv)
        if reply is None or reply[0] == "RETRY":
            _start(path)
            reply = _ask(path, argv, wait=START_SECONDS)
    except OSError as exc:
        print(f"leanread: no warm server ({exc.strerror or exc}); running in process.", file=sys.stderr)
        return None
    if reply is None or reply[0] == "RETRY":
        print("leanread: the warm server did not start; running in process.", file=sys.stderr)
        return None
    kind, status, out, err = reply
    if kind == "EXEC":
        command = out.decode("utf-8", "surrogateescape").split(SEP)
        sys.stdout.flush()
        exec_program(command)
    sys.stdout.buffer.write(out)
    sys.stdout.buffer.flush()
    sys.stderr.buffer.write(err)
    sys.stderr.buffer.flush()
    return status


def encode_request(argv: list[str], cwd: str, env: dict[str, str], tty: bool) -> bytes:
    """A call as the server reads it: NUL-separated fields (``decode_request``)."""
    fields = ["1", cwd, "1" if tty else "0", str(len(argv)), *argv, *(f"{k}={v}" for k, v in env.items())]
    return SEP.join(fields).encode("utf-8", "surrogateescape")


def decode_reply(data: bytes) -> tuple[str, int, bytes, bytes]:
    """(``OK``, ``EXEC`` or ``RETRY``; the exit status; stdout, or the NUL-separated argv to
    run; stderr) from a reply ``KIND STATUS LEN_OUT LEN_ERR\\n`` + the bytes."""
    head, _, rest = data.partition(b"\n")
    kind, status, size_out, size_err = head.decode().split(" ")
    cut = int(size_out)
    return kind, int(status), rest[:cut], rest[cut : cut + int(size_err)]


def _ask(path: str, argv: list[str], wait: float = 0.0) -> tuple[str, int, bytes, bytes] | None:
    """One request; None when nothing listens there (after ``wait`` seconds of trying)."""
    deadline = time.monotonic() + wait
    request = encode_request(argv, os.getcwd(), _env(), sys.stdout.isatty())
    while True:
        try:
            conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
            try:
                conn.connect(path)
                conn.sendall(request)
                conn.shutdown(_socket.SHUT_WR)
                data = _receive_all(conn)
            finally:
                conn.close()
            return decode_reply(data) if data else None
        except (FileNotFoundError, ConnectionRefusedError):
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.02)


def _receive_all(conn: _socket.socket) -> bytes:
    chunks: list[bytes] = []
    while chunk := conn.recv(1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)


def _env() -> dict[str, str]:
    """The environment variables a call's answer depends on."""
    return {k: v for k, v in os.environ.items() if k.startswith(("LEANREAD_", "XDG_")) or k in ("HOME", "PATH")}


def _start(path: str) -> None:
    """Start a server for ``path`` in its own session, detached from this call's streams."""
    import subprocess

    subprocess.Popen(
        python_module("leanread.warm.server", path),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )


if __name__ == "__main__":
    main()
