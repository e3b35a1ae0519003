"""What ``edit`` and ``write`` never change unless the user allows it: git's own data and
leanread's own configuration, so the model cannot loosen its sandbox or plant a git hook.

Protected (unless ``Policy.allow_write_protected``, which only the user's config file or a flag
can set):

- anything whose realpath has a ``.git`` name below its workspace root: the ``.git`` folder
  (hooks, ``config`` with ``core.hooksPath`` or ``core.fsmonitor``, which run commands) and a
  worktree's ``.git`` file;
- every ``leanread.toml`` and the user's own config file (``config.user_config_path()``);
- the ``[tool.leanread]`` table of a ``pyproject.toml``: the rest of the file is the project's
  and stays editable, but a change whose result parses and holds a different table (added,
  changed or removed), or that breaks the TOML of a file holding the table, is refused.

Names are compared case-insensitively, as ``Policy`` compares them.
"""

from __future__ import annotations

import os
import tomllib

from ..config.settings import user_config_path
from ..errors import ProtectedFile
from .workspace import Workspace

_ASK = "ask the user to make this change (or to set allow_write_protected = true in their own leanread config file)"
#: A pyproject.toml that does not parse.
_UNPARSABLE = object()


def _names_below_root(workspace: Workspace, real: str) -> list[str]:
    root = workspace.root_of(real)
    if root is None or real == root:
        return []
    return [name.lower() for name in os.path.relpath(real, root).split(os.sep)]


def refuse_protected_path(workspace: Workspace, real: str, display: str) -> None:
    """Refuse a write to ``real`` (a realpath, existing or not) inside ``.git``, or to leanread's
    own configuration file.

    Raises:
        ProtectedFile: it is protected and the policy does not allow it; nothing was written.
    """
    if workspace.policy.allow_write_protected:
        return
    names = _names_below_root(workspace, real)
    if ".git" in names:
        raise ProtectedFile(
            f"{display} is git's own data (.git), which leanread's tools do not change, so nothing was "
            f"written; use git itself, or {_ASK}."
        )
    user_file = os.path.realpath(user_config_path())
    if (names and names[-1] == "leanread.toml") or real == user_file:
        raise ProtectedFile(
            f"{display} is leanread's own configuration, which its tools do not change, so nothing was written; {_ASK}."
        )


def _leanread_table(text: str | None) -> object:
    """The ``[tool.leanread]`` value of a pyproject text (None when absent or no file), or
    ``_UNPARSABLE``."""
    if text is None:
        return None
    try:
        tool = tomllib.loads(text).get("tool")
    except tomllib.TOMLDecodeError:
        return _UNPARSABLE
    return tool.get("leanread") if isinstance(tool, dict) else None


def refuse_config_change(workspace: Workspace, real: str, display: str, old: str | None, new: str) -> None:
    """Refuse a change of ``real`` from the text ``old`` (None: no file yet) to ``new`` when it
    is a ``pyproject.toml`` whose ``[tool.leanread]`` table it would change.

    Raises:
        ProtectedFile: see the module; nothing was written.
    """
    if workspace.policy.allow_write_protected or os.path.basename(real).lower() != "pyproject.toml":
        return
    before, after = _leanread_table(old), _leanread_table(new)
    absent = (None, _UNPARSABLE)
    if before == after or (before in absent and after in absent):
        return
    if after is _UNPARSABLE:
        raise ProtectedFile(
            f"This change would leave {display} unparsable while it holds a [tool.leanread] table, leanread's own "
            "configuration, so nothing was written; keep the file valid TOML."
        )
    raise ProtectedFile(
        f"This change would change the [tool.leanread] table of {display}, leanread's own configuration, which "
        f"its tools do not change, so nothing was written; leave that table as it is, or {_ASK}."
    )
