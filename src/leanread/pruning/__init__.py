"""Focus pruning: keep the lines of a read that answer the agent's question, mark the rest.

``prune`` (in ``guards``) is the entry point: it applies the guards, runs a ``Pruner`` and fails
open; ``render`` turns its ranges into the model-visible body. ``LocalPruner`` is the default
backend (BM25 over lines, expanded by the file's outline), offline and on the CPU; ``HybridPruner``
(``dense``) adds MiniLM embeddings; ``LLMPruner`` asks an OpenAI-compatible chat model and
``SWEPrunerClient`` a SWE-Pruner server. ``make_pruner`` builds the one the settings name.

Layer 6 of leanread (see ``docs/ARCHITECTURE.md``), beside ``ledger``: imports ``view``, ``code``,
``config`` and the base modules, nothing above.
"""

from __future__ import annotations

from .audit import AuditHook, FocusAudit
from .backends import backend_name, make_pruner
from .base import Pruner, PruneResult, merge_ranges
from .blocks import keep_blocks_by
from .dense import DenseUnavailable, HybridPruner
from .guards import MAX_CHARS, prune
from .llm import LLMPruner
from .local import LocalPruner, keep_blocks
from .remote import RemoteError
from .render import focus_body, focus_header, omitted_marker, quoted_question
from .swe_pruner import SWEPrunerClient

__all__ = [
    "MAX_CHARS",
    "AuditHook",
    "DenseUnavailable",
    "FocusAudit",
    "HybridPruner",
    "LLMPruner",
    "LocalPruner",
    "PruneResult",
    "Pruner",
    "RemoteError",
    "SWEPrunerClient",
    "backend_name",
    "focus_body",
    "focus_header",
    "keep_blocks",
    "keep_blocks_by",
    "make_pruner",
    "merge_ranges",
    "omitted_marker",
    "prune",
    "quoted_question",
]
