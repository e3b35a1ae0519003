"""The audit hook: what a plugin sees of every focused tool call, before and after pruning."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class FocusAudit:
    """One tool call made with a ``focus`` question, as an audit or indexing plugin receives it.

    Attributes:
        tool: ``read`` or ``grep``.
        path: the path as the tool result shows it.
        question: the focus question.
        full_text: the output as it would have been shown without the question.
        shown_text: the output the model was shown (``full_text`` itself when nothing was pruned).
        pruned: whether anything was left out.
        backend: the backend's name (``local``, ``llm``, …).
    """

    tool: str
    path: str
    question: str
    full_text: str
    shown_text: str
    pruned: bool
    backend: str


#: A callable receiving each ``FocusAudit``; what it raises is reported in the result's
#: ``focus.audit_error`` metadata and never fails the tool call.
AuditHook = Callable[[FocusAudit], None]
