"""When a re-read may be answered from what the model already has (a stub, a diff, ``…
unchanged …`` markers), by the ``dedup`` setting.

- ``on``: whenever the ledger says the earlier result is still in the context window. Right for
  a harness that reports compaction (``Session.compact``, the ``context`` tool, the hooks that
  ``leanread mcp-config`` prints for Claude Code and opencode).
- ``recent`` (default): only against results of the last ``RECENT_CALLS`` calls of the session;
  a read takes the file's older results as gone (as ``Session.forget`` would), so it shows
  again what only they had shown; edits keep their grants.
  A client that compacts or drops old tool results without telling leanread (Codex CLI, Gemini
  CLI, Cursor, VS Code; Claude Code's own clearing of old tool results) does so to old results,
  so a stub can only point at text the model is likely to still have; if it is wrong anyway, the
  stub's ``fresh=true`` gets the text back in one call.
- ``off``: never; every read shows its text.
"""

from __future__ import annotations

from collections.abc import Iterable

#: ``recent``: a result this many calls old or older no longer earns stubs, diffs or markers.
RECENT_CALLS = 40


def call_number(call_id: str) -> int | None:
    """The number of a call id leanread gave (``r17`` → 17); None for a harness's own ids."""
    digits = call_id[1:]
    return int(digits) if call_id[:1] == "r" and digits.isdigit() else None


def old_calls(call_id: str, earlier: Iterable[str]) -> list[str]:
    """The ``earlier`` call ids (of a file's visible results) that ``recent`` takes as gone from
    the context window when call ``call_id`` reads the file: ``RECENT_CALLS`` or more calls
    older. Ids a harness gave (not ``r<n>``) are never old: a harness reports what it drops."""
    now = call_number(call_id)
    if now is None:
        return []
    return sorted(c for c in set(earlier) if (n := call_number(c)) is not None and now - n >= RECENT_CALLS)
