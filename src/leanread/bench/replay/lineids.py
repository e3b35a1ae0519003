"""Which lines of a file are the same line across its versions: each line gets an id, and a new
version keeps the ids of the lines a diff finds unchanged (``floor`` shows each id once; the
usage figures follow the lines of a whole-file read through later edits)."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from ...code.diffs import common_ends


class LineIds:
    """Line ids per path; ``ids(path, lines)`` is called with each version as it is met."""

    def __init__(self) -> None:
        self._files: dict[str, tuple[tuple[str, ...], list[int]]] = {}
        self._next = 0

    def _fresh(self, count: int) -> list[int]:
        start = self._next
        self._next += count
        return list(range(start, start + count))

    def ids(self, path: str, lines: Sequence[str]) -> list[int]:
        """The ids of ``lines``, the current version of ``path``: lines a diff against the last
        version seen keeps unchanged keep their ids, the others get new ones."""
        new = tuple(lines)
        known = self._files.get(path)
        if known is not None and known[0] == new:
            return known[1]
        ids = self._fresh(len(new)) if known is None else self._carry(known[0], known[1], new)
        self._files[path] = (new, ids)
        return ids

    def _carry(self, old: tuple[str, ...], old_ids: list[int], new: tuple[str, ...]) -> list[int]:
        head, tail = common_ends(old, new)
        ids = old_ids[:head]
        old_mid, new_mid = old[head : len(old) - tail], new[head : len(new) - tail]
        matcher = difflib.SequenceMatcher(None, old_mid, new_mid, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                ids.extend(old_ids[head + i1 : head + i2])
            else:
                ids.extend(self._fresh(j2 - j1))
        ids.extend(old_ids[len(old) - tail :] if tail else [])
        return ids

    def current(self, path: str) -> list[int] | None:
        """The ids of the last version seen of ``path``."""
        known = self._files.get(path)
        return known[1] if known else None
