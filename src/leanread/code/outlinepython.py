"""The outline of Python through ``ast`` (definitions under ``if``, ``try`` and ``with`` count
too); Python that ``ast`` cannot parse is mapped by tree-sitter, with the reason."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import replace

from .outlinemodel import Outline, Symbol, relisted_when_mostly_trivial
from .outlinetree import code_outline, parse_tree, tree_sitter_outline
from .pyparse import parse_python


def python_outline(lines: Sequence[str]) -> Outline | None:
    """The outline through ``ast``; Python it cannot parse through tree-sitter, with the reason."""
    try:
        tree = parse_python("\n".join(lines))
    except (SyntaxError, ValueError) as exc:
        made = tree_sitter_outline("python", lines)
        where = f"line {exc.lineno}: " if isinstance(exc, SyntaxError) and exc.lineno else ""
        reason = exc.msg if isinstance(exc, SyntaxError) else str(exc)
        return replace(made, problem=f"Python cannot parse this file ({where}{reason})") if made is not None else None
    symbols: list[Symbol] = []

    def visit(body: Sequence[ast.stmt], prefix: str, depth: int, in_class: bool) -> None:
        for node in body:
            # definitions under `if TYPE_CHECKING:`, `try: … except ImportError:`, `with …:` count too
            if isinstance(node, ast.If | ast.Try | ast.With | ast.AsyncWith | ast.For | ast.While):
                for block in ("body", "orelse", "finalbody"):
                    visit(getattr(node, block, []), prefix, depth, in_class)
                for handler in getattr(node, "handlers", []):
                    visit(handler.body, prefix, depth, in_class)
                continue
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                marks = tuple(sorted({d.lineno for d in node.decorator_list}))
                first = min([node.lineno, *marks])
                kind = "class" if isinstance(node, ast.ClassDef) else "method" if in_class else "function"
                name = prefix + node.name
                end = node.end_lineno or node.lineno
                symbols.append(Symbol(name, kind, first, end, node.lineno, depth, marks))
                if isinstance(node, ast.ClassDef):
                    visit(node.body, name + ".", depth + 1, True)
            elif depth == 0 and isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [t.id for t in targets if isinstance(t, ast.Name)]
                if names:
                    end = node.end_lineno or node.lineno
                    listed = end > node.lineno or node.value is None or not trivial_value(node.value)
                    symbols.append(Symbol(names[0], "variable", node.lineno, end, node.lineno, 0, listed=listed))

    visit(tree.body, "", 0, False)
    symbols = relisted_when_mostly_trivial(symbols)
    return code_outline("python", lines, parse_tree("python", lines), symbols)


def trivial_value(value: ast.expr) -> bool:
    """Whether an assigned value tells a reader nothing to pick a definition by: a constant
    (``None``, ``50``, ``"utf-8"``, ``-1``), a name or attribute (``os.sep``), or a call of one
    whose arguments are such values (``logging.getLogger(__name__)``, ``TypeVar("T")``)."""
    if isinstance(value, ast.Constant | ast.Name):
        return True
    if isinstance(value, ast.Attribute):
        return trivial_value(value.value)
    if isinstance(value, ast.UnaryOp):
        return isinstance(value.operand, ast.Constant)
    if isinstance(value, ast.Call):
        arguments = [*value.args, *(k.value for k in value.keywords)]
        return isinstance(value.func, ast.Name | ast.Attribute) and all(
            isinstance(a, ast.Constant | ast.Name | ast.Attribute) for a in arguments
        )
    return False
