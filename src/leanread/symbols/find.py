"""The two questions: where is a name defined (``definitions``), and where is it used
(``references``), across one root's index.

Definitions of ``Store.get`` are, in rank order: definitions whose qualified name is it or ends
with it (``pkg.Store.get`` in a nested class), then what a module path leads to
(``django.db.models.QuerySet``: the module ``django.db.models`` and its re-export of
``QuerySet``), then what an alias leads to (``S.get`` where a file has ``from .x import Store as
S``). Each use of the name is labelled by how sure the index is that it means one of them:

- ``import-resolved``: the name, or what it is looked up on, is bound by an import that leads to
  the definition (aliases and re-exports followed);
- ``same-file``: the definition is in the same file (a bare name at the top level, or
  ``self.get``/``this.get`` inside the class that defines ``get`` or a subclass of it in the
  same file that does not define ``get`` itself; a base in another file makes the use
  ``import-resolved``);
- ``name-only``: the same name on something the index cannot follow (a local variable, a call's
  result, a language whose imports it does not read). A use that resolves to another definition
  is not listed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from .facts import IMPORT, REEXPORT, TYPED, Definition, split_name
from .resolve import Lookup, Target, parts_of
from .store import SymbolStore, rows_to_definitions

IMPORT_RESOLVED = "import-resolved"
SAME_FILE = "same-file"
NAME_ONLY = "name-only"
#: Labels from the surest to the least sure.
LABELS = (IMPORT_RESOLVED, SAME_FILE, NAME_ONLY)
#: Receivers that stand for the enclosing class's instance or the class itself.
_SELF = frozenset({"self", "cls", "this"})
#: Kinds of definition a member is looked up on (a variable's type is not known).
_OWNERS = frozenset({"class", "module", "interface", "namespace", "enum", "struct", "trait", "type", "object"})
#: Languages whose names can refer to each other.
FAMILIES = {"python": "python", "javascript": "script", "typescript": "script", "c": "c", "cpp": "c"}
#: Alias files followed for one question at most (bindings of the first name elsewhere).
MAX_ALIAS_FILES = 400


@dataclass(frozen=True)
class Found:
    """One definition found.

    Attributes:
        path: the file, relative to the root.
        definition: the definition (qualified name, kind, lines, signature).
        via: how it was reached when not by its own name: ``module``, ``alias S`` (the name
            a binding gives it), ``as S is typed in F`` (a parameter or local ``S`` of the file
            ``F`` declared with its class); empty otherwise.
        members: for a class, interface or namespace, the definitions directly inside it.
        lines: the name lines of every definition it stands for when it groups several side by
            side (overloads, a property's getter and setter); empty: its own only.
    """

    path: str
    definition: Definition
    via: str = ""
    members: tuple[Definition, ...] = ()
    lines: tuple[int, ...] = ()

    @property
    def name_lines(self) -> tuple[int, ...]:
        """The lines of the names it stands for (its own, or the group's)."""
        return self.lines or (self.definition.line,)


@dataclass(frozen=True)
class Reference:
    """One use of a name.

    Attributes:
        path: the file.
        line: the line (1-based); column: its first byte (0-based).
        label: one of ``LABELS``.
        enclosing: the qualified name of the innermost definition around it ("" at the top).
    """

    path: str
    line: int
    column: int
    label: str
    enclosing: str


def _is_test(path: str) -> bool:
    parts = path.lower().split("/")
    name = parts[-1]
    return (
        any(p in ("test", "tests", "testing", "__tests__", "spec") for p in parts[:-1])
        or name.startswith("test_")
        or ".test." in name
        or ".spec." in name
        or name.endswith("_test.go")
    )


def _rank(found: Found, parts: Sequence[str]) -> tuple[int, ...]:
    definition = found.definition
    exact = split_name(definition.name) == list(parts)
    return (
        {"module": 0, "member": 1, "local": 2}.get(definition.scope, 1),
        0 if not found.via else 1,
        0 if exact else 1,
        {"variable": 1, "property": 1, "signature": 2}.get(definition.kind, 0),
        1 if _is_test(found.path) else 0,
        1 if found.path.endswith((".pyi", ".d.ts")) else 0,
        len(found.path.split("/")),
    )


def definitions(store: SymbolStore, query: str, lookup: Lookup | None = None) -> list[Found]:
    """The definitions of ``query`` (a qualified or bare name: ``Store.get``, ``get``,
    ``pkg.mod.Store``, ``S.get`` through an alias), ranked (see the module docstring). The
    store is not refreshed here."""
    parts = parts_of(query)
    if not parts:
        return []
    lookup = lookup or Lookup(store)
    found: dict[tuple[str, int, str], Found] = {}

    def add(items: Iterable[Found]) -> None:
        for item in items:
            key = (item.path, item.definition.line, item.definition.name)
            if key not in found:
                found[key] = item

    add(_by_name(store, parts))
    if len(parts) > 1 and not found:
        add(_by_module(lookup, parts, exact=True))
    if not found or len(parts) == 1:  # a bare name is often a module bound by imports (models)
        add(_by_alias(store, lookup, parts))
    if len(parts) > 1 and not found:
        add(_by_module(lookup, parts, exact=False))
    if len(parts) > 1 and not found:
        add(_by_inheritance(store, lookup, parts))
    if len(parts) > 1 and not found:  # subscriber.next, subscriber a local: every next, said so
        add(Found(f.path, f.definition, "by name only") for f in _by_name(store, parts[-1:]))
    order = {key: index for index, key in enumerate(found)}  # aliases come most used first
    ranked = sorted(
        found.values(),
        key=lambda f: (_rank(f, parts), order[(f.path, f.definition.line, f.definition.name)] if f.via else 0, f.path),
    )
    return [with_members(lookup, ranked[0]), *ranked[1:]] if len(ranked) == 1 else ranked


def with_members(lookup: Lookup, found: Found) -> Found:
    """``found`` with the definitions directly inside it (for a class, interface or namespace)."""
    if found.definition.kind not in _OWNERS:
        return found
    info = lookup.file(found.path)
    if info is None:
        return found
    depth = len(split_name(found.definition.name)) + 1
    inside = tuple(
        d
        for d in lookup.definitions(info)
        if d.scope != "local"
        and found.definition.first <= d.first <= found.definition.last
        and len(split_name(d.name)) == depth
        and d.name.startswith(found.definition.name)
    )
    return replace(found, members=inside)


def _by_name(store: SymbolStore, parts: Sequence[str]) -> list[Found]:
    rows = store.query(
        "SELECT f.path, d.name, d.kind, d.first, d.last, d.line, d.signature, d.scope, d.bases FROM definitions d "
        "JOIN files f ON f.id = d.file WHERE d.tail = ?",
        (parts[-1],),
    )
    result = []
    for row in rows:
        (definition,) = rows_to_definitions([row[1:]])
        names = split_name(definition.name)
        if names[-len(parts) :] == list(parts):
            result.append(Found(str(row[0]), definition))
    return result


def _by_module(lookup: Lookup, parts: Sequence[str], exact: bool) -> list[Found]:
    """``a.b.Name`` where ``a.b`` is a Python module (``exact``: its whole dotted name; else one
    ending with it, at most 8 of them), longest module first."""
    result: list[Found] = []
    for cut in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:cut])
        paths = lookup.module_files(module)
        if exact:
            paths = [p for p in paths if lookup.file(p) is not None and lookup.file(p).module == module]  # type: ignore[union-attr]
        for path in paths[:8]:
            result += [Found(t.path, t.definition, "module") for t in lookup.resolve(path, parts[cut:])]
        if result:
            break
    return result


def _by_alias(store: SymbolStore, lookup: Lookup, parts: Sequence[str]) -> list[Found]:
    """``S.get`` where files bind ``S`` (``import … as S``, ``from django.contrib import
    admin``, a parameter ``S: Store``): what each distinct binding leads to, the bindings most
    files use first."""
    rows = store.query(
        "SELECT MIN(f.path), b.kind, COUNT(*) AS uses FROM bindings b JOIN files f ON f.id = b.file "
        "WHERE b.local = ? AND b.kind != 'star' GROUP BY b.kind, b.module, b.imported, "
        "CASE WHEN b.module LIKE '.%' THEN f.path ELSE '' END ORDER BY uses DESC LIMIT ?",
        (parts[0], MAX_ALIAS_FILES),
    )
    result: list[Found] = []
    for path, kind, _uses in rows:
        via = f"as {parts[0]} is typed in {path}" if kind == TYPED else f"alias {parts[0]}"
        for target in lookup.resolve(str(path), list(parts)):
            if target.definition.kind != "module" or len(parts) == 1:
                result.append(Found(target.path, target.definition, via))
    return result


def _by_inheritance(store: SymbolStore, lookup: Lookup, parts: Sequence[str]) -> list[Found]:
    """``Class.member`` that ``Class`` inherits: classes named ``Class``, their bases followed."""
    owners = _by_name(store, parts[:-1])
    result: list[Found] = []
    for owner in owners:
        if owner.definition.kind in ("class", "interface"):
            member = [*split_name(owner.definition.name), parts[-1]]
            result += [
                Found(t.path, t.definition, f"inherited by {parts[-2]}") for t in lookup.inherited(owner.path, member)
            ]
    return result


def _enclosing(definitions: Sequence[Definition], line: int) -> Definition | None:
    inside = [d for d in definitions if d.first <= line <= d.last and d.kind != "module"]
    return min(inside, key=lambda d: (d.last - d.first, -d.first)) if inside else None


def enclosing_class(definitions: Sequence[Definition], line: int) -> Definition | None:
    """The innermost class (interface, type, struct) of ``definitions`` around ``line``, or None."""
    inside = [
        d for d in definitions if d.first <= line <= d.last and d.kind in ("class", "interface", "type", "struct")
    ]
    return min(inside, key=lambda d: d.last - d.first) if inside else None


def _enclosing_class(definitions: Sequence[Definition], line: int) -> str | None:
    holder = enclosing_class(definitions, line)
    return holder.name if holder is not None else None


@dataclass(frozen=True)
class References:
    """The uses of a name: ``targets`` (its definitions) and ``found`` (every use, in path and
    line order); ``unresolved`` says what the index could not follow, or is empty."""

    targets: list[Found]
    found: list[Reference]


def references(store: SymbolStore, query: str, targets: Sequence[Found] | None = None) -> References:
    """Every use of ``targets`` (default: all of ``query``'s definitions, see ``definitions``),
    each labelled (see the module docstring); the store is not refreshed here."""
    lookup = Lookup(store)
    targets = list(targets) if targets is not None else definitions(store, query, lookup)
    if not targets:
        return References([], [])
    wanted = {(t.path, t.definition.name, t.definition.line) for t in targets}
    tails = {t.definition.tail for t in targets}
    names = {t for t in tails}
    aliases = _aliases(store, lookup, tails, wanted)
    names |= {local for _, local in aliases}
    marks = ",".join("?" * len(names))
    rows = store.query(
        f"SELECT f.path, u.name, u.line, u.col, u.receiver FROM uses u JOIN files f ON f.id = u.file "
        f"WHERE u.name IN ({marks}) ORDER BY f.path, u.line, u.col",
        sorted(names),
    )
    by_file: dict[str, list[tuple[str, int, int, str]]] = defaultdict(list)
    for path, name, line, col, receiver in rows:
        by_file[str(path)].append((str(name), int(str(line)), int(str(col)), str(receiver or "")))
    for path, line, _local in _import_lines(store, targets, aliases):
        by_file[path].append(("", line, 0, "<import>"))
    lookup.prefetch(sorted(by_file))
    families = {_family(lookup, t.path) for t in targets}
    found: list[Reference] = []
    for path in sorted(by_file):
        if _family(lookup, path) in families:
            found += _label_file(lookup, path, by_file[path], wanted, tails, aliases)
    return References(targets, found)


def _family(lookup: Lookup, path: str) -> str:
    info = lookup.file(path)
    language = info.language if info is not None else ""
    return FAMILIES.get(language, language)


def _aliases(
    store: SymbolStore, lookup: Lookup, tails: set[str], wanted: set[tuple[str, str, int]]
) -> set[tuple[str, str]]:
    """``(path, local name)`` of the bindings that import one of ``tails`` (under any name) and
    lead to a wanted definition."""
    marks = ",".join("?" * len(tails))
    rows = store.query(
        f"SELECT f.path, b.local FROM bindings b JOIN files f ON f.id = b.file WHERE b.imported IN ({marks}) "
        f"AND b.kind IN ('{IMPORT}', '{REEXPORT}')",
        sorted(tails),
    )
    found = set()
    for path, local in rows:
        targets = lookup.resolve(str(path), [str(local)])
        if any((t.path, t.definition.name, t.definition.line) in wanted for t in targets):
            found.add((str(path), str(local)))
    return found


def _import_lines(
    store: SymbolStore, targets: Sequence[Found], aliases: set[tuple[str, str]]
) -> list[tuple[str, int, str]]:
    rows = []
    for path, local in sorted(aliases):
        for (line,) in store.query(
            "SELECT b.line FROM bindings b JOIN files f ON f.id = b.file WHERE f.path = ? AND b.local = ?",
            (path, local),
        ):
            rows.append((path, int(str(line)), local))
    return rows


def _label_file(
    lookup: Lookup,
    path: str,
    uses: list[tuple[str, int, int, str]],
    wanted: set[tuple[str, str, int]],
    tails: set[str],
    aliases: set[tuple[str, str]],
) -> list[Reference]:
    info = lookup.file(path)
    if info is None:
        return []
    defs = lookup.definitions(info)
    local_aliases = {local for p, local in aliases if p == path}
    result = []
    seen: set[tuple[int, int]] = set()
    for name, line, column, receiver in sorted(uses, key=lambda u: (u[1], u[2])):
        label = _label(lookup, info.path, info.language, defs, name, line, receiver, wanted, tails, local_aliases)
        if label is None or (line, column) in seen:
            continue
        seen.add((line, column))
        around = _enclosing(defs, line)
        result.append(Reference(path, line, column, label, around.name if around else ""))
    return result


def _hits(targets: Iterable[Target], wanted: set[tuple[str, str, int]]) -> bool:
    return any((t.path, t.definition.name, t.definition.line) in wanted for t in targets)


def _label(
    lookup: Lookup,
    path: str,
    language: str,
    defs: Sequence[Definition],
    name: str,
    line: int,
    receiver: str,
    wanted: set[tuple[str, str, int]],
    tails: set[str],
    local_aliases: set[str],
) -> str | None:
    """The label of one use, or None when it is not a use of a wanted definition."""
    resolving = language in ("python", "javascript", "typescript")
    if receiver == "<import>":
        return IMPORT_RESOLVED
    if not receiver:
        if not resolving:
            return NAME_ONLY if name in tails else None
        if name in local_aliases:
            return IMPORT_RESOLVED
        targets = lookup.resolve(path, [name])
        if not targets:
            return NAME_ONLY if name in tails and language == "python" else None  # a star import's name
        if not _hits(targets, wanted):
            return None
        return SAME_FILE if all(t.path == path for t in targets) else IMPORT_RESOLVED
    if name not in tails:
        return None
    if receiver in _SELF:
        return _self_label(lookup, path, defs, name, line, wanted)
    if receiver == "?" or not resolving:
        return NAME_ONLY
    owners = lookup.resolve(path, split_name(receiver))
    if not owners or all(o.definition.kind not in _OWNERS for o in owners):
        return NAME_ONLY  # a local, or a variable whose type the index does not know
    for owner in owners:
        member = (
            lookup.resolve(owner.path, [name])
            if owner.definition.kind == "module"
            else lookup.resolve(owner.path, [*split_name(owner.definition.name), name])
        )
        if _hits(member, wanted):
            return SAME_FILE if owner.path == path and all(m.path == path for m in member) else IMPORT_RESOLVED
    return None


def _self_label(
    lookup: Lookup, path: str, defs: Sequence[Definition], name: str, line: int, wanted: set[tuple[str, str, int]]
) -> str:
    """The label of ``self.name`` (``cls``, ``this``) at ``line``: what the enclosing class has
    as ``name``, its own or else a base's (bases followed as ``Lookup.resolve`` follows them:
    in this file, or through the imports that bind them). ``same-file`` when that is a wanted
    definition and all of it is in this file, ``import-resolved`` when a base of another file
    holds it; ``name-only`` outside a class, or when the class has another definition of the
    name or one the index cannot follow (an instance of a subclass may still mean a wanted one)."""
    holder = _enclosing_class(defs, line)
    if holder is None:
        return NAME_ONLY
    member = lookup.resolve(path, [*split_name(holder), name])
    if not _hits(member, wanted):
        return NAME_ONLY
    return SAME_FILE if all(m.path == path for m in member) else IMPORT_RESOLVED
