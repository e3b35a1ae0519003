"""The inspect web app (Starlette, Jinja2 templates, inline SVG; no JavaScript build) and its runner.

Pages:
    /                          sessions, the most recently active first
    /s/{session}?page=N        a session: totals, the saving chart (the model's calls), its calls and the
                               harness's commands (``PAGE_SIZE`` a page), its files
    /s/{session}/c/{number}    one call: arguments, exactly the text (and images) shown, state, grants
    /s/{session}/file?path=P   one file: versions shown, divergences, the model's view beside the disk
    /report                    the replay report given to ``build_app``

Only the loopback names (``127.0.0.1``, ``localhost``, ``[::1]``) are accepted as ``Host``, so a
page of another site cannot reach the ledger through DNS rebinding; ``serve`` binds 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from ..errors import LeanreadError
from ..ledger.store import LedgerStore
from ..ledger.transcript import HARNESS
from . import queries
from .chart import saving_chart
from .files import rebuild
from .report import load_report

LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]"]

_ENV = Environment(loader=PackageLoader("leanread.inspector", "templates"), autoescape=select_autoescape(default=True))
_ENV.filters["pretty"] = lambda value: json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)
_ENV.filters["when"] = lambda seconds: time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(seconds))
_ENV.filters["count"] = lambda value: "unknown" if value is None else f"{value:,}"
_ENV.filters["share"] = lambda value: "unknown" if value is None else f"{value:.1%}"
_ENV.globals["HARNESS"] = HARNESS


def _page(name: str, status: int = 200, **values: Any) -> HTMLResponse:
    return HTMLResponse(_ENV.get_template(name).render(**values), status_code=status)


def _missing(what: str) -> HTMLResponse:
    return _page("message.html", 404, title="Not found", message=what)


def build_app(store: LedgerStore, report: Path | None = None) -> Starlette:
    """The inspect app over ``store``; ``report``: a replay ``results.json`` for ``/report``."""

    async def sessions(request: Request) -> HTMLResponse:
        return _page("sessions.html", sessions=store.sessions(), report=report)

    async def session(request: Request) -> HTMLResponse:
        sid = request.path_params["session"]
        summary = queries.summary_of(store, sid)
        if summary is None:
            return _missing(f"No session {sid!r} in this ledger; pick one from the list of sessions.")
        count = queries.pages(summary)
        page = min(max(_int(request.query_params.get("page"), 1), 1), count)
        light = [c for c in store.calls(sid, bodies=False) if c.caller != HARNESS]
        known = [(c.tokens, c.full_tokens) for c in light if c.full_tokens is not None]
        chart = saving_chart([t for t, _ in known], [f for _, f in known], left_out=len(light) - len(known))
        shown = store.calls(sid, (page - 1) * queries.PAGE_SIZE + 1, queries.PAGE_SIZE)
        grants = queries.grants_by_call(store.session_views(sid, {c.call_id for c in shown}))
        rows = [(c, queries.state(c, grants), queries.arguments_line(c)) for c in shown]
        files = store.session_paths(sid)
        headline = queries.headline(summary)
        return _page(
            "session.html", s=summary, headline=headline, chart=chart, rows=rows, page=page, pages=count, files=files
        )

    async def call(request: Request) -> HTMLResponse:
        sid = request.path_params["session"]
        number = _int(request.path_params["number"], 0)
        found = store.calls(sid, number, 1) if number > 0 else []
        if not found:
            return _missing(f"Session {sid!r} has no call #{number}; pick one from the session's list.")
        c = found[0]
        grants = queries.grants_by_call(store.session_views(sid, {c.call_id}))
        return _page("call.html", sid=sid, c=c, state=queries.state(c, grants), grants=grants.get(c.call_id, []))

    async def file(request: Request) -> HTMLResponse:
        sid = request.path_params["session"]
        real = request.query_params.get("path", "")
        records = store.views_of(sid, real)
        if not records:
            return _missing(f"Session {sid!r} showed no file {real!r}; pick one from the session's files.")
        try:
            with open(real, "rb") as handle:
                disk: bytes | None = handle.read()
        except OSError:
            disk = None
        touched = [c for c in (store.find_call(sid, i) for i in {r.call_id for r in records}) if c is not None]
        calls = sorted(touched, key=lambda c: c.number)
        view = rebuild(store, real, calls, records, store.call_states(sid), disk)
        return _page("file.html", sid=sid, f=view)

    async def report_page(request: Request) -> HTMLResponse:
        if report is None:
            return _missing("No replay report was given; start `leanread inspect --report PATH/results.json`.")
        try:
            return _page("report.html", r=load_report(report))
        except LeanreadError as exc:
            return _page("message.html", 500, title="Report", message=str(exc))

    routes = [
        Route("/", sessions),
        Route("/s/{session:path}/c/{number}", call),
        Route("/s/{session:path}/file", file),
        Route("/s/{session:path}", session),
        Route("/report", report_page),
    ]
    return Starlette(routes=routes, middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=LOOPBACK_HOSTS)])


def _int(text: str | None, default: int) -> int:
    return int(text) if text and text.isdigit() else default


def default_report() -> Path | None:
    """``bench-results/replay/results.json`` under the current folder, when it exists."""
    path = Path(os.getcwd()) / "bench-results" / "replay" / "results.json"
    return path if path.is_file() else None


def serve(store: LedgerStore, port: int = 0, report: Path | None = None, announce: Any = print) -> None:
    """Serve the app on 127.0.0.1 (``port`` 0: a free one) until interrupted; ``announce`` is
    called with the page's URL once the port is bound.

    Raises:
        LeanreadError: the port cannot be bound.
    """
    import socket

    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
    except OSError as exc:
        sock.close()
        raise LeanreadError(f"Cannot listen on 127.0.0.1:{port} ({exc.strerror or exc}); pass another --port.") from exc
    announce(f"http://127.0.0.1:{sock.getsockname()[1]}/")
    config = uvicorn.Config(build_app(store, report), log_level="warning", access_log=False)
    uvicorn.Server(config).run(sockets=[sock])
