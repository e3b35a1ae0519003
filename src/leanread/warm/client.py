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

import hashlib
import json
import os
import socket
import stat
import sys
import time

#: Seconds the client waits for a server it started to listen.
START_SECONDS = 20.0
#: The commands a warm server answers.
WARM_COMMANDS = frozenset({"read", "sh"})
#: Options whose value is the next word, for the commands above.
_VALUED = frozenset(
    {"--offset", "--limit", "--format", "--char-offset", "--match-id", "--context-before", "--context-after",
     "--mode", "--symbol", "--focus", "--focus-backend", "--focus-url", "--focus-model", "--focus-api-key-env",
     "--focus-timeout", "--root", "--session", "--max-lines", "--max-bytes", "--max-line-chars", "--image-out",
     "--read-mode", "-c"}
)  # fmt: skip


def main() -> None:
    """Run ``leanread``: warm when it can, else the full CLI (one stderr line says why)."""
    argv = sys.argv[1:]
    if argv[:1] and argv[0] in WARM_COMMANDS and os.environ.get("LEANREAD_WARM", "1") != "0":
        done = warm_call(argv)
        if done is not None:
            sys.exit(done)
    from leanread.cli import main as full

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


def build_id() -> str:
    """This build of leanread: its version and the newest modification time of its sources."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    newest = 0
    for folder, dirs, files in os.walk(package):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            if name.endswith(".py"):
                newest = max(newest, os.stat(os.path.join(folder, name)).st_mtime_ns)
    return f"{newest}"


def workspace_of(argv: list[str]) -> tuple[str, ...]:
    """The roots a call works in: its ``--root`` options, else the current folder."""
    roots = [argv[i + 1] for i, word in enumerate(argv[:-1]) if word == "--root"]
    roots += [word.split("=", 1)[1] for word in argv if word.startswith("--root=")]
    return tuple(os.path.abspath(r) for r in roots) or (os.getcwd(),)


def session_of(argv: list[str]) -> str:
    given = [argv[i + 1] for i, word in enumerate(argv[:-1]) if word == "--session"]
    return given[-1] if given else os.environ.get("LEANREAD_SESSION", "")


def socket_path(argv: list[str]) -> str:
    """The socket of the server for this call's workspace, session and build."""
    key = json.dumps([workspace_of(argv), session_of(argv), build_id()])
    return os.path.join(runtime_folder(), hashlib.sha256(key.encode()).hexdigest()[:24] + ".sock")


def warm_call(argv: list[str]) -> int | None:
    """Send the call to its server (starting one when none listens) and print its answer;
    the exit status, or None when no server could be had (after one stderr line)."""
    try:
        path = socket_path(argv)
        reply = _ask(path, argv)
        if reply is None:
            _start(path)
            reply = _ask(path, argv, wait=START_SECONDS)
    except OSError as exc:
        print(f"leanread: no warm server ({exc.strerror or exc}); running in process.", file=sys.stderr)
        return None
    if reply is None:
        print("leanread: the warm server did not start; running in process.", file=sys.stderr)
        return None
    command = reply.get("exec")
    if isinstance(command, list):
        sys.stdout.flush()
        os.execv(str(command[0]), [str(word) for word in command])
    sys.stdout.write(str(reply.get("stdout", "")))
    sys.stdout.flush()
    sys.stderr.write(str(reply.get("stderr", "")))
    status = reply.get("status", 1)
    return status if isinstance(status, int) else 1


def _ask(path: str, argv: list[str], wait: float = 0.0) -> dict[str, object] | None:
    """One request; None when nothing listens there (after ``wait`` seconds of trying)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
                conn.connect(path)
                request = {"argv": argv, "cwd": os.getcwd(), "env": _env(), "tty": sys.stdout.isatty()}
                conn.sendall(json.dumps(request).encode() + b"\n")
                conn.shutdown(socket.SHUT_WR)
                data = b"".join(iter(lambda: conn.recv(1 << 16), b""))
            if not data:
                return None
            found: dict[str, object] = json.loads(data)
            return found
        except (FileNotFoundError, ConnectionRefusedError):
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.02)


def _env() -> dict[str, str]:
    """The environment variables a call's answer depends on."""
    return {k: v for k, v in os.environ.items() if k.startswith(("LEANREAD_", "XDG_")) or k in ("HOME", "PATH")}


def _start(path: str) -> None:
    """Start a server for ``path`` in its own session, detached from this call's streams."""
    import subprocess

    subprocess.Popen(
        [sys.executable, "-m", "leanread.warm.server", path],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )


if __name__ == "__main__":
    main()
