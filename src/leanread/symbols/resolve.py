"""Following a name through a file's definitions and bindings to where it is defined: own
definitions first, then imports and re-exports (aliases followed), star imports (Python's
limited by ``__all__``), and a package's submodules. Reads the store through ``Lookup``, which
keeps what it read for the length of one question.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from .facts import EXPORT, IMPORT, MODULE, REEXPORT, STAR, TYPED, Binding, Definition, split_name
from .modules import python_files, script_files
from .store import SymbolStore, rows_to_definitions

#: Bindings followed one after another at most (a chain of re-exports).
MAX_HOPS = 12


@dataclass(frozen=True)
class Target:
    """A definition in a file (a module itself: kind ``module``, line 1)."""

    path: str
    definition: Definition


@dataclass(frozen=True)
class FileInfo:
    """What the index says of one file besides its facts."""

    id: int
    path: str
    language: str
    module: str
    exports: tuple[str, ...] | None


@dataclass
class Lookup:
    """Reads of the store for one question, each made once."""

    store: SymbolStore
    _files: dict[str, FileInfo | None] = field(default_factory=dict)
    _definitions: dict[int, list[Definition]] = field(default_factory=dict)
    _bindings: dict[int, list[Binding]] = field(default_factory=dict)
    _modules: dict[str, list[str]] = field(default_factory=dict)
    _resolved: dict[tuple[str, tuple[str, ...]], list[Target]] = field(default_factory=dict)
    _named: dict[int, dict[str, list[Definition]]] = field(default_factory=dict)
    _bound: dict[int, set[str]] = field(default_factory=dict)
    _by_last: dict[str, list[tuple[str, str]]] | None = None

    def file(self, path: str) -> FileInfo | None:
        if path not in self._files:
            rows = self.store.query("SELECT id, language, module, exports FROM files WHERE path = ?", (path,))
            info = None
            if rows:
                file_id, language, module, exports = rows[0]
                names = tuple(json.loads(str(exports))) if exports is not None else None
                info = FileInfo(int(str(file_id)), path, str(language), str(module or ""), names)
            self._files[path] = info
        return self._files[path]

    def definitions(self, info: FileInfo) -> list[Definition]:
        if info.id not in self._definitions:
            rows = self.store.query(
                "SELECT name, kind, first, last, line, signature, scope, bases FROM definitions WHERE file = ?",
                (info.id,),
            )
            self._definitions[info.id] = list(rows_to_definitions(rows))
        return self._definitions[info.id]

    def prefetch(self, paths: Sequence[str]) -> None:
        """Read the files, definitions and bindings of ``paths`` in three queries (a question
        about a common name touches hundreds of files)."""
        wanted = [p for p in paths if p not in self._files]
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.store.query(
                f"SELECT id, path, language, module, exports FROM files WHERE path IN ({marks})", chunk
            )
            infos = {}
            for file_id, path, language, module, exports in rows:
                names = tuple(json.loads(str(exports))) if exports is not None else None
                info = FileInfo(int(str(file_id)), str(path), str(language), str(module or ""), names)
                self._files[info.path] = info
                infos[info.id] = info
            ids = sorted(infos)
            if not ids:
                continue
            id_marks = ",".join("?" * len(ids))
            definitions: dict[int, list[tuple[object, ...]]] = {i: [] for i in ids}
            for row in self.store.query(
                "SELECT file, name, kind, first, last, line, signature, scope, bases FROM definitions "
                f"WHERE file IN ({id_marks})",
                ids,
            ):
                definitions[int(str(row[0]))].append(row[1:])
            for file_id, rows_of in definitions.items():
                self._definitions[file_id] = list(rows_to_definitions(rows_of))
            bindings: dict[int, list[Binding]] = {i: [] for i in ids}
            for file_id, a, b, c, d, e in self.store.query(
                f"SELECT file, local, kind, module, imported, line FROM bindings WHERE file IN ({id_marks})", ids
            ):
                bindings[int(str(file_id))].append(Binding(str(a), str(b), str(c), str(d), int(str(e))))
            self._bindings.update(bindings)

    def named(self, info: FileInfo, name: str) -> list[Definition]:
        """The definitions of ``info``'s file named exactly ``name`` (not inside a function)."""
        if info.id not in self._named:
            table: dict[str, list[Definition]] = {}
            for definition in self.definitions(info):
                if definition.scope != "local":
                    table.setdefault(definition.name, []).append(definition)
            self._named[info.id] = table
        return self._named[info.id].get(name, [])

    def binds(self, info: FileInfo, first: str) -> bool:
        """Whether any binding of ``info``'s file can start with the name ``first`` (or it has a
        star import, or is a package that may hold a submodule of that name)."""
        if info.id not in self._bound:
            self._bound[info.id] = {b.local.split(".", 1)[0] for b in self.bindings(info)}
        bound = self._bound[info.id]
        return first in bound or "*" in bound or info.path.endswith(("__init__.py", "__init__.pyi"))

    def bindings(self, info: FileInfo) -> list[Binding]:
        if info.id not in self._bindings:
            rows = self.store.query(
                "SELECT local, kind, module, imported, line FROM bindings WHERE file = ?", (info.id,)
            )
            self._bindings[info.id] = [Binding(str(a), str(b), str(c), str(d), int(str(e))) for a, b, c, d, e in rows]
        return self._bindings[info.id]

    def receivers(self, info: FileInfo, name: str) -> list[tuple[int, str]]:
        """``(line, receiver)`` of each use of ``name`` in ``info``'s file (receiver empty for a
        bare use, ``?`` for one the index does not follow)."""
        rows = self.store.query("SELECT line, receiver FROM uses WHERE file = ? AND name = ?", (info.id, name))
        return [(int(str(line)), str(receiver or "")) for line, receiver in rows]

    def module_files(self, name: str) -> list[str]:
        """Python files whose module is ``name``, else whose module ends with ``.name``."""
        if name not in self._modules:
            if self._by_last is None:
                self._by_last = {}
                for path, module in self.store.query("SELECT path, module FROM files WHERE module != ''"):
                    module = str(module)
                    self._by_last.setdefault(module.rsplit(".", 1)[-1], []).append((module, str(path)))
            candidates = self._by_last.get(name.rsplit(".", 1)[-1], [])
            exact = [p for m, p in candidates if m == name]
            if not exact:
                exact = [p for m, p in candidates if m.endswith("." + name)]
            self._modules[name] = sorted(exact, key=lambda p: (p.endswith(".pyi"), len(p), p))
        return self._modules[name]

    def existing(self, paths: Sequence[str]) -> list[str]:
        marks = ",".join("?" * len(paths))
        return [str(p) for (p,) in self.store.query(f"SELECT path FROM files WHERE path IN ({marks})", paths)]

    def modules_of(self, written: str, info: FileInfo) -> list[str]:
        """Indexed files for a module as written in ``info``'s file."""
        if info.language == "python":
            return python_files(written, info.path, info.module, self.module_files)
        if info.language in ("javascript", "typescript"):
            return script_files(written, info.path, self.existing)
        return []

    def resolve(self, path: str, parts: Sequence[str], hops: int = 0) -> list[Target]:
        """Where ``parts`` (``["Store", "get"]``) as seen from the file ``path`` is defined; empty
        when the file neither defines nor binds it (or the chain passes ``MAX_HOPS``)."""
        key = (path, tuple(parts))
        if key in self._resolved:
            return self._resolved[key]
        self._resolved[key] = []  # a cycle of imports ends here
        info = self.file(path)
        found = [] if info is None or hops > MAX_HOPS or not parts else self._resolve(info, list(parts), hops)
        self._resolved[key] = found
        return found

    def _resolve(self, info: FileInfo, parts: list[str], hops: int) -> list[Target]:
        own = [Target(info.path, d) for d in self.named(info, ".".join(parts))]
        if own:
            return own
        if not self.binds(info, parts[0]):
            return self.inherited(info.path, parts, hops) if len(parts) > 1 else []
        for binding in self.bindings(info):
            found = self._through(info, binding, parts, hops)
            if found:
                return found
        for binding in self.bindings(info):
            if binding.kind == STAR and self._star_exports(binding, info, parts[0]):
                found = [t for f in self.modules_of(binding.module, info) for t in self.resolve(f, parts, hops + 1)]
                if found:
                    return found
        if info.language == "python" and info.path.endswith(("__init__.py", "__init__.pyi")):
            found = self._submodule(info.module, parts, hops)
            if found:
                return found
        if len(parts) > 1:
            found = self.typed(info, parts, hops)
            if found:
                return found
        return self.inherited(info.path, parts, hops) if len(parts) > 1 else []

    def typed(self, info: FileInfo, parts: Sequence[str], hops: int = 0) -> list[Target]:
        """``x.member`` where a parameter or local ``x`` of ``info``'s file holds a value of a
        declared type (``TYPED`` bindings; every type it is declared with in the file, since a
        question carries no position): the members of those types that are not static."""
        found: list[Target] = []
        for binding in self.bindings(info):
            if binding.kind == TYPED and binding.local == parts[0]:
                found += self.resolve(info.path, [*split_name(binding.imported), *parts[1:]], hops + 1)
        return instance_members(list({(t.path, t.definition.line): t for t in found}.values()))

    def inherited(self, path: str, parts: Sequence[str], hops: int = 0) -> list[Target]:
        """``Owner.member`` that ``Owner`` (as seen from ``path``) does not define itself: a
        member of what it stands for when reached by another name, else of its bases (a class's
        base classes, depth first in the order written; a variable's or property's declared type,
        whose static members its value does not have)."""
        if hops > MAX_HOPS:
            return []
        for owner in self.resolve(path, parts[:-1], hops + 1):
            named = split_name(owner.definition.name)
            if owner.definition.kind != "module" and named != list(parts[:-1]):
                found = self.resolve(owner.path, [*named, parts[-1]], hops + 1)
                if found:
                    return found
            for base in owner.definition.bases:
                for parent in self.resolve(owner.path, split_name(base), hops + 1):
                    member = [*split_name(parent.definition.name), parts[-1]]
                    found = self.resolve(parent.path, member, hops + 1)
                    if owner.definition.kind not in ("class", "interface"):
                        found = instance_members(found)
                    if found:
                        return found
        return []

    def _through(self, info: FileInfo, binding: Binding, parts: list[str], hops: int) -> list[Target]:
        """``parts`` followed through one binding of ``info``'s file, when the binding names it."""
        local, kind = binding.local, binding.kind
        if kind == MODULE and "." in local:  # import a.b.c binds the chain a.b.c
            count = len(local.split("."))
            if parts[:count] != local.split("."):
                return []
            return self._into_module(binding.module, info, parts[count:], hops)
        if local != parts[0] or kind == STAR:
            return []
        rest = parts[1:]
        if kind == MODULE or (kind == REEXPORT and binding.imported == "*"):
            return self._into_module(binding.module, info, rest, hops)
        if kind == EXPORT:
            return self.resolve(info.path, [binding.imported, *rest], hops + 1) if binding.imported != local else []
        if kind in (IMPORT, REEXPORT):
            found = [
                t
                for f in self.modules_of(binding.module, info)
                for t in self.resolve(f, [binding.imported, *rest], hops + 1)
            ]
            if not found and info.language == "python":  # from pkg import sub: a submodule
                submodule = f"{binding.module}.{binding.imported}".replace("..", ".")
                found = self._into_module(submodule, info, rest, hops)
            return found
        return []

    def _into_module(self, written: str, info: FileInfo, rest: list[str], hops: int) -> list[Target]:
        files = self.modules_of(written, info)
        if not rest:
            return [Target(f, _module_definition(f)) for f in files[:1]]
        return [t for f in files[:1] for t in self.resolve(f, rest, hops + 1)]

    def _submodule(self, package: str, parts: list[str], hops: int) -> list[Target]:
        files = self.module_files(f"{package}.{parts[0]}" if package else parts[0])
        if not files:
            return []
        if len(parts) == 1:
            return [Target(files[0], _module_definition(files[0]))]
        return self.resolve(files[0], parts[1:], hops + 1)

    def _star_exports(self, binding: Binding, info: FileInfo, name: str) -> bool:
        """Whether a star import ``binding`` can bring ``name`` (Python: listed in the module's
        ``__all__``, or public when it has none)."""
        if info.language != "python":
            return name != "default"
        for path in self.modules_of(binding.module, info):
            target = self.file(path)
            if target is not None and target.exports is not None:
                return name in target.exports
        return not name.startswith("_")


def instance_members(found: list[Target]) -> list[Target]:
    """``found`` without static members when it holds others (a value of a class has its
    instance members, the class itself its static ones)."""
    kept = [t for t in found if t.definition.scope != "static"]
    return kept or found


def _module_definition(path: str) -> Definition:
    return Definition(path, "module", 1, 1, 1, "", "module")


def parts_of(query: str) -> list[str]:
    """A question's name as parts: ``Store.get``, ``Store::get``, ``Store#get``, ``get()`` → parts."""
    cleaned = query.strip().replace("#", ".").removesuffix("()")
    return split_name(cleaned)
