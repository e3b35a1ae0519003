"""The ``grep`` request: its parameters as the model sees them, the limits they quote, and the
checks that refuse a bad call before ripgrep runs."""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import InvalidArgument
from ...view.counts import plural as plural
from ...view.rows import LINE_CHARS

NAME = "grep"

#: Matches shown per call when ``max_results`` is not given.
MAX_RESULTS = 100
#: Bytes of a page kept for its summary line (the longest: ``(Output capped at … Use offset=N to
#: continue, or narrow the search with path, glob or type.)``), so rows and summary fit ``max_bytes``.
FOOTER_BYTES = 160
#: With a focus question and no ``max_results``, matches judged at once when they pass one page
#: (the pruned page must still fit ``max_bytes``, else the first page is pruned on its own).
FOCUS_MATCHES = 2000
#: Characters a pattern may have. ripgrep's search time grows with the pattern's length times the
#: text's (a 16 KiB run of one letter takes 1.4 s over three 128 KiB lines of it, a 64 KiB one 74 s);
#: patterns models write are a few hundred characters, a long alternation of names a few thousand.
PATTERN_CHARS = 4096
#: Lines shown around a match by ``read(match_id=…)`` when no ``context_before``/``context_after`` is given.
READ_CONTEXT = 20

#: The constants ``grep.txt`` quotes (see ``tools.description``).
FACTS: dict[str, object] = {
    "max_results": MAX_RESULTS,
    "line_chars": LINE_CHARS,
    "read_context": READ_CONTEXT,
}


@dataclass(frozen=True)
class GrepRequest:
    """The parameters of one ``grep`` call (see ``SPEC``); ``type`` is ``file_type`` here."""

    pattern: str
    path: str | None = None
    glob: str | None = None
    file_type: str | None = None
    case_insensitive: bool = False
    context: int | None = None
    before: int | None = None
    after: int | None = None
    max_results: int | None = None
    offset: int | None = None
    files_only: bool = False
    focus: str | None = None
    include_ignored: bool = False


def check(request: GrepRequest) -> tuple[int, int, int, int]:
    """``(before, after, max_results, first)`` of a valid request.

    Raises:
        InvalidArgument: an empty pattern, one over ``PATTERN_CHARS``, or a count out of range.
    """
    if not request.pattern:
        raise InvalidArgument("pattern is empty; pass the text or regular expression to search for, or symbol=NAME.")
    if len(request.pattern) > PATTERN_CHARS:
        raise InvalidArgument(
            f"pattern is {len(request.pattern):,} characters long, over grep's {PATTERN_CHARS:,}; "
            "search for a shorter, distinctive part of it."
        )
    if "\x00" in request.pattern:
        raise InvalidArgument("pattern contains a NUL character; ripgrep cannot search for it.")
    for name in ("context", "before", "after"):
        value = getattr(request, name)
        if value is not None and value < 0:
            raise InvalidArgument(f"{name} must be 0 or more (got {value}); it counts lines around each match.")
    if request.max_results is not None and request.max_results < 1:
        raise InvalidArgument(f"max_results must be 1 or more (got {request.max_results}).")
    if request.offset is not None and request.offset < 0:
        raise InvalidArgument(f"offset must be 1 or more (got {request.offset}); use offset=1 for the first match.")
    both = request.context or 0
    before = both if request.before is None else request.before
    after = both if request.after is None else request.after
    return before, after, request.max_results or MAX_RESULTS, max(request.offset or 1, 1)
