"""The fuzzer's workspace: a seeded tree of hostile files, the background writer, and snapshots.

``build_tree(folder, seed)`` makes ``folder/ws`` (the workspace root the server is given) and
``folder/outside`` (a sibling the workspace links into, which no call may read or change). The
tree holds odd names (spaces, NFC and NFD unicode, a non-UTF-8 byte, newlines, tabs, leading
dashes, a 250-byte name), links of every kind, a hard link, a FIFO, a big file and a long line,
binary files, a text file with a few NULs, UTF-16/latin-1/CRLF/BOM files and secret files whose
every copy holds the tree's canary string. ``Live`` appends to ``live/growing.log`` and deletes and
recreates ``live/vanishing.txt`` while calls run; snapshots leave ``live/`` out.
"""

from __future__ import annotations

import hashlib
import os
import random
import stat
import threading
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

#: What a snapshot knows of one entry: its kind and digest (file bytes, link target) and inode.
Entry = tuple[str, str, int]
#: Every entry of the tree by its path (bytes, ``ws/...`` or ``outside/...``).
Snapshot = dict[bytes, Entry]

#: Folder of the workspace whose files change on their own while the fuzzer runs.
LIVE = "live"
#: Words the generated source files are made of; grep patterns draw from them too.
WORDS = (
    "alpha", "beta", "gamma", "retry", "delay", "upload", "parse", "header", "value", "quoted",
    "token", "SECRET", "password", "config", "café", "naïve", "日本語", "λ", "return", "class",
)  # fmt: skip


@dataclass
class Tree:
    """A generated workspace.

    Attributes:
        base: the temporary folder holding ``ws`` and ``outside``.
        root: the workspace root (``base/ws``).
        outside: the sibling folder outside the workspace.
        canary: the string written into every denied and outside file; no output may hold it.
        texts: path (relative to the root, as the server takes it) → the UTF-8 text written there,
            for edits that can succeed.
        files: every path of a file or link in the tree, relative to the root (non-UTF-8 bytes
            as surrogate escapes).
        folders: every folder, relative to the root ("." for the root).
    """

    base: Path
    root: Path
    outside: Path
    canary: str
    texts: dict[str, str] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    folders: list[str] = field(default_factory=list)


def _source(rng: random.Random, lines: int) -> str:
    """Python-looking text: functions and classes whose bodies are words of ``WORDS``."""
    out: list[str] = ['"""Generated module."""', ""]
    while len(out) < lines:
        name = f"{rng.choice(WORDS[:12])}_{rng.randrange(1000)}"
        if rng.random() < 0.2:
            out += [f"class {name.title().replace('_', '')}:", f"    def {name}(self, value):"]
            indent = "        "
        else:
            out.append(f"def {name}(value, retries=3):")
            indent = "    "
        for _ in range(rng.randrange(2, 8)):
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(1, 6)))
            out.append(f"{indent}# {words}")
        out += [f"{indent}return value  # {rng.choice(WORDS)}", ""]
    return "\n".join(out[:lines]) + "\n"


def _put(tree: Tree, relative: str | bytes, data: bytes, text: str | None = None) -> None:
    """Write a file of the tree and note it (``text`` when edits may target it)."""
    raw = relative if isinstance(relative, bytes) else relative.encode()
    path = os.path.join(os.fsencode(tree.root), raw)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(data)
    name = os.fsdecode(raw)
    tree.files.append(name)
    if text is not None:
        tree.texts[name] = text


def _link(tree: Tree, relative: str, target: str) -> None:
    path = tree.root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, path)
    tree.files.append(relative)


def _odd_names(tree: Tree, rng: random.Random) -> None:
    body = "".join(f"{rng.choice(WORDS)} line {i}\n" for i in range(1, 30))
    for name in (
        "names/with space.txt",
        "names/" + unicodedata.normalize("NFC", "café.txt"),
        "names/" + unicodedata.normalize("NFD", "cafe\u0301-nfd.txt"),
        "names/new\nline.txt",
        "names/tab\tname.txt",
        "names/-n.txt",
        "names/--help",
        "names/" + "x" * 246 + ".txt",
        "names/ünïcødé/ファイル.md",
        "names/$(echo hi).txt",
        "names/*.txt",
    ):
        _put(tree, name, body.encode(), body)
    _put(tree, b"names/caf\xe9.txt", body.encode())  # a name that is not UTF-8


def _encodings(tree: Tree, rng: random.Random) -> None:
    text = "".join(f"{rng.choice(WORDS[:14])} {i} naïve café\n" for i in range(40))
    _put(tree, "enc/utf8.txt", text.encode(), text)
    _put(tree, "enc/bom.txt", b"\xef\xbb\xbf" + text.encode(), text)
    _put(tree, "enc/utf16.txt", text.encode("utf-16"))
    _put(tree, "enc/latin1.txt", text.encode("latin-1"))
    _put(tree, "enc/crlf.txt", text.replace("\n", "\r\n").encode(), text)
    _put(tree, "enc/mixed_eol.txt", b"one\r\ntwo\nthree\rfour\n")
    _put(tree, "enc/no_final_newline.txt", text.rstrip("\n").encode(), text.rstrip("\n"))
    _put(tree, "enc/nul.txt", text.encode()[:200] + b"\x00\x00 a\x00b " + text.encode()[200:])
    _put(tree, "enc/invalid_utf8.txt", text.encode()[:100] + b"\xff\xfe\x80" + text.encode()[100:])
    _put(tree, "enc/empty.txt", b"", "")
    _put(tree, "enc/controls.txt", b"esc \x1b[31mred\x1b[0m bell \x07 bs \x08 del \x7f\n")


def _big(tree: Tree, rng: random.Random, big_bytes: int) -> None:
    line = "".join(rng.choice("abcdefgh ") for _ in range(90))
    count = max(1, big_bytes // (len(line) + 12))
    _put(tree, "big/big.log", "".join(f"{i:08d} {line}\n" for i in range(count)).encode())
    _put(tree, "big/one_line.min.js", ("var a=1;" * 40_000).encode())
    source = _source(rng, 900)
    _put(tree, "big/module.py", source.encode(), source)


def _binary(tree: Tree, rng: random.Random) -> None:
    _put(tree, "bin/blob.bin", bytes(rng.randrange(256) for _ in range(4096)))
    _put(tree, "bin/broken.png", b"\x89PNG\r\n\x1a\n" + bytes(rng.randrange(256) for _ in range(300)))
    _put(tree, "bin/archive.zip", b"PK\x03\x04" + bytes(rng.randrange(256) for _ in range(300)))
    _put(tree, "bin/fake.pdf", b"%PDF-1.4\n" + bytes(rng.randrange(256) for _ in range(300)))
    _put(tree, "bin/notebook.ipynb", b'{"cells": [{"cell_type": "code", "source": 5}]')


def _secrets(tree: Tree) -> None:
    secret = f"API_KEY={tree.canary}\nPASSWORD={tree.canary}\n".encode()
    for name in (".env", ".env.local", "config/.env.production", "keys/id_rsa", "keys/server.pem",
                 "keys/tls.key", "ENV/.ENV", ".env.d/inner.txt"):  # fmt: skip
        _put(tree, name, secret)
    example = "API_KEY=replace-me\n"
    _put(tree, ".env.example", example.encode(), example)
    public = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFuzzPublicKeyOnlyNothingSecret fuzz@leanread\n"
    _put(tree, "keys/id_ed25519.pub", public.encode(), public)  # a public key is meant to be shown
    tree.outside.mkdir(parents=True, exist_ok=True)
    (tree.outside / "secret.txt").write_bytes(secret)
    (tree.outside / "sub").mkdir(exist_ok=True)
    (tree.outside / "sub" / "notes.txt").write_bytes(secret)


def _links(tree: Tree) -> None:
    outside = os.path.relpath(tree.outside, tree.root / "links")
    _link(tree, "links/inside.py", "../src/app.py")
    _link(tree, "links/src_dir", "../src")
    _link(tree, "links/outside.txt", f"{outside}/secret.txt")
    _link(tree, "links/outside_dir", outside)
    _link(tree, "links/absolute_outside.txt", str(tree.outside / "secret.txt"))
    _link(tree, "links/dangling", "does-not-exist")
    _link(tree, "links/loop_a", "loop_b")
    _link(tree, "links/loop_b", "loop_a")
    _link(tree, "links/self", ".")
    _link(tree, "links/to_env", "../.env")
    _link(tree, "links/etc_hostname", "/etc/hostname")
    os.link(tree.root / "src" / "app.py", tree.root / "hard" / "app_hardlink.py")
    tree.files.append("hard/app_hardlink.py")
    tree.texts["hard/app_hardlink.py"] = tree.texts["src/app.py"]
    os.mkfifo(tree.root / "special" / "fifo")
    tree.files.append("special/fifo")


def build_tree(base: Path, seed: int, big_bytes: int = 3 << 20) -> Tree:
    """Generate the workspace under ``base`` (which must be empty or missing).

    Args:
        base: folder to create ``ws`` and ``outside`` in.
        seed: the same seed gives the same tree, byte for byte.
        big_bytes: size of ``big/big.log`` in bytes.

    Returns:
        The tree, with the texts and names the call generator draws from.
    """
    rng = random.Random(f"tree:{seed}")
    tree = Tree(base, base / "ws", base / "outside", f"LEANREAD-CANARY-{rng.getrandbits(128):032x}")
    for folder in ("ws/hard", "ws/special", "ws/out", "ws/" + LIVE):
        (base / folder).mkdir(parents=True, exist_ok=True)
    for name, lines in (("src/app.py", 120), ("src/util.py", 420), ("src/pkg/__init__.py", 8), ("README.md", 30)):
        text = _source(rng, lines)
        _put(tree, name, text.encode(), text)
    notes = "".join(f"# Heading {i}\n\n{rng.choice(WORDS)} text.\n\n" for i in range(60))
    _put(tree, "docs/notes.md", notes.encode(), notes)
    _put(tree, "AGENTS.md", b"Agents: keep edits small.\n", "Agents: keep edits small.\n")
    for i in range(120):
        _put(tree, f"many/file_{i:03d}.txt", f"{i} {rng.choice(WORDS)}\n".encode())
    _put(tree, "/".join(f"d{i}" for i in range(40)) + "/deep.txt", b"deep\n", "deep\n")
    _odd_names(tree, rng)
    _encodings(tree, rng)
    _big(tree, rng, big_bytes)
    _binary(tree, rng)
    _secrets(tree)
    _links(tree)
    for live in (f"{LIVE}/growing.log", f"{LIVE}/vanishing.txt"):
        _put(tree, live, b"start\n")
    tree.folders = sorted({"."} | {os.path.dirname(name) or "." for name in tree.files})
    return tree


class Live:
    """A background thread that appends a line to ``live/growing.log`` and deletes and recreates
    ``live/vanishing.txt`` every ``interval`` seconds until ``stop()``."""

    def __init__(self, root: Path, interval: float = 0.02) -> None:
        self._root = root / LIVE
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="leanread-fuzz-live", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        tick = 0
        while not self._stop.wait(self._interval):
            tick += 1
            try:
                with open(self._root / "growing.log", "a", encoding="utf-8") as handle:
                    handle.write(f"tick {tick}\n")
                vanishing = self._root / "vanishing.txt"
                if tick % 2:
                    vanishing.unlink(missing_ok=True)
                else:
                    vanishing.write_text(f"back at tick {tick}\n", encoding="utf-8")
            except OSError:
                continue  # a call replaced or removed the folder: go on


class Snapshotter:
    """Snapshots of ``root`` and ``outside``: every entry's kind, digest and inode.

    File digests are cached per (inode, size, mtime_ns, ctime_ns); a change of content always
    changes ``ctime``, so the cache never hides one. ``live/`` is left out.
    """

    def __init__(self, tree: Tree) -> None:
        self._tops = {b"ws": os.fsencode(tree.root), b"outside": os.fsencode(tree.outside)}
        self._digests: dict[tuple[int, int, int, int], str] = {}

    def take(self) -> Snapshot:
        """The current entries (see ``Snapshot``)."""
        shot: Snapshot = {}
        for label, top in self._tops.items():
            for folder, dirs, names in os.walk(top):
                relative = os.path.relpath(folder, top)
                if relative == b"." and label == b"ws":
                    dirs[:] = [d for d in dirs if d != LIVE.encode()]
                for name in dirs + names:
                    path = os.path.join(folder, name)
                    key = os.path.normpath(os.path.join(label, relative, name))
                    entry = self._entry(path)
                    if entry is not None:
                        shot[key] = entry
        return shot

    def _entry(self, path: bytes) -> Entry | None:
        try:
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                return ("link", os.fsdecode(os.readlink(path)), info.st_ino)
            if stat.S_ISDIR(info.st_mode):
                return ("dir", "", info.st_ino)
            if not stat.S_ISREG(info.st_mode):
                return ("special", stat.filemode(info.st_mode), info.st_ino)
            key = (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
            if key not in self._digests:
                with open(path, "rb") as handle:
                    self._digests[key] = hashlib.file_digest(handle, "sha256").hexdigest()
            return ("file", self._digests[key], info.st_ino)
        except OSError:
            return None  # vanished between the listing and the look
