"""The fuzzer's calls: random valid and hostile tool calls, each a pure function of (seed, index).

``make_call(seed, index, tree)`` always gives the same call for the same seed, index and tree, so
a failure is replayed with ``--seed S --only K``. A call right after a valid read of a text file
is, half the time, an edit of that file built from its known text, so that some edits are
granted and succeed (and their change of the file is explained).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .tree import WORDS, Tree

#: Tools and how often each is called (weights).
TOOLS = {"read": 30, "grep": 18, "ls": 12, "edit": 16, "write": 10, "context": 6, "unknown": 3}
#: A hostile argument instead of a valid one, per argument.
HOSTILE = 0.25

HOSTILE_STRINGS = (
    "", " ", "\x00", "a\x00b", "src/app.py\x00.txt", "\ud800", "x\udfffy", "\udce9", "\ud83d",
    "../outside/secret.txt", "../../../../../etc/passwd", "src/../../outside/sub/notes.txt", "/etc/passwd",
    "/etc/shadow", "/dev/zero", "/dev/stdin", "/dev/urandom", "/proc/self/environ", "/proc/self/fd/0", "~",
    "~/.ssh/id_rsa", "$HOME", "*", "**/*", "\n", "-", "--", "file:///etc/passwd", "src\\app.py", "src/app.py/",
    "src//app.py", "./src/./app.py", "%2e%2e/outside", "a" * 65536, "é" * 20000, "\u202e\u2066txt", "\ufeff",
    "CON", "null", "None", "[]", "{}", "10",
)  # fmt: skip
HOSTILE_NUMBERS = (-1, -(2**31), 2**31, 2**63, 2**64 + 1, 10**9, 10**30, 1.5, -0.0, 1e308)
WRONG_TYPES: tuple[Any, ...] = (True, False, None, [], {}, [1, 2], {"a": 1}, "10", "abc", 0.5)
PATTERNS = (
    *WORDS, "def ", r"^class \w+", r"retr(y|ies)", r"\bvalue\b", "CANARY", "API_KEY", "PASSWORD", ".", ".*", "^$",
    "(a+)+$", "(x+x+)+y", "(.*a){12}", "a{1000}{1000}", r"\p{Greek}+", "[", "(", "(?P<", "\\", "*", "a**",
    "(?i)SECRET", "(?s).+", r"\x00", "\x00", "[^\\n]{1000,}", "-e", "--files", "--pre=sh", "(?=look)", r"\1",
)  # fmt: skip
GLOBS = ("*.py", "**/*.txt", "!*.min.js", "src/**", "{", "[", "**", "../*", "/etc/*", "*.{py,md}", ".env*")
TYPES = ("py", "md", "rust", "js", "txt", "nonsense", "all")
FORMATS = ("plain", "tab", "colon", "catn", "visible", "html", "PLAIN")
MODES = ("auto", "full", "outline", "stub", "raw")
QUESTIONS = ("How does the retry delay work?", "Where is the header parsed?", "What is alpha?", "?", "x" * 3000)
ODD_TEXTS = (
    "", "\x00\x00", "line\r\nline\r\n", "no newline", "a" * 65536, "\u2028sep\u2029", "\t^I$\n", "\ufeffbom\n",
    "(Showing lines 1-2 of 9. Use offset=3 to continue.)",
)  # fmt: skip
ACTIONS = ("forget", "compact", "rewind", "undo", "")


@dataclass(frozen=True)
class Call:
    """One tool call: ``index`` is 1-based; ``arguments`` may hold anything JSON can carry
    (lone surrogates included: the transport sends them as ``\\uXXXX`` escapes)."""

    index: int
    tool: str
    arguments: dict[str, Any]

    def shown(self, limit: int = 300) -> str:
        """The call as one line for a report: ``read(path='a', offset=-1)``, cut to ``limit``."""
        args = ", ".join(f"{k}={_short(v)}" for k, v in self.arguments.items())
        text = f"{self.tool}({args})"
        return text if len(text) <= limit else text[: limit - 3] + "..."


def _short(value: Any) -> str:
    text = repr(value)
    if len(text) > 80:
        return f"{text[:40]}...<{len(text)} chars>"
    return text


def _hostile(rng: random.Random) -> Any:
    return rng.choice((*HOSTILE_STRINGS, *HOSTILE_NUMBERS, *WRONG_TYPES))


def _path(rng: random.Random, tree: Tree) -> Any:
    pick = rng.random()
    if pick < 0.55:
        return rng.choice(tree.files)
    if pick < 0.7:
        return rng.choice(tree.folders)
    if pick < 0.8:
        return str(tree.root / rng.choice(tree.files))
    if pick < 0.9:
        return rng.choice(("src/nope.py", "src/App.py", "out/new.txt", "does/not/exist.txt", "src/app.p"))
    return rng.choice(HOSTILE_STRINGS)


def _number(rng: random.Random, top: int) -> Any:
    return rng.randrange(0, top) if rng.random() < 0.85 else rng.choice(HOSTILE_NUMBERS)


def _text(rng: random.Random) -> str:
    pick = rng.random()
    if pick < 0.7:
        return "".join(f"{rng.choice(WORDS)} {rng.randrange(100)}\n" for _ in range(rng.randrange(0, 12)))
    return str(rng.choice(ODD_TEXTS))


def _read(rng: random.Random, tree: Tree) -> dict[str, Any]:
    if rng.random() < 0.3:  # a plain read of a small text file: the next call may edit it
        return {"path": rng.choice([p for p, text in sorted(tree.texts.items()) if text.count("\n") < 150])}
    args: dict[str, Any] = {"path": _path(rng, tree)}
    options: dict[str, Callable[[], Any]] = {
        "offset": lambda: _number(rng, 500),
        "limit": lambda: _number(rng, 300),
        "format": lambda: rng.choice(FORMATS),
        "fresh": lambda: rng.random() < 0.5,
        "char_offset": lambda: _number(rng, 400_000),
        "match_id": lambda: rng.choice(("m1", "m2", "m7", "m30", "x", "m0", "m-1")),
        "context_before": lambda: _number(rng, 40),
        "context_after": lambda: _number(rng, 40),
        "mode": lambda: rng.choice(MODES),
        "symbol": lambda: rng.choice(("Store.get", "main", "alpha_1", "", "a.b.c", "__init__")),
        "focus": lambda: rng.choice(QUESTIONS),
    }
    for name in rng.sample(list(options), rng.randrange(0, 4)):
        args[name] = options[name]()
    if rng.random() < 0.1:
        del args["path"]  # go on with the last file
    return args


def _grep(rng: random.Random, tree: Tree) -> dict[str, Any]:
    args: dict[str, Any] = {"pattern": rng.choice(PATTERNS)}
    options: dict[str, Callable[[], Any]] = {
        "path": lambda: _path(rng, tree),
        "glob": lambda: rng.choice(GLOBS),
        "type": lambda: rng.choice(TYPES),
        "case_insensitive": lambda: rng.random() < 0.5,
        "context": lambda: _number(rng, 6),
        "before": lambda: _number(rng, 6),
        "after": lambda: _number(rng, 6),
        "max_results": lambda: _number(rng, 200),
        "offset": lambda: _number(rng, 50),
        "files_only": lambda: rng.random() < 0.5,
        "focus": lambda: rng.choice(QUESTIONS),
    }
    for name in rng.sample(list(options), rng.randrange(0, 4)):
        args[name] = options[name]()
    return args


def _ls(rng: random.Random, tree: Tree) -> dict[str, Any]:
    args: dict[str, Any] = {}
    if rng.random() < 0.8:
        args["path"] = rng.choice(tree.folders) if rng.random() < 0.7 else _path(rng, tree)
    if rng.random() < 0.5:
        args["depth"] = _number(rng, 8)
    if rng.random() < 0.3:
        args["max_entries"] = _number(rng, 400)
    return args


def _edit(rng: random.Random, tree: Tree, path: str | None = None) -> dict[str, Any]:
    if path is None:
        path = rng.choice(sorted(tree.texts)) if rng.random() < 0.8 else _path(rng, tree)
    lines = tree.texts.get(path, "").splitlines(keepends=True) if isinstance(path, str) else []
    if lines and rng.random() < 0.8:
        start = rng.randrange(len(lines))
        old = "".join(lines[start : start + rng.randrange(1, 4)]).rstrip("\n")
    else:
        old = rng.choice(("value", "", "\x00", "not in the file at all", "a" * 65536, "^Ireturn$", "é\ud800"))
    new = rng.choice((old.upper(), old + "  # fuzzed", old + "\n# fuzzed", "", "\x00", old.replace("\n", "\r\n")))
    args: dict[str, Any] = {"path": path, "old_string": old, "new_string": new}
    if rng.random() < 0.2:
        args["replace_all"] = rng.random() < 0.5
    return args


def _write(rng: random.Random, tree: Tree) -> dict[str, Any]:
    pick = rng.random()
    if pick < 0.5:
        path: Any = rng.choice(("out/new.txt", "out/sub/deep/new.py", "out/ünï.txt", "out/new\nline.txt",
                                f"out/w{rng.randrange(20)}.txt", "out/.env", "out/id_rsa", "out/-rf"))  # fmt: skip
    elif pick < 0.8:
        path = rng.choice(tree.files)
    else:
        path = _path(rng, tree)
    return {"path": path, "content": _text(rng)}


def _context(rng: random.Random) -> dict[str, Any]:
    args: dict[str, Any] = {"action": rng.choice(ACTIONS)}
    if rng.random() < 0.6:
        args["call_ids"] = [f"r{rng.randrange(0, 60)}" for _ in range(rng.randrange(0, 4))]
    if rng.random() < 0.6:
        args["call_id"] = rng.choice((f"r{rng.randrange(0, 60)}", "", "rX", "\x00"))
    return args


def _hostile_tweaks(rng: random.Random, args: dict[str, Any]) -> dict[str, Any]:
    """Swap some values for hostile ones, and now and then add an unknown or drop a required one."""
    tweaked = {k: (_hostile(rng) if rng.random() < HOSTILE else v) for k, v in args.items()}
    if rng.random() < 0.04:
        tweaked[rng.choice(("bogus", "file_path", "", "\x00", "path ", "a" * 300))] = 1
    if tweaked and rng.random() < 0.03:
        del tweaked[rng.choice(list(tweaked))]
    return tweaked


def _valid_read_of_text(call: Call, tree: Tree) -> str | None:
    """The text file a call reads whole or in part with valid arguments, else None."""
    path = call.arguments.get("path")
    if call.tool != "read" or not isinstance(path, str) or path not in tree.texts:
        return None
    return path if set(call.arguments) <= {"path", "offset", "limit", "format", "fresh", "mode"} else None


def make_call(seed: int, index: int, tree: Tree) -> Call:
    """Call number ``index`` (1-based) of the run with ``seed`` over ``tree``.

    Pure: the same (seed, index, tree) always gives the same call.
    """
    rng = random.Random(f"call:{seed}:{index}")
    if index > 1 and rng.random() < 0.7:
        earlier = _valid_read_of_text(make_call(seed, index - 1, tree), tree)
        if earlier is not None:
            return Call(index, "edit", _edit(rng, tree, earlier))
    tool = rng.choices(list(TOOLS), weights=list(TOOLS.values()))[0]
    if tool == "unknown":
        name = rng.choice(("reed", "", "READ", "read ", "read\x00", "tools/list", "a" * 1000, "\ud800"))
        return Call(index, name, {"path": "src/app.py"})
    builders: dict[str, Callable[[], dict[str, Any]]] = {
        "read": lambda: _read(rng, tree),
        "grep": lambda: _grep(rng, tree),
        "ls": lambda: _ls(rng, tree),
        "edit": lambda: _edit(rng, tree),
        "write": lambda: _write(rng, tree),
        "context": lambda: _context(rng),
    }
    args = builders[tool]()
    if rng.random() < 0.5:
        args = _hostile_tweaks(rng, args)
    return Call(index, tool, args)
