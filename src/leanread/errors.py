"""The one exception tree of leanread; every message is a sentence the model can act on.

    LeanreadError                 anything leanread refuses, with the next step in the message
     ├── InvalidArgument          a tool parameter out of range or of the wrong kind
     ├── PathError                the path cannot be served
     │    ├── OutsideWorkspace    resolves (through links or ``..``) outside every root
     │    ├── FileMissing         nothing at that path (similar existing names are suggested)
     │    ├── Denied              the file name is on the deny list (secrets such as ``.env``)
     │    └── NotAFile            a directory, FIFO, device or socket where a file was expected
     ├── NotText                  the file is binary or in an encoding leanread cannot show
     ├── TokenizerError           the offline o200k_base vocabulary is missing or corrupt
     └── ConfigError              ``leanread.toml`` / ``[tool.leanread]`` or an override is invalid

Tools turn these into tool results with ``is_error=True``; a traceback never reaches the model.
"""

from __future__ import annotations


class LeanreadError(Exception):
    """Root of every error leanread raises on purpose; ``str(err)`` is the user-facing message."""


class InvalidArgument(LeanreadError):
    """A tool parameter is out of range or of the wrong kind."""


class PathError(LeanreadError):
    """The path cannot be served."""


class OutsideWorkspace(PathError):
    """The path, or a link on its way, resolves outside every workspace root."""


class FileMissing(PathError):
    """Nothing exists at the path."""


class Denied(PathError):
    """The path, or the file a link on it points to, has a name on the policy's deny list."""


class NotAFile(PathError):
    """A directory, FIFO, device or socket stands where a regular file was expected."""


class NotText(LeanreadError):
    """The file is not text leanread can show (binary, image, archive, unknown encoding)."""


class TokenizerError(LeanreadError):
    """The bundled o200k_base vocabulary could not be loaded or failed its hash check."""


class ConfigError(LeanreadError):
    """The configuration (``leanread.toml``, ``[tool.leanread]`` or an override) is invalid."""
