"""The stdio server's stdin and stdout read and written on the event loop (``mcp.pipes``): lines
whole across reads, bad bytes replaced as the SDK's own streams do, a full pipe waited on, and
the standard descriptors diverted while serving and given back after."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import anyio
from hypothesis import given, settings
from hypothesis import strategies as st

from leanread.mcp.pipes import LineReader, PipeWriter


async def _lines_of(chunks: list[bytes]) -> list[str]:
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)

    def feed() -> None:
        with open(write_end, "wb", buffering=0) as out:
            for chunk in chunks:
                out.write(chunk)

    feeder = threading.Thread(target=feed)
    feeder.start()
    try:
        return [line async for line in LineReader(read_end)]
    finally:
        feeder.join()
        os.close(read_end)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.binary(max_size=300), max_size=12))
def test_lines_are_those_of_the_bytes_whatever_the_reads(chunks: list[bytes]) -> None:
    parts = b"".join(chunks).decode("utf-8", "replace").split("\n")
    expected = [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
    assert anyio.run(_lines_of, chunks) == expected


def test_a_line_past_many_reads_comes_whole_and_a_last_line_without_newline_too() -> None:
    big = json.dumps({"text": "é" * 200_000}).encode()
    lines = anyio.run(_lines_of, [big[:70_000], big[70_000:] + b"\n{\"a\":", b" 1}"])
    assert lines == [big.decode() + "\n", '{"a": 1}']


def test_bad_bytes_are_replaced_as_the_sdks_streams_do() -> None:
    assert anyio.run(_lines_of, [b"ok\xff\xfe\n", b"caf\xc3", b"\xa9\n"]) == ["ok\ufffd\ufffd\n", "café\n"]


def test_a_full_pipe_is_waited_on_and_every_byte_arrives() -> None:
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    text = "".join(f"line {i} ü\n" for i in range(200_000))  # far past a pipe's 64 KiB
    got = bytearray()

    def drain() -> None:
        with open(read_end, "rb", buffering=0) as source:
            while chunk := source.read(65536):
                got.extend(chunk)

    reader = threading.Thread(target=drain)
    reader.start()

    async def write() -> int:
        return await PipeWriter(write_end).write(text)

    try:
        assert anyio.run(write) == len(text)
    finally:
        os.close(write_end)
        reader.join()
    assert bytes(got) == text.encode("utf-8")


_SERVE = """
import os, sys, anyio
from leanread.mcp.pipes import event_loop_pipes

async def main():
    with event_loop_pipes() as pipes:
        if pipes is None:
            print("none", file=sys.stderr)
            return
        reader, writer = pipes
        print("stray output", flush=True)  # fd 1 is stderr while serving
        os.system("cat >/dev/null")  # a child reading fd 0 finds nothing, not the client's lines
        async for line in reader:
            await writer.write("echo " + line)
    print("after", flush=True)  # fd 1 given back

anyio.run(main)
"""


def test_while_serving_fd_0_and_1_are_diverted_and_given_back_after() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _SERVE], input=b"one\ntwo\n", capture_output=True, timeout=60, check=True
    )
    assert done.stdout == b"echo one\necho two\nafter\n"
    assert done.stderr == b"stray output\n"


def test_a_regular_file_on_stdin_is_left_to_the_sdks_streams(tmp_path: Path) -> None:
    messages = tmp_path / "in.txt"
    messages.write_text("one\n")
    with messages.open("rb") as stdin:
        done = subprocess.run([sys.executable, "-c", _SERVE], stdin=stdin, capture_output=True, timeout=60, check=True)
    assert (done.stdout, done.stderr) == (b"", b"none\n")


def test_the_pipes_a_client_shares_stay_blocking_after_the_server_is_killed() -> None:
    stdin_read, stdin_write = os.pipe()
    stdout_read, stdout_write = os.pipe()
    try:
        server = subprocess.Popen([sys.executable, "-c", _SERVE], stdin=stdin_read, stdout=stdout_write)
        os.write(stdin_write, b"ping\n")
        with os.fdopen(os.dup(stdout_read), "rb", buffering=0) as replies:
            assert replies.read(10) == b"echo ping\n"  # serving: its own descriptions are non-blocking
        server.kill()
        server.wait(30)
        # a wrapper that handed these pipes over reads and writes them on: still blocking
        assert (os.get_blocking(stdin_read), os.get_blocking(stdout_write)) == (True, True)
    finally:
        for fd in (stdin_read, stdin_write, stdout_read, stdout_write):
            os.close(fd)
