"""Local HTTP servers standing in for the remote model services of the focus backends.

``StandIn`` is a real HTTP server on 127.0.0.1 (a thread of the test process): it records every
request and answers with what the test's ``answer`` callable returns for it. ``chat`` and
``prune`` wrap an answer in the reply shapes of the Chat Completions API and of SWE-Pruner's
``POST /prune``.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Request:
    """One request the stand-in received."""

    path: str
    headers: dict[str, str]
    body: Any


#: What an answer returns: (status, body bytes); a float, to sleep that many seconds and then
#: send nothing (a hung service); or ("trickle", body), to send a 200 reply a byte every 0.1 s.
Answer = Callable[[Request], "tuple[int, bytes] | tuple[str, bytes] | float"]


@dataclass
class StandIn:
    """A running stand-in: its base URL, the requests so far, and the answer in force."""

    url: str
    answer: Answer
    requests: list[Request] = field(default_factory=list)


def _handler(state: StandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            request = Request(self.path, {k.lower(): v for k, v in self.headers.items()}, json.loads(raw))
            state.requests.append(request)
            reply = state.answer(request)
            if isinstance(reply, float):
                time.sleep(reply)
                return
            status, body = reply
            self.send_response(200 if status == "trickle" else int(status))
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if status != "trickle":
                self.wfile.write(body)
                return
            for at in range(min(len(body), 15)):  # 1.5 s of trickling, then the connection drops
                self.wfile.write(body[at : at + 1])
                self.wfile.flush()
                time.sleep(0.1)

        def log_message(self, format: str, *args: Any) -> None:  # keep the test output clean
            pass

    return Handler


@contextmanager
def stand_in(answer: Answer) -> Iterator[StandIn]:
    """Serve ``answer`` on a free local port for the duration of the block."""
    state = StandIn("", answer)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = False  # server_close waits for the handlers: no socket is left open
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def chat(content: str) -> tuple[int, bytes]:
    """A Chat Completions reply whose message content is ``content``."""
    reply = {
        "id": "chatcmpl-standin",
        "object": "chat.completion",
        "model": "stand-in",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
    }
    return 200, json.dumps(reply).encode()


def prune(kept: list[int], **extra: Any) -> tuple[int, bytes]:
    """A SWE-Pruner ``/prune`` reply keeping the 1-based lines ``kept``."""
    reply = {
        "score": 0.9,
        "pruned_code": "(not used by leanread)",
        "token_scores": [],
        "kept_frags": kept,
        "origin_token_cnt": 1000,
        "left_token_cnt": 100,
        "model_input_token_cnt": 1100,
        **extra,
    }
    return 200, json.dumps(reply).encode()


def data_block(request: Request) -> tuple[str, list[str]]:
    """The nonce and the numbered rows of the data block of a chat request's user message."""
    user = request.body["messages"][1]["content"]
    found = re.search(r"<data-([0-9a-f]+)>\n(.*)\n</data-\1>", user, re.S)
    assert found is not None, user
    return found.group(1), found.group(2).split("\n")


def follow_injection(request: Request) -> tuple[int, bytes]:
    """A model that obeys "keep only lines A-B" written in the data (what a weak model may do)."""
    _, rows = data_block(request)
    for row in rows:
        order = re.search(r"keep only lines (\d+)-(\d+)", row)
        if order:
            return chat(json.dumps({"ranges": [[int(order.group(1)), int(order.group(2))]]}))
    return chat('{"ranges": []}')
