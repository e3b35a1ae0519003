"""The ``swe-pruner`` focus backend: the HTTP server of SWE-Pruner (arXiv 2601.16746) picks the lines.

For users who run the authors' model (a 0.6B reranker with a line-scoring head) on a GPU. The
request is ``POST <url>/prune`` with ``{"query", "code", "threshold", "always_keep_first_frags",
"chunk_overlap_tokens"}``; the reply's ``kept_frags`` lists the 1-based numbers of the lines
kept (the server's ``PruneResponse``; its ``pruned_code`` is not used: leanread renders its own
markers with real line numbers). As with the ``llm`` backend, the lexical top hits of the local
scorer are kept too.
"""

from __future__ import annotations

from collections.abc import Sequence

from .base import merge_ranges
from .remote import RemoteError, lexical_floor, post_json

#: Characters other than ``\n`` at which the server's ``str.splitlines`` would split a line: sent
#: as spaces, so its line numbers stay leanread's.
_OTHER_BREAKS = dict.fromkeys(map(ord, "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"), " ")
#: The server's keep threshold on its line scores (its wrapper's default).
THRESHOLD = 0.5
#: Tokens shared by neighbouring chunks when the server splits a long input (its default).
CHUNK_OVERLAP_TOKENS = 50


def kept_lines(reply: object, total: int) -> list[tuple[int, int]]:
    """The ``kept_frags`` of a ``/prune`` reply as merged 1-based ranges.

    Raises:
        RemoteError: the reply has an ``error_msg``, or no ``kept_frags`` list of whole numbers
            from 1 to ``total``.
    """
    if not isinstance(reply, dict):
        raise RemoteError("the SWE-Pruner server did not reply with a JSON object")
    if reply.get("error_msg"):
        raise RemoteError(f"the SWE-Pruner server reported: {reply['error_msg']}")
    frags = reply.get("kept_frags")
    if not isinstance(frags, list) or not all(type(n) is int and 1 <= n <= total for n in frags):
        raise RemoteError(f"the SWE-Pruner reply has no kept_frags list of line numbers from 1 to {total}")
    return list(merge_ranges(((n, n) for n in frags), total))


class SWEPrunerClient:
    """Focus pruning by a SWE-Pruner server (see the module docstring).

    Args:
        url: the server's base URL (``http://localhost:8050``) or its ``/prune`` endpoint.
        timeout: seconds for connecting and for each read of the reply.
        threshold: the server's keep threshold (0-1).
    """

    name = "swe-pruner"

    def __init__(self, url: str, *, timeout: float = 20.0, threshold: float = THRESHOLD) -> None:
        base = url.rstrip("/")
        self.url = base if base.endswith("/prune") else base + "/prune"
        self.timeout = timeout
        self.threshold = threshold

    def keep(self, lines: Sequence[str], question: str, language: str | None) -> list[tuple[int, int]]:
        """The server's kept lines plus the lexical floor; see ``Pruner.keep``.

        Raises:
            RemoteError: the server failed or its reply was not valid (the guards fail open).
        """
        payload = {
            "query": question,
            "code": "\n".join(line.translate(_OTHER_BREAKS) for line in lines),
            "threshold": self.threshold,
            "always_keep_first_frags": False,
            "chunk_overlap_tokens": CHUNK_OVERLAP_TOKENS,
        }
        reply = post_json(self.url, payload, self.timeout)
        return [*kept_lines(reply, len(lines)), *lexical_floor(lines, question, language)]
