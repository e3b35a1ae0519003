"""A mini-swe-agent environment whose reading commands go through leanread (``pip install
mini-swe-agent``): ``LeanreadEnvironment`` is mini-swe-agent's ``LocalEnvironment`` with
``execute`` answering recognised reads and searches through one ``Session`` (see
``leanread.shell``); every other command runs as ``LocalEnvironment`` runs it, unchanged.

Example::

    from minisweagent.agents.default import DefaultAgent
    from leanread.shell.minisweagent import LeanreadEnvironment

    env = LeanreadEnvironment(cwd="/repo", session_id="task-42")
    agent = DefaultAgent(model, env, **agent_config)
"""

from __future__ import annotations

import os
from typing import Any

from minisweagent.environments.local import LocalEnvironment

from ..session import Session
from .answer import Answered
from .run import try_answer


class LeanreadEnvironment(LocalEnvironment):
    """``LocalEnvironment`` with leanread in front of the agent's reads.

    Args:
        session: the ``Session`` to answer through; default one over ``cwd`` (or the current
            folder) with ``session_id`` and the default SQLite ledger.
        session_id: the ledger session of the default session (a resumed task keeps its dedup).
        **kwargs: ``LocalEnvironment``'s (``cwd``, ``env``, ``timeout``).
    """

    def __init__(self, *, session: Session | None = None, session_id: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session = session or Session([self.config.cwd or os.getcwd()], id=session_id)

    def execute(self, action: dict[str, Any], cwd: str = "", *, timeout: int | None = None) -> dict[str, Any]:
        """The output of ``action["command"]``: leanread's answer for a recognised read or search
        (``returncode`` as the command's), else ``LocalEnvironment.execute``'s."""
        command = str(action.get("command", ""))
        found = try_answer(self.session, command, cwd or self.config.cwd or os.getcwd())
        if not isinstance(found, Answered):
            result: dict[str, Any] = super().execute(action, cwd, timeout=timeout)
            return result
        output = {"output": found.stdout, "returncode": found.status, "exception_info": ""}
        self._check_finished(output)
        return output
