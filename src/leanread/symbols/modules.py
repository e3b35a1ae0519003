"""Which indexed files a module name written in an import stands for.

- Python: ``a.b`` is the file whose dotted module name (``extract.python_module``) is ``a.b``, or
  ends with ``.a.b`` (a ``src/`` layout); ``.x`` and ``..x`` count from the importing file's
  package. ``from pkg import sub`` may name a submodule: callers try ``pkg.sub`` too.
- JavaScript/TypeScript: a relative specifier (``./store``, ``../lib/index.js``) is tried as
  written, with each extension of ``SCRIPT_EXTENSIONS`` and as a folder's ``index``; a ``.js``
  specifier also as its ``.ts`` source (TypeScript's ESM convention). A package name
  (``react``) is outside the workspace: no file.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence

#: Extensions tried for a relative JavaScript/TypeScript specifier, in this order.
SCRIPT_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
_JS_TO_TS = {".js": (".ts", ".tsx", ".d.ts"), ".mjs": (".mts",), ".cjs": (".cts",), ".jsx": (".tsx",)}

#: ``(module) -> paths``: the files whose Python module name is exactly ``module``, then those
#: whose name ends with ``.module``.
ModuleLookup = Callable[[str], Sequence[str]]
#: ``(paths) -> the ones that are indexed``.
Existing = Callable[[Sequence[str]], Sequence[str]]


def package_of(path: str, module: str) -> str:
    """The package a Python file at ``path`` with module name ``module`` sits in (a package's
    ``__init__.py`` is its own package)."""
    if path.endswith(("/__init__.py", "/__init__.pyi")) or path in ("__init__.py", "__init__.pyi"):
        return module
    return module.rsplit(".", 1)[0] if "." in module else ""


def absolute_python(written: str, path: str, module: str) -> str | None:
    """The absolute module name of ``written`` (``..x.y``) imported from the file ``path`` whose
    module name is ``module``; None when it climbs above the top."""
    if not written.startswith("."):
        return written
    dots = len(written) - len(written.lstrip("."))
    rest = written[dots:]
    package = package_of(path, module)
    parts = package.split(".") if package else []
    if dots - 1 > len(parts):
        return None
    base = parts[: len(parts) - (dots - 1)]
    return ".".join([*base, rest] if rest else base)


def python_files(written: str, path: str, module: str, lookup: ModuleLookup) -> list[str]:
    """Indexed files for the Python module ``written`` as imported from ``path``."""
    name = absolute_python(written, path, module)
    if not name:
        return []
    return list(lookup(name))


def script_candidates(written: str, path: str) -> list[str]:
    """Paths a relative specifier ``written`` may stand for, from the file ``path``, in the
    order tried; none for a package name."""
    if not written.startswith((".", "/")):
        return []
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(path), written))
    if joined.startswith("../") or joined == "..":
        return []
    stem, ext = posixpath.splitext(joined)
    found = [joined]
    found += [stem + alt for alt in _JS_TO_TS.get(ext, ())]
    found += [joined + e for e in SCRIPT_EXTENSIONS]
    found += [f"{joined}/index{e}" for e in SCRIPT_EXTENSIONS]
    return list(dict.fromkeys(p.removeprefix("./") for p in found))


def script_files(written: str, path: str, existing: Existing) -> list[str]:
    """The first indexed file a relative specifier ``written`` stands for, from ``path``."""
    candidates = script_candidates(written, path)
    present = set(existing(candidates))
    return next(([p] for p in candidates if p in present), [])
