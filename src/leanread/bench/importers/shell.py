"""A bash command an agent ran, as the replay's file operations (the mapping of ``shared/traces``).

``command_ops(cmd, root)`` splits the command at ``&&``, ``||``, ``;`` and newlines outside quotes
and here-documents, then maps each part (a pipeline) to one or more ops:

- reads: ``cat F`` (whole), ``nl -ba F | sed -n 'a,bp;c,dp'`` and ``sed -n 'a,bp' F`` (one read per
  range), ``head -n N F``, ``tail -n N F`` (``tail``) / ``tail -n +K F``, ``awk 'NR>=a&&NR<=b' F``;
  a ``sed -n '/re/,/re/p' F`` window cannot be turned into lines: a ``shell`` op with ``reads``;
- searches: ``grep``/``egrep``/``rg``/``git grep`` (``cat F | grep`` searches ``F``), ``find …
  -exec grep`` and ``find … | xargs grep`` (``files`` holds the ``-name`` filter) → ``grep``;
  ``find`` alone → ``glob``; ``ls`` and ``tree`` → ``list``;
- writes: ``cat <<EOF > F``, ``cat > F <<EOF``, ``tee F <<EOF``, ``echo … > F`` (``>>``: append)
  → ``write``; ``sed -i``, ``rm``, ``mv``, ``cp``, ``touch``, ``mkdir``, ``patch``, ``git checkout``/
  ``apply``/``stash``/``reset``, a redirect into a file, a here-document script → ``shell`` with
  ``mutates`` (the paths, or ``true`` when they are unknown), kept whole so it can be re-run;
- ``cd`` changes the folder the command's later relative paths are taken from; everything else
  is ``shell``, its command cut to 300 characters.

Paths under ``root`` (the repository inside the agent's container) become relative to it (``.``
for the root itself); other absolute paths stay absolute.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from typing import Any

from ...shell.split import HEREDOC, heredoc_body, split_commands, split_pipeline
from .shell_changes import echo_text, redirect_target, script_writes
from .shell_changes import mutates as changed_paths

Op = dict[str, Any]

#: ``cmd`` of a non-mutating shell op is cut to this many characters.
CMD_CHARS = 300
_RANGE = re.compile(r"^(\d+)(?:,(\d+|\$))?p$")


class ShellMapper:
    """Maps commands to ops, keeping the current folder between them.

    Args:
        root: the repository's folder in the agent's container (``/testbed``); "" when unknown.

    A ``cd`` lasts until the end of its command (mini-swe-agent starts every command at the root;
    OpenHands keeps its shell, but its commands name their folder); a glob (``*.py``) after it
    stays as written, as ``shared/traces`` has it.
    """

    def __init__(self, root: str) -> None:
        self.root = root.rstrip("/")
        self.cwd = "."
        #: Scripts the agent wrote (path → text), to tell what ``python SCRIPT`` changes.
        self.scripts: dict[str, str] = {}

    def rel(self, path: str) -> str:
        """``path`` relative to the repository (``.`` for its root), or absolute outside it."""
        if not path.startswith("/"):
            if self.cwd != "." and not any(c in path for c in "*?["):
                path = posixpath.join(self.cwd, path)
            return posixpath.normpath(path)
        path = posixpath.normpath(path)
        if self.root and (path == self.root or path.startswith(self.root + "/")):
            return posixpath.relpath(path, self.root)
        return path

    def ops(self, cmd: str) -> list[Op]:
        """The ops of one command an agent ran (see the module docstring)."""
        out: list[Op] = []
        self.cwd = "."
        for part in split_commands(cmd):
            for op in self._part(part):
                self.track(op)
                out.append(op)
        return out

    def track(self, op: Op) -> None:
        """Keep the text of files the agent writes or edits (``write``, ``edit``), so that what a
        Python script it runs changes can be told (``script_writes``)."""
        path = str(op.get("path"))
        if op["op"] == "write":
            before = self.scripts.get(path, "") if op.get("append") else ""
            self.scripts[path] = before + str(op.get("content", ""))
        elif op["op"] == "edit" and path in self.scripts and isinstance(op.get("old"), str):
            self.scripts[path] = self.scripts[path].replace(op["old"], str(op.get("new", "")), 1)

    def _part(self, part: str) -> list[Op]:
        stages = split_pipeline(part)
        words = [_words(s) for s in stages]
        if any(w is None for w in words):
            return [self._shell(part)]
        argv = [w for w in words if w is not None]
        if not argv or not argv[0]:
            return [self._shell(part)]
        first = argv[0]
        if part.startswith("#"):
            return []
        if first[0] == "cd" and len(stages) == 1:
            self.cwd = self._cd(first[1] if len(first) > 1 else "")
            return []
        for mapper in (self._write, self._read, self._search, self._listing):
            found = mapper(part, argv)
            if found is not None:
                return [op if op["op"] == "write" else {**op, "cmd": _cut(part)} for op in found]
        return [self._shell(part, argv)]

    def _script(self, argv: list[list[str]] | None) -> str | None:
        """The text of the Python script ``python[3] FILE`` or ``python - <<EOF`` runs, if known."""
        if not argv or not argv[0] or not re.fullmatch(r"python[0-9.]*", argv[0][0]):
            return None
        args = [w for w in argv[0][1:] if not w.startswith("-") and not w.startswith("<")]
        if args:
            return self.scripts.get(self.rel(args[0]))
        return None

    def _cd(self, target: str) -> str:
        if not target or target == "~":
            return "."
        rel = self.rel(target)
        return rel if not rel.startswith("/") else "."

    # --- reads ----------------------------------------------------------------------------

    def _read(self, part: str, argv: list[list[str]]) -> list[Op] | None:
        if _redirects(part):
            return None
        first = argv[0]
        rest = argv[1:]
        if first[0] == "cat" and len(first) > 1 and not any(a.startswith("-") for a in first[1:]):
            files = first[1:]
            if rest and rest[0][0] in ("grep", "egrep", "rg") and len(files) == 1:
                return None
            if rest and not _windowing(rest):
                return None
            return [_read_op(self.rel(f), None, None) for f in files] if not rest else self._windows(files[0], rest)
        if first[:2] == ["nl", "-ba"] and len(first) == 3:
            return self._windows(first[2], rest)
        command = first[0]
        if command in ("sed", "head", "tail", "awk") and len(first) > 1:
            target = first[-1]
            if target.startswith("-") or target.startswith("'"):
                return None
            return self._windows(target, [first[:-1], *rest])
        return None

    def _windows(self, path: str, stages: list[list[str]]) -> list[Op] | None:
        """Reads of ``path`` through ``stages`` (``sed -n``, ``head``, ``tail``, ``awk`` in a row)."""
        if not stages:
            return [_read_op(self.rel(path), None, None)]
        rel = self.rel(path)
        if stages[0][:2] == ["sed", "-n"] and len(stages[0]) == 3 and "/" in stages[0][2]:
            return [{"op": "shell", "reads": [rel]}]
        if len(stages) > 1:
            return None
        stage = stages[0]
        name = stage[0]
        if name == "sed" and len(stage) == 3 and stage[1] == "-n":
            ranges = [_RANGE.match(r.strip()) for r in stage[2].split(";") if r.strip()]
            if ranges and all(ranges):
                return [_range_read(rel, m) for m in ranges if m]
            return None
        if name == "head":
            n = _count(stage[1:])
            return [_read_op(rel, 1, n)] if n is not None else None
        if name == "tail":
            spec = _tail(stage[1:])
            if spec is None:
                return None
            kind, n = spec
            return [_read_op(rel, n, None)] if kind == "from" else [{**_read_op(rel, None, None), "tail": n}]
        if name == "awk" and len(stage) == 2:
            found = re.fullmatch(r"\s*NR\s*>=\s*(\d+)\s*&&\s*NR\s*<=\s*(\d+)\s*", stage[1])
            if found:
                a, b = int(found.group(1)), int(found.group(2))
                return [_read_op(rel, a, b - a + 1)]
        return None

    # --- searches and listings --------------------------------------------------------------

    def _search(self, part: str, argv: list[list[str]]) -> list[Op] | None:
        if _redirects(part):
            return None
        first = argv[0]
        if len(argv) == 2 and argv[1][0] in ("grep", "egrep") and _reads_one_file(first):
            op = self._grep(argv[1])
            return [{**op, "path": self.rel(first[-1])}] if op else None
        if first[0] in ("grep", "egrep", "rg") or first[:2] == ["git", "grep"]:
            op = self._grep(first[1:] if first[0] == "git" else first)
            return [op] if op and len(argv) <= 2 else None
        if first[0] == "find":
            return self._find(first, argv[1:])
        return None

    def _grep(self, words: list[str]) -> Op | None:
        flags: list[str] = []
        args: list[str] = []
        patterns: list[str] = []
        i = 1
        while i < len(words):
            w = words[i]
            if w in ("-e", "--regexp") and i + 1 < len(words):
                patterns.append(words[i + 1])
                i += 2
                continue
            if w in ("-A", "-B", "-C", "-m", "--include", "--exclude", "-g", "--glob", "-t") and i + 1 < len(words):
                flags.append(f"{w} {words[i + 1]}")
                i += 2
                continue
            (flags if w.startswith("-") and w != "-" else args).append(w)
            i += 1
        if not patterns:
            if not args:
                return None
            patterns = [args.pop(0)]
        op: Op = {"op": "grep", "pattern": patterns[0] if len(patterns) == 1 else patterns}
        paths = [self.rel(a) for a in args]
        op["path"] = paths[0] if paths else "."
        if len(paths) > 1:
            op["paths"] = paths
        if flags:
            op["flags"] = flags
        return op

    def _find(self, first: list[str], rest: list[list[str]]) -> list[Op] | None:
        path = first[1] if len(first) > 1 and not first[1].startswith("-") else "."
        name = None
        for flag in ("-name", "-iname", "-path"):
            if flag in first and first.index(flag) + 1 < len(first):
                name = first[first.index(flag) + 1]
                break
        if "-exec" in first:
            at = first.index("-exec")
            inner = [w for w in first[at + 1 :] if w not in ("{}", ";", "\\;", "+")]
            if inner and inner[0] in ("grep", "egrep"):
                op = self._grep(inner)
                return [_with_files(op, self.rel(path), name)] if op else None
            return None
        if rest:
            if len(rest) == 1 and rest[0][:1] == ["xargs"] and len(rest[0]) > 1 and rest[0][1] in ("grep", "egrep"):
                op = self._grep(rest[0][1:])
                return [_with_files(op, self.rel(path), name)] if op else None
            if all(r and r[0] in ("head", "sort", "wc", "grep") for r in rest):
                return [{"op": "glob", "pattern": name, "path": self.rel(path)}]
            return None
        return [{"op": "glob", "pattern": name, "path": self.rel(path)}]

    def _listing(self, part: str, argv: list[list[str]]) -> list[Op] | None:
        first = argv[0]
        if first[0] not in ("ls", "tree") or _redirects(part):
            return None
        if len(argv) > 1 and not all(r and r[0] in ("head", "sort", "grep", "wc") for r in argv[1:]):
            return None
        paths = [w for w in first[1:] if not w.startswith("-")]
        return [{"op": "list", "path": self.rel(p)} for p in paths] or [{"op": "list", "path": "."}]

    # --- writes and everything else ---------------------------------------------------------

    def _write(self, part: str, argv: list[list[str]]) -> list[Op] | None:
        first = argv[0]
        body = heredoc_body(part)
        head = part.split("\n", 1)[0]
        target = redirect_target(head)
        if first[0] == "cat" and body is not None and target is not None and len(argv) == 1:
            return [self._write_op(target[0], body, target[1])]
        if first[0] == "tee" and body is not None and len(argv) == 1:
            files = [w for w in first[1:] if not w.startswith("-") and not w.startswith("<")]
            append = "-a" in first
            return [self._write_op(files[0], body, append)] if len(files) == 1 else None
        if first[0] in ("echo", "printf") and target is not None and len(argv) == 1 and body is None:
            text = echo_text(first)
            return [self._write_op(target[0], text, target[1])] if text is not None else None
        return None

    def _write_op(self, path: str, content: str, append: bool) -> Op:
        op: Op = {"op": "write", "path": self.rel(path), "content": content}
        if append:
            op["append"] = True
        return op

    def _shell(self, part: str, argv: list[list[str]] | None = None) -> Op:
        mutates = changed_paths(part, argv, self.rel)
        script = self._script(argv)
        if script is not None:
            mutates = script_writes(script) or mutates
        if mutates:
            return {"op": "shell", "cmd": part, "mutates": mutates}
        return {"op": "shell", "cmd": _cut(part)}


def _cut(part: str) -> str:
    return part if len(part) <= CMD_CHARS else part[:CMD_CHARS]


def _words(stage: str) -> list[str] | None:
    head = stage.split("\n", 1)[0] if HEREDOC.search(stage) else stage
    try:
        return shlex.split(head)
    except ValueError:
        return None


def _with_files(op: Op, path: str, name: str | None) -> Op:
    op = {**op, "path": path}
    if name is not None:
        op["files"] = name
    return op


def _reads_one_file(words: list[str]) -> bool:
    """``cat F``, ``nl -ba F``, ``head -n N F``, ``sed -n 'a,bp' F``: a command printing (part of) one file."""
    if words[0] == "cat":
        return len(words) == 2
    if words[:2] == ["nl", "-ba"]:
        return len(words) == 3
    if words[0] in ("head", "tail", "sed") and len(words) >= 3 and not words[-1].startswith("-"):
        return words[0] != "sed" or words[1] == "-n"
    return False


def _redirects(part: str) -> bool:
    return redirect_target(part.split("\n", 1)[0]) is not None


def _windowing(stages: list[list[str]]) -> bool:
    return len(stages) == 1 and stages[0][0] in ("sed", "head", "tail", "awk")


def _read_op(path: str, offset: int | None, limit: int | None) -> Op:
    return {"op": "read", "path": path, "offset": offset, "limit": limit}


def _range_read(path: str, found: re.Match[str]) -> Op:
    a = int(found.group(1))
    b = found.group(2)
    if b is None:
        return _read_op(path, a, 1)
    if b == "$":
        return _read_op(path, a, None)
    return _read_op(path, a, int(b) - a + 1)


def _count(words: list[str]) -> int | None:
    """``N`` of ``-n N``, ``-nN``, ``-N`` (default 10)."""
    if not words:
        return 10
    w = words[0]
    if w == "-n" and len(words) > 1 and words[1].isdigit():
        return int(words[1])
    if w.startswith("-n") and w[2:].isdigit():
        return int(w[2:])
    if w.startswith("-") and w[1:].isdigit():
        return int(w[1:])
    return None


def _tail(words: list[str]) -> tuple[str, int] | None:
    if words and words[0] == "-n" and len(words) > 1 and words[1].startswith("+") and words[1][1:].isdigit():
        return "from", int(words[1][1:])
    n = _count(words)
    return ("last", n) if n is not None else None
