"""What the fuzzer checks after each call: the result's shape, leaks of the canary, and changes of
the tree that no successful ``edit``/``write`` explains."""

from __future__ import annotations

import os
from typing import Any

from mcp_types import CallToolResult, TextContent

from .tree import Snapshot, Tree

#: Words in a result that mean an exception got through to the model.
_DUMPS = ("Traceback (most recent call last)", "validation error for", "input_value=", "pydantic")


def result_problem(result: CallToolResult) -> str | None:
    """Why ``result`` is not a valid tool result for the model, or None.

    Valid: at least one content block, the first a non-empty text; no traceback or pydantic dump
    in the text; a successful result carries ``_meta.leanread``.
    """
    if not result.content:
        return "a result without content"
    first = result.content[0]
    if not isinstance(first, TextContent) or not first.text.strip():
        return "a result whose first block is not a non-empty text"
    text = "".join(block.text for block in result.content if isinstance(block, TextContent))
    for dump in _DUMPS:
        if dump in text:
            return f"a result holding {dump!r}: {first.text[:160]!r}"
    if not result.is_error and not isinstance((result.meta or {}).get("leanread"), dict):
        return "a successful result without _meta.leanread"
    return None


def leaked(tree: Tree, result: CallToolResult) -> bool:
    """True when the canary of ``tree`` appears anywhere in ``result`` (texts, images, metadata)."""
    try:
        dumped = result.model_dump_json(by_alias=True)
    except ValueError:  # a lone surrogate in a text: look at the Python form instead
        dumped = repr(result.model_dump(by_alias=True))
    return tree.canary in dumped


def explained_keys(tree: Tree, path: Any, before: Snapshot) -> set[bytes]:
    """The snapshot keys a successful edit/write of ``path`` may change: the file it resolves to
    (through links), every hard link of it, and the folders it had to create. Nothing outside the
    workspace root is ever explained."""
    if not isinstance(path, str) or "\x00" in path:
        return set()
    try:
        raw = os.fsencode(path)
    except UnicodeError:
        return set()
    root = os.fsencode(tree.root)
    target = os.path.realpath(os.path.join(root, raw))
    if os.path.commonpath([target, os.path.realpath(root)]) != os.path.realpath(root):
        return set()
    key = os.path.normpath(os.path.join(b"ws", os.path.relpath(target, os.path.realpath(root))))
    keys = {key}
    inode = before.get(key, ("", "", -1))[2]
    keys |= {k for k, entry in before.items() if entry[0] == "file" and entry[2] == inode}
    folder = os.path.dirname(key)
    while folder and folder != b"ws" and folder not in before:
        keys.add(folder)
        folder = os.path.dirname(folder)
    return keys


def changes(before: Snapshot, after: Snapshot) -> dict[bytes, str]:
    """Every key that differs: ``created``, ``removed`` or ``modified`` (kind or digest)."""
    out: dict[bytes, str] = {}
    for key in before.keys() | after.keys():
        old, new = before.get(key), after.get(key)
        if old is None:
            out[key] = "created"
        elif new is None:
            out[key] = "removed"
        elif old[:2] != new[:2]:
            out[key] = "modified"
    return out
