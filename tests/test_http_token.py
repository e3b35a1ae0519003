"""``leanread serve --http``: a bearer token that cannot be a random secret (short, of few
characters, or with one a header cannot carry) is refused in one line before serving, on any
address; a good one is served."""

from __future__ import annotations

import base64
import os
import secrets
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import pytest
from hypothesis import given
from hypothesis import strategies as st

from leanread.bench.redis_local import free_port
from leanread.errors import InvalidArgument
from leanread.mcp.http import MIN_TOKEN_CHARS, check_token

MAKE = 'make one with python -c "import secrets; print(secrets.token_urlsafe(32))"'


def _serve(root: Path, bind: str, env_name: str, token: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("LEANREAD_TOKEN", env_name)}
    if token is not None:
        env[env_name] = token
    args = [sys.executable, "-m", "leanread", "serve", "--root", str(root), "--ledger", "memory", "--http", bind]
    args += [] if env_name == "LEANREAD_TOKEN" else ["--token-env", env_name]
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(
    ("bind", "env_name", "token", "message"),
    [
        (
            "0.0.0.0:1",
            "LEANREAD_TOKEN",
            "s3cre",
            "The bearer token in LEANREAD_TOKEN is 5 characters long; it needs at least 32 random characters "
            f"(128 bits): {MAKE}",
        ),
        (
            "10.1.2.3:8765",
            "FLEET_SECRET",
            "0123456789abcdef0123456789abcde",
            "The bearer token in FLEET_SECRET is 31 characters long; it needs at least 32 random characters "
            f"(128 bits): {MAKE}",
        ),
        (
            "127.0.0.1:1",  # a token given on loopback is checked too
            "LEANREAD_TOKEN",
            "hunter2",
            "The bearer token in LEANREAD_TOKEN is 7 characters long; it needs at least 32 random characters "
            f"(128 bits): {MAKE}",
        ),
        (
            "0.0.0.0:1",
            "LEANREAD_TOKEN",
            "ab" * 30,
            "The bearer token in LEANREAD_TOKEN has only 2 different characters, so it is not a random secret: "
            + MAKE,
        ),
        (
            "0.0.0.0:1",
            "LEANREAD_TOKEN",
            "correct horse battery staple and more words",
            "The bearer token in LEANREAD_TOKEN holds ' ', which an Authorization: Bearer header cannot carry; use "
            f"letters, digits and -._~+/ only: {MAKE}",
        ),
        (
            "0.0.0.0:1",
            "LEANREAD_TOKEN",
            "Xq3v9Lr0Tz7Kp2Wm5Nc8Bf1Hd4Jg6Ys0Ua3Ee9Oi7Rt2" + "\n",  # fixed: xdist workers collect the same ids
            "The bearer token in LEANREAD_TOKEN holds '\\n', which an Authorization: Bearer header cannot carry; use "
            f"letters, digits and -._~+/ only: {MAKE}",
        ),
    ],
)
def test_a_weak_token_is_refused_in_one_line_before_serving(
    repo: Path, bind: str, env_name: str, token: str, message: str
) -> None:
    done = _serve(repo, bind, env_name, token)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", message + "\n")


def test_a_good_token_is_served_off_loopback(repo: Path) -> None:
    token, port = secrets.token_urlsafe(32), free_port()
    env = {**os.environ, "LEANREAD_TOKEN": token}
    args = [sys.executable, "-m", "leanread", "serve", "--root", str(repo), "--ledger", "memory"]
    process = subprocess.Popen([*args, "--http", f"0.0.0.0:{port}"], env=env, stderr=subprocess.PIPE, text=True)
    try:
        deadline, health = time.monotonic() + 30, None
        while health is None and time.monotonic() < deadline and process.poll() is None:
            try:
                health = httpx2.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
            except httpx2.HTTPError:
                time.sleep(0.1)
        assert health is not None and (health.status_code, health.text) == (200, "ok\n")
        refused = httpx2.post(f"http://127.0.0.1:{port}/mcp", json={}, headers={"Authorization": "Bearer s3cre"})
        assert refused.status_code == 401
    finally:
        process.terminate()
        process.communicate(timeout=10)


@given(st.binary(min_size=24, max_size=64))
def test_every_url_safe_token_of_24_random_bytes_or_more_passes(raw: bytes) -> None:
    token = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    if len(set(token)) >= 8:  # random bytes give at least 8 different characters but for a few blobs
        check_token(token)


URL_SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


@given(st.text(alphabet=URL_SAFE, max_size=MIN_TOKEN_CHARS - 1))
def test_every_token_under_32_characters_is_refused(token: str) -> None:
    with pytest.raises(InvalidArgument, match=rf"^The bearer token in LEANREAD_TOKEN is {len(token)} characters long;"):
        check_token(token)


def test_the_token_made_as_told_passes() -> None:
    for _ in range(200):
        check_token(secrets.token_urlsafe(32))
        check_token(secrets.token_hex(16))
