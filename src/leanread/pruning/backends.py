"""Choosing a focus backend from the settings, and naming a backend in metadata."""

from __future__ import annotations

from ..config.settings import Focus
from .base import Pruner
from .llm import LLMPruner
from .local import LocalPruner
from .swe_pruner import SWEPrunerClient


def make_pruner(focus: Focus) -> Pruner:
    """The backend ``focus.backend`` names, configured from ``focus``.

    Raises:
        LeanreadError: ``hybrid`` was asked for but ``leanread[dense]`` is not installed (the
            message says what to install).
    """
    if focus.backend == "llm":
        assert focus.url is not None and focus.model is not None  # Focus checks both
        return LLMPruner(focus.url, focus.model, api_key_env=focus.api_key_env, timeout=focus.timeout)
    if focus.backend == "swe-pruner":
        assert focus.url is not None
        return SWEPrunerClient(focus.url, timeout=focus.timeout)
    if focus.backend == "hybrid":
        from .dense import HybridPruner  # imports onnxruntime: only when asked for

        return HybridPruner()
    return LocalPruner()


def backend_name(pruner: Pruner) -> str:
    """The name a backend goes by in ``focus`` metadata: its ``name`` attribute (the built-in
    ones have their ``Focus.backend`` name), else its class name."""
    name = getattr(pruner, "name", None)
    return name if isinstance(name, str) else type(pruner).__name__
