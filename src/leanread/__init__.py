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

import importlib

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the warm client's start)
if TYPE_CHECKING:
    from typing import Any

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

#: Where each public name lives: imported on first use, so a command that needs none of them (the
#: warm client of ``leanread read``/``leanread sh``) does not pay for the tokenizer or the ledger.
_HOMES = {
    "ConfigError": ".errors",
    "Denied": ".errors",
    "FileMissing": ".errors",
    "Focus": ".config.settings",
    "FocusAudit": ".pruning",
    "InvalidArgument": ".errors",
    "LLMPruner": ".pruning",
    "LeanreadError": ".errors",
    "LedgerStore": ".ledger.store",
    "Limits": ".config.settings",
    "LocalPruner": ".pruning",
    "MemoryLedger": ".ledger.store",
    "NotAFile": ".errors",
    "NotText": ".errors",
    "OutsideWorkspace": ".errors",
    "PathError": ".errors",
    "Policy": ".config.settings",
    "Pruner": ".pruning",
    "SWEPrunerClient": ".pruning",
    "SearchUnavailable": ".errors",
    "Session": ".session",
    "Settings": ".config.settings",
    "TokenizerError": ".errors",
    "ToolResult": ".result",
    "ViewRecord": ".ledger.store",
    "Workspace": ".files.workspace",
    "count_tokens": ".tokens",
    "load_settings": ".config.settings",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'leanread' has no attribute {name!r}")
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value
    return value


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
