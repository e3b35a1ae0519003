"""grep's literal fallback: a pattern that is not a valid regex, or whose regex matches nothing
while it holds characters a regex reads otherwise (``( ) [ ] { } * + ? | ^ $ \\``), is searched
again as literal text (``rg --fixed-strings``); its hits are shown with one note saying so.

A ``.`` alone never calls for the fallback: as a regex it matches a ``.`` too, so the literal text
cannot match where the regex did not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

from ...errors import InvalidArgument, InvalidRegex
from ...files.ripgrep import RgOptions
from ...files.textfile import shown

__all__ = ["Searched", "reads_differently", "search_or_literal"]

#: Characters that make a regex match other text than the same characters taken literally.
_REGEX_ONLY = frozenset("\\^$*+?()[]{}|")

Found = TypeVar("Found")


def reads_differently(pattern: str) -> bool:
    """Whether ``pattern`` as literal text can match where it does not as a regex."""
    return not _REGEX_ONLY.isdisjoint(pattern)


@dataclass(frozen=True)
class Searched(Generic[Found]):
    """What the search found, the options that found it (``fixed_strings`` set after a
    fallback), and the note to show (None when the pattern was searched as given)."""

    found: Found
    options: RgOptions
    note: str | None = None


def search_or_literal(
    pattern: str, options: RgOptions, search: Callable[[RgOptions], Found], hits: Callable[[Found], int]
) -> Searched[Found]:
    """Run ``search`` with ``options``; search the pattern as literal text instead when it is not
    a valid regex, or when its regex finds no ``hits`` and ``reads_differently``.

    Returns:
        the found files; after a fallback that found something, a note such as
        ``(No match for the regex; these are matches of the literal text "f(x)".)``.

    Raises:
        InvalidArgument: the pattern is not a valid regex and its literal text occurs nowhere.
        LeanreadError: as ``search``.
    """
    literal = replace(options, fixed_strings=True)
    text = shown(pattern)
    try:
        found = search(options)
    except InvalidRegex as exc:
        again = search(literal)
        if not hits(again):
            raise InvalidArgument(
                f"pattern is not a valid ripgrep regular expression ({exc.reason}), and as literal text it "
                "matches nothing either; fix the regex (Rust syntax: no look-around or backreferences)."
            ) from None
        note = f'(Not a valid regex ({exc.reason}); these are matches of the literal text "{text}".)'
        return Searched(again, literal, note)
    if options.fixed_strings or hits(found) or not reads_differently(pattern):
        return Searched(found, options)
    again = search(literal)
    if not hits(again):
        return Searched(found, options)
    return Searched(again, literal, f'(No match for the regex; these are matches of the literal text "{text}".)')
