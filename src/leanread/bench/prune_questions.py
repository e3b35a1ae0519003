"""The questions of ``leanread bench prune`` (``prune``): a function's docstring first paragraph
asks, the function's non-empty lines answer, and every docstring is stripped from the file first
(else the question finds itself)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

#: A docstring's first paragraph needs at least this many words to be a question.
MIN_WORDS = 4


@dataclass(frozen=True)
class Question:
    """One benchmark question.

    Attributes:
        where: ``package/relative/path.py:function`` (for reports).
        text: the docstring's first paragraph, whitespace collapsed.
        gold: 1-based line numbers, in the stripped file, of the function's non-empty lines.
    """

    where: str
    text: str
    gold: frozenset[int]


def _docstring_nodes(tree: ast.Module) -> list[ast.Expr]:
    """The docstring statements of the module, its classes and its functions, in source order."""
    found: list[ast.Expr] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                found.append(first)
    return sorted(found, key=lambda n: n.lineno)


def strip_docstrings(source: str) -> tuple[list[str], list[int]] | None:
    """``source`` without its docstrings, and where each remaining line came from.

    A docstring's lines are dropped; one that is its block's only statement becomes ``...`` at
    its indentation, so the file still parses. Returns ``(lines, origin)`` where ``origin[i]`` is
    the 1-based original number of ``lines[i]`` (0 for an inserted ``...``), or None when the
    source does not parse or a docstring shares a line with other code.
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    lines = source.splitlines()
    drop: dict[int, str | None] = {}  # original line -> replacement (None: drop)
    parents = {
        id(n.body[0]): n
        for n in ast.walk(tree)
        if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body
    }
    for doc in _docstring_nodes(tree):
        first, last = doc.lineno, doc.end_lineno or doc.lineno
        if lines[first - 1][: doc.col_offset].strip() or lines[last - 1][doc.end_col_offset or 0 :].strip():
            return None
        alone = len(parents[id(doc)].body) == 1
        for number in range(first, last + 1):
            drop[number] = None
        if alone:
            drop[first] = " " * doc.col_offset + "..."
    out: list[str] = []
    origin: list[int] = []
    for number, text in enumerate(lines, 1):
        if number in drop:
            replacement = drop[number]
            if replacement is not None:
                out.append(replacement)
                origin.append(0)
            continue
        out.append(text)
        origin.append(number)
    try:
        ast.parse("\n".join(out))
    except SyntaxError:
        return None
    return out, origin


def first_paragraph(docstring: str) -> str:
    """The first paragraph of a cleaned docstring, whitespace collapsed to single spaces."""
    return " ".join(docstring.strip().split("\n\n")[0].split())


def questions_of(source: str, where: str = "") -> tuple[list[str], list[Question]]:
    """The docstring-stripped lines of ``source`` and a question per documented function.

    A function qualifies when its docstring's first paragraph has at least ``MIN_WORDS`` words;
    its gold is its non-empty lines (decorators included) in the stripped file.
    """
    stripped = strip_docstrings(source)
    if stripped is None:
        return [], []
    lines, origin = stripped
    new_number = {old: new for new, old in enumerate(origin, 1) if old}
    found: list[Question] = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        doc = ast.get_docstring(node)
        if not doc:
            continue
        text = first_paragraph(doc)
        if len(text.split()) < MIN_WORDS:
            continue
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        end = node.end_lineno or node.lineno
        span = range(new_number.get(start, 0), max(new_number.get(n, 0) for n in range(start, end + 1)) + 1)
        gold = frozenset(n for n in span if n >= 1 and lines[n - 1].strip())
        if gold:
            found.append(Question(f"{where}:{node.name}", text, gold))
    found.sort(key=lambda q: min(q.gold))
    return lines, found
