"""Whether an edit leaves a file parsing worse than before, and where.

Python is parsed with ``ast`` (it names the first error); JavaScript, TypeScript, Go, Rust,
Java, C and C++ (and Python that ``ast`` could not parse before) with the tree-sitter grammars
``outline`` uses, counting ERROR and MISSING nodes. Pure: texts in, a sentence or None out.
Line numbers are 1-based.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .outline import language_of, tree_sitter_parser
from .pyparse import parse_python

#: Texts longer than this (characters) are not parsed: the check would cost more than it tells.
MAX_PARSE_CHARS = 2_000_000

#: How each language is named in a warning.
_NAMES = {
    "python": "Python",
    "javascript": "JavaScript",
    "typescript": "TypeScript",
    "go": "Go",
    "rust": "Rust",
    "java": "Java",
    "c": "C",
    "cpp": "C++",
}


@dataclass(frozen=True)
class _Errors:
    """Syntax errors found: how many, and the 1-based lines they start on, in order."""

    count: int
    lines: tuple[int, ...]


@functools.lru_cache(maxsize=4)  # an edit's text after is the next edit's text before
def _python_error(text: str) -> tuple[int, str] | None:
    """``(line, message)`` of the first error ``ast`` finds, or None when the text parses."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes and the like are not errors
            parse_python(text)
    except SyntaxError as exc:
        return exc.lineno or 1, exc.msg
    except (ValueError, RecursionError, MemoryError) as exc:  # NUL bytes, nesting too deep
        return 1, str(exc) or type(exc).__name__
    return None


def _error_nodes(node: Any) -> Iterator[Any]:
    """ERROR and MISSING nodes under ``node``, in order (only subtrees that hold errors are walked)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.is_error or current.is_missing:
            yield current
        stack.extend(child for child in reversed(current.children) if child.has_error or child.is_missing)


@functools.lru_cache(maxsize=4)
def _tree_errors(language: str, text: str) -> _Errors | None:
    parser = tree_sitter_parser(language)
    if parser is None:
        return None
    tree = parser.parse(text.encode("utf-8", "surrogateescape"))
    rows = sorted(node.start_point[0] + 1 for node in _error_nodes(tree.root_node))
    return _Errors(len(rows), tuple(rows))


def parse_warning_at(path: str, before: str, after: str, changed_from: int = 1) -> tuple[str, int] | None:
    """The warning for an edit of ``path`` that made its text (``before`` → ``after``, logical
    text) parse worse and the 1-based line of ``after`` it names, or None when it parses as well
    as before, is not code leanread parses, or is too long to check.

    Python: ``before`` parses with ``ast`` and ``after`` does not (the first error is named);
    otherwise (other languages, or Python that did not parse before) ``after`` has more
    tree-sitter ERROR/MISSING nodes than ``before``, and the first from line ``changed_from``
    (the first line the edit changed; else the first) is named.
    """
    language = language_of(path)
    if language not in _NAMES or max(len(before), len(after)) > MAX_PARSE_CHARS:
        return None
    if language == "python" and _python_error(before) is None:
        error = _python_error(after)
        if error is None:
            return None
        line, message = error
        return (
            f"Warning: {path} parsed before this edit and no longer does (Python: line {line}: {message}); "
            "fix it with another edit unless you meant to.",
            line,
        )
    old, new = _tree_errors(language, before), _tree_errors(language, after)
    if old is None or new is None or new.count <= old.count:
        return None
    line = next((n for n in new.lines if n >= changed_from), new.lines[0])
    errors = f"{new.count} syntax error{'s' if new.count != 1 else ''}"
    return (
        f"Warning: {path} parses worse after this edit ({_NAMES[language]}: {errors}, {old.count} before; one at "
        f"line {line}); fix it with another edit unless you meant to.",
        line,
    )
