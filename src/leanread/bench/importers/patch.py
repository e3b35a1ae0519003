"""Codex's ``apply_patch`` text (``*** Begin Patch`` … ``*** End Patch``) as the replay's ops.

- ``*** Add File: P`` and its ``+`` lines → ``write`` of those lines (each ending in a newline).
- ``*** Update File: P``: each chunk (``@@`` starts a new one; the ``@@ …`` text only locates it)
  → ``edit`` with ``old`` = its context (`` ``) and removed (``-``) lines, ``new`` = its context and
  added (``+``) lines, each line ending in a newline, as ``apply_patch`` applies it. A chunk with
  no context and no removed line (only ``+`` lines, e.g. at ``*** End of File``) has no text to
  anchor an exact edit: ``shell`` with ``mutates: [P]``. ``*** Move to: Q`` → after the edits,
  ``shell`` ``mv P Q`` with ``mutates: [P, Q]``.
- ``*** Delete File: P`` → ``shell`` ``rm P`` with ``mutates: [P]``.

Codex matches a chunk's old lines loosely (trailing and then all whitespace ignored, first match
after the previous chunk); the replay's exact ``edit`` refuses an ``old`` text that is not in the
file or not unique, and the report counts those.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import Any

Op = dict[str, Any]
ADD, DELETE, UPDATE, MOVE = "*** Add File: ", "*** Delete File: ", "*** Update File: ", "*** Move to: "


def patch_ops(text: str, rel: Callable[[str], str]) -> list[Op]:
    """The ops of one ``apply_patch`` text; ``rel`` maps its paths to the trace's (see module doc)."""
    lines = text.replace("\r\n", "\n").split("\n")
    ops: list[Op] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if line.startswith(ADD):
            body: list[str] = []
            while i < len(lines) and lines[i].startswith("+"):
                body.append(lines[i][1:])
                i += 1
            ops.append({"op": "write", "path": rel(line[len(ADD) :].strip()), "content": _text(body)})
        elif line.startswith(DELETE):
            raw = line[len(DELETE) :].strip()
            ops.append({"op": "shell", "cmd": f"rm {shlex.quote(raw)}", "mutates": [rel(raw)]})
        elif line.startswith(UPDATE):
            raw = line[len(UPDATE) :].strip()
            moved = None
            if i < len(lines) and lines[i].startswith(MOVE):
                moved = lines[i][len(MOVE) :].strip()
                i += 1
            start = i
            while i < len(lines) and not (lines[i].startswith("*** ") and lines[i] != "*** End of File"):
                i += 1
            ops += _update(rel(raw), lines[start:i])
            if moved is not None:
                cmd = f"mv {shlex.quote(raw)} {shlex.quote(moved)}"
                ops.append({"op": "shell", "cmd": cmd, "mutates": [rel(raw), rel(moved)]})
    return ops


def _update(path: str, body: list[str]) -> list[Op]:
    """One op per chunk of an ``*** Update File`` section."""
    chunks: list[list[str]] = [[]]
    for line in body:
        if line.startswith("@@"):
            chunks.append([])
        elif line != "*** End of File":
            chunks[-1].append(line)
    ops: list[Op] = []
    for chunk in chunks:
        while chunk and chunk[-1] == "":
            chunk.pop()
        if not chunk:
            continue
        old = [line[1:] for line in chunk if not line.startswith("+")]
        new = [line[1:] for line in chunk if not line.startswith("-")]
        if not old:
            ops.append({"op": "shell", "cmd": "apply_patch (lines added without context)", "mutates": [path]})
        else:
            ops.append({"op": "edit", "path": path, "old": _text(old), "new": _text(new)})
    return ops


def _text(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)
