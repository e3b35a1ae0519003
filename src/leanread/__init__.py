"""leanread: the file tools an LLM coding agent calls most, spending context tokens with care.

Public API::

    from leanread import Session
    session = Session(["/path/to/repo"])
    result = session.read("src/app.py")
    result.text       # what the model sees
    result.metadata   # range, totals, content hash, tokens, ...
    session.grep("def handler", context=2)   # ripgrep's hits by file, each with a match id
    session.read(match_id="m1")              # the lines around a hit
    session.ls("src")                        # a compact tree
    session.read("src/big.py", focus="Where are retries scheduled?")  # only the lines that answer it

Focus backends and the audit hook: ``Session(pruner=LLMPruner(...), focus_audit=callback)``; see
``leanread.pruning``.
"""

from __future__ import annotations

from .config.settings import Focus, Limits, Policy, Settings, load_settings
from .errors import (
    ConfigError,
    Denied,
    FileMissing,
    InvalidArgument,
    LeanreadError,
    NotAFile,
    NotText,
    OutsideWorkspace,
    PathError,
    SearchUnavailable,
    TokenizerError,
)
from .files.workspace import Workspace
from .ledger.store import LedgerStore, MemoryLedger, ViewRecord
from .pruning import FocusAudit, LLMPruner, LocalPruner, Pruner, SWEPrunerClient
from .result import ToolResult
from .session import Session
from .tokens import count_tokens

__all__ = [
    "ConfigError",
    "Denied",
    "FileMissing",
    "Focus",
    "FocusAudit",
    "InvalidArgument",
    "LLMPruner",
    "LeanreadError",
    "LedgerStore",
    "Limits",
    "LocalPruner",
    "MemoryLedger",
    "NotAFile",
    "NotText",
    "OutsideWorkspace",
    "PathError",
    "Policy",
    "Pruner",
    "SWEPrunerClient",
    "SearchUnavailable",
    "Session",
    "Settings",
    "TokenizerError",
    "ToolResult",
    "ViewRecord",
    "Workspace",
    "__version__",
    "count_tokens",
    "load_settings",
]

__version__ = "0.1.0"
