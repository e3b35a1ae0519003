"""The warm session server of ``leanread read`` / ``leanread sh``: the same bytes as the CLI in
process, a thin client, private sockets, several shells at once, and a fallback in one line."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

LEANREAD = str(Path(sys.executable).parent / "leanread")


@pytest.fixture
def env(tmp_path: Path) -> Iterator[dict[str, str]]:
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    values = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("LEANREAD_", "XDG_"))},
        "XDG_RUNTIME_DIR": str(runtime),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "LEANREAD_SESSION": "s1",
        "LEANREAD_WARM_IDLE": "10",  # the servers a test starts exit on their own soon after it
    }
    yield values


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.py").write_text("".join(f"value_{n} = {n}\n" for n in range(1, 120)))
    return root


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([LEANREAD, *args], cwd=cwd, env=env, capture_output=True, text=True, check=False)


CALLS = [
    ["read", "a.py", "--offset", "5", "--limit", "3"],
    ["sh", "-c", "nl -ba a.py | sed -n '10,30p'"],
    ["sh", "-c", "sed -n '10,30p' a.py"],
    ["sh", "-c", "grep -n 'value_1[0-2] ' a.py"],
    ["sh", "-c", "echo out; echo err >&2; exit 3"],
    ["read", "missing.py"],
    ["sh", "--help"],
    ["read", "a.py", "--offset", "x"],
]


def test_warm_calls_print_what_the_cli_prints_in_process(repo: Path, env: dict[str, str], tmp_path: Path) -> None:
    cold_env = {**env, "LEANREAD_WARM": "0", "XDG_STATE_HOME": str(tmp_path / "cold-state")}
    warm = [_run(call, repo, env) for call in CALLS]
    folder = Path(env["XDG_RUNTIME_DIR"]) / "leanread"
    (sock,) = folder.glob("*.sock")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(sock.stat().st_mode) == 0o600
    cold = [_run(call, repo, cold_env) for call in CALLS]
    assert [(w.stdout, w.stderr, w.returncode) for w in warm] == [(c.stdout, c.stderr, c.returncode) for c in cold]
    assert warm[2].stdout.startswith("(Lines 10-30 unchanged since you read them")


def test_several_shells_at_once_each_get_their_answer(repo: Path, env: dict[str, str]) -> None:
    _run(["sh", "-c", "true"], repo, env)  # starts the server
    commands = [f"sed -n '{n},{n}p' a.py" for n in range(1, 13)]
    with ThreadPoolExecutor(6) as pool:
        done = list(pool.map(lambda c: _run(["sh", "--session", c, "-c", c], repo, env), commands))
    assert [d.stdout for d in done] == [f"value_{n} = {n}\n" for n in range(1, 13)]


def test_the_client_imports_nothing_heavy() -> None:
    probe = (
        "import sys, leanread.warm.client; "
        "print(sorted(m for m in sys.modules if m.startswith(('tiktoken', 'tree_sitter', 'typer', 'rich', "
        "'leanread.session', 'leanread.ledger', 'leanread.tools', 'sqlite3', 'mcp'))))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout == "[]\n"


def test_no_server_means_one_line_and_the_work_done_in_process(repo: Path, env: dict[str, str]) -> None:
    loose = Path(env["XDG_RUNTIME_DIR"]) / "leanread"
    loose.mkdir(mode=0o755)
    loose.chmod(0o755)  # not private: the client must not use it
    done = _run(["sh", "-c", "sed -n '2,3p' a.py"], repo, env)
    assert done.stdout == "value_2 = 2\nvalue_3 = 3\n"
    assert done.stderr.count("\n") == 1 and "running in process" in done.stderr


def test_an_idle_server_exits_and_removes_its_socket(repo: Path, env: dict[str, str]) -> None:
    _run(["sh", "-c", "true"], repo, {**env, "LEANREAD_WARM_IDLE": "5"})
    folder = Path(env["XDG_RUNTIME_DIR"]) / "leanread"
    assert len(list(folder.glob("*.sock"))) == 1
    deadline = time.monotonic() + 30
    while list(folder.glob("*.sock")) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert list(folder.glob("*.sock")) == []


def test_a_server_notices_a_new_build_of_its_sources(tmp_path: Path) -> None:
    from leanread.warm.server import Build

    (tmp_path / "sub").mkdir()
    source = tmp_path / "sub" / "m.py"
    source.write_text("x = 1\n")
    os.utime(source, ns=(1_000_000_000, 1_000_000_000))
    build = Build(str(tmp_path))
    build.looked -= 2
    assert build.changed() is False
    os.utime(source, ns=(2_000_000_000, 2_000_000_000))
    assert build.changed() is False  # looked less than a second ago
    build.looked -= 2
    assert build.changed() is True


@pytest.mark.parametrize("warm", ["1", "0"])
def test_a_command_run_as_it_is_gets_the_signals_a_shell_gives(repo: Path, env: dict[str, str], warm: str) -> None:
    """CPython ignores SIGPIPE and SIGXFSZ; the ``bash -c`` leanread becomes must not inherit
    that, or ``yes | head -1`` runs on, printing write errors."""
    env = {**env, "LEANREAD_WARM": warm}
    done = subprocess.run(
        [LEANREAD, "sh", "-c", 'yes | head -1; echo "${PIPESTATUS[@]}"; trap -p PIPE XFSZ'],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert (done.stdout, done.stderr, done.returncode) == ("y\n141 0\n", "", 0)


def test_the_server_imports_nothing_from_the_workspace(repo: Path, env: dict[str, str]) -> None:
    """The warm server starts in the workspace's folder; a repository's ``email/`` or ``json/``
    must not be imported in place of the standard library's (nor run)."""
    for name in ("email", "json", "zlib", "typer"):
        (repo / name).mkdir()
        (repo / name / "__init__.py").write_text(f"open({str(repo / (name + '.ran'))!r}, 'w').close()\n")
    done = _run(["sh", "-c", "sed -n '5p' a.py"], repo, env)
    assert (done.stdout, done.stderr) == ("value_5 = 5\n", "")
    assert list(repo.glob("*.ran")) == []
    assert list(Path(env["XDG_RUNTIME_DIR"], "leanread").glob("*.sock"))  # the warm server answered


def _warm_servers(runtime: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if "leanread.warm.server" in line and runtime in line:
                found.append(int(entry.name))
    return found


def test_parallel_first_calls_leave_one_server_and_its_socket(repo: Path, env: dict[str, str]) -> None:
    with ThreadPoolExecutor(6) as pool:  # six shells' first calls at once, no server yet
        done = list(pool.map(lambda _: _run(["read", "a.py", "--limit", "3"], repo, env), range(6)))
    assert {d.returncode for d in done} == {0}
    runtime = env["XDG_RUNTIME_DIR"]
    deadline = time.monotonic() + 20  # the servers that lost the race leave within their lock wait
    while len(_warm_servers(runtime)) > 1 and time.monotonic() < deadline:
        time.sleep(0.1)
    servers = _warm_servers(runtime)
    assert len(servers) == 1
    assert len(list((Path(runtime) / "leanread").glob("*.sock"))) == 1
    assert _run(["read", "a.py", "--limit", "3"], repo, env).returncode == 0  # answered by that server
    assert _warm_servers(runtime) == servers
    os.kill(servers[0], 15)
