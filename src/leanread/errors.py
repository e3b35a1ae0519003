"""The one exception tree of leanread; every message is a sentence the model can act on.

    LeanreadError                 anything leanread refuses, with the next step in the message
     ├── InvalidArgument          a tool parameter out of range or of the wrong kind
     │    ├── InvalidRegex        grep's pattern is not a regex ripgrep accepts (it is then searched literally)
     │    └── PastEnd             read's offset is past the file's last line
     ├── PathError                the path cannot be served
     │    ├── OutsideWorkspace    resolves (through links or ``..``) outside every root
     │    ├── FileMissing         nothing at that path (similar existing names are suggested)
     │    ├── Denied              the path or a folder on it is on the deny list (secrets such as ``.env``)
     │    ├── NotAFile            a directory, FIFO, device or socket where a file was expected
     │    └── PathChanged         the file, or a folder on its path, was replaced after it was checked
     ├── NotText                  the file is binary or in an encoding leanread cannot show
     ├── TokenizerError           the offline o200k_base vocabulary is missing or corrupt
     ├── ConfigError              ``leanread.toml`` / ``[tool.leanread]`` or an override is invalid
     ├── SearchUnavailable        ripgrep (``rg``) cannot be found or started
     └── EditError                an ``edit`` or ``write`` cannot be applied as asked; nothing was written
          ├── NoChange            old_string and new_string are the same text
          ├── NoMatch             old_string is not in the file (the closest lines are quoted)
          ├── MultipleMatches     old_string is in several places and replace_all was not asked for
          ├── MarkerInEdit        the text carries leanread's display markers (line numbers, ``^I``/``$``,
          │                       a line-cut or omission marker, ``<response clipped>``)
          └── UnencodableText     a character the file's encoding cannot hold

Tools turn these into tool results with ``is_error=True``; a traceback never reaches the model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence


class LeanreadError(Exception):
    """Root of every error leanread raises on purpose; ``str(err)`` is the user-facing message."""


class InvalidArgument(LeanreadError):
    """A tool parameter is out of range or of the wrong kind."""


class InvalidRegex(InvalidArgument):
    """grep's pattern is not a regular expression ripgrep accepts; ``reason`` is ripgrep's own
    short reason (``unclosed group``)."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class PastEnd(InvalidArgument):
    """read's ``offset`` is past the last line of the file; ``total`` is its line count."""

    def __init__(self, message: str, total: int) -> None:
        super().__init__(message)
        self.total = total


class PathError(LeanreadError):
    """The path cannot be served."""


class OutsideWorkspace(PathError):
    """The path, or a link on its way, resolves outside every workspace root."""


class FileMissing(PathError):
    """Nothing exists at the path.

    The message may be given as a function, made the first time it is asked for (``str``): the
    similar names it suggests cost a scan of the folder, which a caller that expects nothing
    there (``write`` of a new file) never needs.
    """

    def __init__(self, message: str | Callable[[], str]) -> None:
        super().__init__()
        self._message = message

    def __str__(self) -> str:
        if not isinstance(self._message, str):
            self._message = self._message()
        return self._message


class Denied(PathError):
    """The path, or the file a link on it points to, has a name on the policy's deny list."""


class NotAFile(PathError):
    """A directory, FIFO, device or socket stands where a regular file was expected."""


class PathChanged(PathError):
    """The file, or a folder on its path, was replaced (by a link, another file) between the check and the open."""


class NotText(LeanreadError):
    """The file is not text leanread can show (binary, image, archive, unknown encoding)."""


class TokenizerError(LeanreadError):
    """The bundled o200k_base vocabulary could not be loaded or failed its hash check."""


class ConfigError(LeanreadError):
    """The configuration (``leanread.toml``, ``[tool.leanread]`` or an override) is invalid."""


class EditError(LeanreadError):
    """An ``edit`` or ``write`` cannot be applied as asked; the file was not touched."""


class NoChange(EditError):
    """old_string and new_string are the same text (after any normalisation), so there is nothing to do."""


class NoMatch(EditError):
    """old_string is not in the file under any matching rule; the message (``str``) is the
    sentence ``said`` then the closest lines ``quoted``, one a line (``12: text``, the file's text
    after the number), so that a tool can seal the quote (``frame.plain_or_framed``)."""

    def __init__(self, said: str, quoted: Sequence[str] = ()) -> None:
        super().__init__("\n".join([said, *quoted]))
        self.said = said
        self.quoted = tuple(quoted)


class MultipleMatches(EditError):
    """old_string is in several places and replace_all was not asked for; the message lists their lines."""


class MarkerInEdit(EditError):
    """The text carries leanread's display-only markers, which must never reach a file."""


class UnencodableText(EditError):
    """The new text holds a character the file's encoding cannot store."""


class SearchUnavailable(LeanreadError):
    """ripgrep cannot be found or started."""


class ProtectedFile(EditError):
    """An ``edit`` or ``write`` would change ``.git`` or leanread's own configuration."""
