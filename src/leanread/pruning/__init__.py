"""Focus pruning: keep the lines of a read that answer the agent's question, mark the rest.

``prune`` (in ``guards``) is the entry point: it applies the guards, runs a ``Pruner`` and fails
open; ``render`` turns its ranges into the model-visible body. ``LocalPruner`` is the default
backend (BM25 over lines, expanded by the file's outline), offline and on the CPU.
"""

from __future__ import annotations

from .base import Pruner, PruneResult, merge_ranges
from .guards import prune
from .local import LocalPruner, keep_blocks
from .render import focus_body, focus_header, omitted_marker

__all__ = [
    "LocalPruner",
    "PruneResult",
    "Pruner",
    "focus_body",
    "focus_header",
    "keep_blocks",
    "merge_ranges",
    "omitted_marker",
    "prune",
]
