"""A small Language Server Protocol client over stdio, enough to ask a server for definitions and
references (LSP 3.17: ``Content-Length`` framed JSON-RPC 2.0). A reader thread takes every
message; requests from the server (``workspace/configuration``, ``client/registerCapability``,
``window/workDoneProgress/create``) are answered with empty results so it never waits on us.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import LeanreadError


def file_uri(path: str | Path) -> str:
    """``file://`` URI of an absolute path."""
    return Path(path).resolve().as_uri()


def uri_path(uri: str) -> str:
    """The absolute path of a ``file://`` URI."""
    from urllib.parse import unquote, urlparse

    return unquote(urlparse(uri).path)


class LspClient:
    """One language server process, driven synchronously (``request`` waits for its answer)."""

    def __init__(self, command: Sequence[str], root: str, timeout: float = 600.0) -> None:
        self.root = root
        self.timeout = timeout
        try:
            self._proc = subprocess.Popen(
                list(command),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                cwd=root,
            )
        except OSError as exc:
            raise LeanreadError(f"{command[0]} could not be started ({exc})") from None
        self._next = 0
        self._answers: dict[int, queue.Queue[dict[str, Any]]] = {}
        self._lock = threading.Lock()
        self._opened: set[str] = set()
        self._busy: set[object] = set()  # progress tokens begun and not ended
        self._begun = threading.Event()
        self.notes: list[str] = []
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        assert self._proc.stdin is not None
        self._proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self._proc.stdin.flush()

    def _read_loop(self) -> None:
        stream = self._proc.stdout
        assert stream is not None
        while True:
            length = 0
            while True:
                line = stream.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            message = json.loads(stream.read(length))
            if "id" in message and "method" in message:  # a request from the server
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": _empty_answer(message)})
            elif "method" in message:
                self._note(message)
            elif "id" in message:
                with self._lock:
                    waiting = self._answers.get(message["id"])
                if waiting is not None:
                    waiting.put(message)

    def _note(self, message: dict[str, Any]) -> None:
        """Track ``$/progress`` (work the server said it began and has not ended)."""
        self.notes.append(str(message.get("method")))
        if message.get("method") != "$/progress":
            return
        params = message.get("params") or {}
        kind = (params.get("value") or {}).get("kind")
        with self._lock:
            if kind == "begin":
                self._busy.add(params.get("token"))
                self._begun.set()
            elif kind == "end":
                self._busy.discard(params.get("token"))

    def wait_idle(self, first: float = 2.0, limit: float = 300.0) -> None:
        """Wait until work the server reported (``$/progress``) has ended: up to ``first``
        seconds for some to begin, then up to ``limit`` for all of it to end."""
        if not self._begun.wait(first):
            return
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            with self._lock:
                if not self._busy:
                    return
            time.sleep(0.05)

    def request(self, method: str, params: Any) -> Any:
        """Send a request and wait for its result.

        Raises:
            LeanreadError: the server answered with an error, or not within ``timeout``.
        """
        with self._lock:
            self._next += 1
            number = self._next
            self._answers[number] = queue.Queue()
        self._send({"jsonrpc": "2.0", "id": number, "method": method, "params": params})
        try:
            answer = self._answers[number].get(timeout=self.timeout)
        except queue.Empty:
            raise LeanreadError(f"{method} got no answer in {self.timeout:g} s") from None
        finally:
            with self._lock:
                self._answers.pop(number, None)
        if "error" in answer:
            raise LeanreadError(f"{method}: {answer['error'].get('message')}")
        return answer.get("result")

    def notify(self, method: str, params: Any) -> None:
        """Send a notification."""
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def initialize(self, options: dict[str, object] | None = None) -> float:
        """The handshake; returns its seconds."""
        started = time.perf_counter()
        uri = file_uri(self.root)
        self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": uri,
                "workspaceFolders": [{"uri": uri, "name": os.path.basename(self.root)}],
                "capabilities": {
                    "textDocument": {
                        "definition": {"linkSupport": False},
                        "references": {},
                        "synchronization": {"didSave": False},
                    },
                    "workspace": {"configuration": True, "workspaceFolders": True},
                },
                "initializationOptions": options or {},
            },
        )
        self.notify("initialized", {})
        return time.perf_counter() - started

    def open(self, path: str, language: str) -> None:
        """``didOpen`` a file once (its text as on disk)."""
        if path in self._opened:
            return
        self._opened.add(path)
        text = Path(path).read_text("utf-8", "replace")
        item = {"uri": file_uri(path), "languageId": language, "version": 1, "text": text}
        self.notify("textDocument/didOpen", {"textDocument": item})

    def definition(self, path: str, line: int, character: int) -> list[tuple[str, int, int]]:
        """``(absolute path, 1-based line, UTF-16 character)`` of each definition the server gives for the position
        (0-based ``line`` and UTF-16 ``character``)."""
        result = self.request(
            "textDocument/definition",
            {"textDocument": {"uri": file_uri(path)}, "position": {"line": line, "character": character}},
        )
        return _locations(result)

    def references(self, path: str, line: int, character: int) -> list[tuple[str, int, int]]:
        """``(absolute path, 1-based line, UTF-16 character)`` of each use the server finds (declaration left out)."""
        result = self.request(
            "textDocument/references",
            {
                "textDocument": {"uri": file_uri(path)},
                "position": {"line": line, "character": character},
                "context": {"includeDeclaration": False},
            },
        )
        return _locations(result)

    def close(self) -> None:
        """Shut the server down (and kill it if it does not go)."""
        try:
            self.timeout = 10.0
            self.request("shutdown", None)
            self.notify("exit", None)
            self._proc.wait(timeout=10)
        except (LeanreadError, OSError, subprocess.TimeoutExpired, ValueError):
            self._proc.kill()
            self._proc.wait()


def _locations(result: Any) -> list[tuple[str, int, int]]:
    if result is None:
        return []
    items = result if isinstance(result, list) else [result]
    found = []
    for item in items:
        uri = item.get("targetUri") or item.get("uri")
        where = item.get("targetSelectionRange") or item.get("range")
        if uri and where:
            found.append((uri_path(uri), int(where["start"]["line"]) + 1, int(where["start"]["character"])))
    return found


def _empty_answer(message: dict[str, Any]) -> Any:
    if message.get("method") == "workspace/configuration":
        return [None for _ in message.get("params", {}).get("items", [])]
    return None
