"""Which of a name's definitions the question means, and how many of the rest to show.

A bare name (``get``) or a name on a local (``qs.filter``) has many definitions in a big tree; a
language server picks the one at the use from the use's scope. The index knows the file the
question comes from (``near``: the file the agent read last, or the one it names), so:

1. the name as that file sees it (``resolve``: its own definitions, imports, aliases,
   inheritance, declared types; ``Class.member`` the static one when there is one), or a bare
   member name as the file uses it (``this.x``, ``super.x``), is the answer, when it leads
   somewhere: ``resolved_from`` says so;
2. otherwise the definitions are ranked by how close they are to that file (in it, in a file it
   imports, in its folder, sharing more of its path) and cut to the best tier: those as close as
   the closest, at most ``MAX_LIKELY``; the rest are counted, never dropped silently.

``within`` narrows every answer to a folder (``read(path="pkg/", symbol="get")``) and lists it
ranked, uncut, as a question without a file does for a bare name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from .facts import split_name
from .find import Found, definitions, enclosing_class, with_members
from .resolve import FileInfo, Lookup, Target, instance_members, parts_of
from .store import SymbolStore

#: Definitions listed at most when the question's file does not resolve the name.
MAX_LIKELY = 5


@dataclass(frozen=True)
class Likely:
    """The definitions an answer shows, and how many it leaves out.

    Attributes:
        shown: the likely definitions, likeliest first (one: the answer reads it).
        total: every definition of the name found (within the folder asked for), shown included.
        resolved_from: the file (relative to the root) whose own names and imports led to
            ``shown``, or empty when they did not and ``shown`` is a ranked cut.
    """

    shown: list[Found]
    total: int
    resolved_from: str = ""

    @property
    def others(self) -> int:
        """Definitions found and not shown."""
        return self.total - len(self.shown)


def inside(path: str, folder: str) -> bool:
    """Whether the relative ``path`` lies in the relative ``folder`` (``""``: the root)."""
    return not folder or path == folder or path.startswith(folder.rstrip("/") + "/")


def likely_definitions(store: SymbolStore, query: str, near: str | None = None, within: str | None = None) -> Likely:
    """The definitions of ``query`` the question most likely means (see the module docstring).

    ``near`` and ``within`` are paths relative to the store's root (``near`` a file, ``within`` a
    folder); either may be None. The store is not refreshed here.
    """
    lookup = Lookup(store)
    every = grouped(lookup, [f for f in definitions(store, query, lookup) if within is None or inside(f.path, within)])
    resolved = (
        grouped(lookup, _resolved(lookup, query, near, within) or _used(lookup, query, near, within)) if near else []
    )
    if resolved:
        keys = {_key(f) for f in every} | {_key(f) for f in resolved}
        return Likely(_single(lookup, resolved), len(keys), near or "")
    if not every:
        return Likely([], 0)
    receiver = parts_of(query)[-2] if len(parts_of(query)) > 1 else ""
    imported = _imported_files(lookup, near) if near else set()

    def key(found: Found) -> tuple[int, ...]:
        nested = _in_function(lookup, found)
        return (_named_like(found, receiver), nested, *_closeness(found.path, near, imported))

    ranked = sorted(every, key=key)
    if within is not None or not (near or receiver):
        return Likely(_single(lookup, ranked), len(every))  # a folder's, or a bare name's, ranked whole
    best = key(ranked[0])
    tier = [f for f in ranked if key(f)[:3] == best[:3] and (best[2] < 3 or key(f) == best)]
    if len(tier) == len(ranked):  # nothing is nearer than the rest: the ranked list, uncut
        return Likely(_single(lookup, ranked), len(every))
    return Likely(_single(lookup, tier[:MAX_LIKELY]), len(every))


def grouped(lookup: Lookup, found: Sequence[Found]) -> list[Found]:
    """``found`` with the definitions of one name that stand side by side in one file (overloads,
    a getter and its setter: no other definition at their depth between them) made one, at the
    place of the first; its ``lines`` are theirs, its range spans them all."""
    by_name: dict[tuple[str, str], list[Found]] = {}
    for item in found:
        by_name.setdefault((item.path, item.definition.name), []).append(item)
    result: list[Found] = []
    done: set[tuple[str, str]] = set()
    for item in found:
        key = (item.path, item.definition.name)
        same = by_name[key]
        if len(same) == 1 or not _side_by_side(lookup, same):
            result.append(item)
        elif key not in done:
            done.add(key)
            result.append(_merged(same))
    return result


def _side_by_side(lookup: Lookup, same: Sequence[Found]) -> bool:
    info = lookup.file(same[0].path)
    if info is None:
        return False
    name = same[0].definition.name
    depth = len(split_name(name))
    first = min(f.definition.first for f in same)
    last = max(f.definition.last for f in same)
    return not any(
        d.name != name and len(split_name(d.name)) == depth and d.scope != "local" and first <= d.first <= last
        for d in lookup.definitions(info)
    )


def _merged(same: Sequence[Found]) -> Found:
    """One ``Found`` for definitions side by side: the body (not a bare signature) leads."""
    lead = next((f for f in same if f.definition.kind != "signature"), same[0])
    first = min(f.definition.first for f in same)
    last = max(f.definition.last for f in same)
    lines = tuple(sorted({f.definition.line for f in same}))
    return replace(lead, definition=replace(lead.definition, first=first, last=last), lines=lines)


def _key(found: Found) -> tuple[str, int, str]:
    return found.path, found.definition.line, found.definition.name


def _single(lookup: Lookup, found: list[Found]) -> list[Found]:
    return [with_members(lookup, found[0])] if len(found) == 1 else found


def _resolved(lookup: Lookup, query: str, near: str | None, within: str | None) -> list[Found]:
    """What ``query`` names as seen from the file ``near``: not a module, not a definition in a
    function, inside ``within``."""
    parts = parts_of(query)
    if not parts or near is None or lookup.file(near) is None:
        return []
    targets = static_members(lookup.resolve(near, parts)) if len(parts) > 1 else lookup.resolve(near, parts)
    found = [
        Found(t.path, t.definition)
        for t in targets
        if t.definition.kind != "module"
        and t.definition.scope != "local"
        and (within is None or inside(t.path, within))
    ]
    return list({_key(f): f for f in found}.values())


def _used(lookup: Lookup, query: str, near: str | None, within: str | None) -> list[Found]:
    """A bare member name (``execute``) as the file ``near`` uses it: what each use's receiver
    leads to (``this.x``: the enclosing class's; ``super.x``: its bases'; ``this.clock.x``,
    ``source.x``: as the file sees them); empty when the file does not use it on a receiver or
    one of its uses is on something the index cannot follow."""
    parts = parts_of(query)
    info = lookup.file(near) if near is not None and len(parts) == 1 else None
    uses = [(line, receiver) for line, receiver in lookup.receivers(info, parts[0])] if info is not None else []
    if not uses or any(not receiver for _, receiver in uses):
        return []
    found: list[Target] = []
    for line, receiver in uses:
        targets = _member_on(lookup, info, line, receiver, parts[0]) if info is not None else []
        if not targets:
            return []
        found += targets
    return [
        Found(t.path, t.definition)
        for t in {(t.path, t.definition.line): t for t in found}.values()
        if within is None or inside(t.path, within)
    ]


def _member_on(lookup: Lookup, info: FileInfo, line: int, receiver: str, name: str) -> list[Target]:
    """Where the member ``name`` of ``receiver`` (as written at ``line`` of ``info``'s file) is
    defined; empty when the index cannot follow the receiver."""
    head, _, rest = receiver.partition(".")
    if head in ("this", "self", "cls", "super"):
        holder = enclosing_class(lookup.definitions(info), line)
        if holder is None:
            return []
        chain = [*rest.split("."), name] if rest else [name]
        if head != "super":
            return instance_members(lookup.resolve(info.path, [*split_name(holder.name), *chain]))
        return instance_members(
            [t for base in holder.bases for t in lookup.resolve(info.path, [*split_name(base), *chain])]
        )
    if receiver == "?":
        return []
    return static_members(lookup.resolve(info.path, [*split_name(receiver), name]))


def static_members(targets: list[Target]) -> list[Target]:
    """``targets`` of a question ``Class.member`` without the instance members that share a
    static one's name (TypeScript's ``Scheduler.now`` is the static ``now``, not the instance's)."""
    static = {(t.path, t.definition.name) for t in targets if t.definition.scope == "static"}
    return [t for t in targets if t.definition.scope == "static" or (t.path, t.definition.name) not in static]


def _imported_files(lookup: Lookup, near: str) -> set[str]:
    """The indexed files the bindings of ``near`` lead to (the modules it imports from)."""
    info = lookup.file(near)
    if info is None:
        return set()
    files: set[str] = set()
    for binding in lookup.bindings(info):
        if binding.module:
            files.update(lookup.modules_of(binding.module, info)[:1])
            if binding.imported and info.language == "python":
                files.update(lookup.modules_of(f"{binding.module}.{binding.imported}".replace("..", "."), info)[:1])
    return files


def _closeness(path: str, near: str | None, imported: set[str]) -> tuple[int, int]:
    """(tier, negative shared folders) of a definition in ``path`` seen from ``near``: tier 0 in
    ``near`` itself, 1 in a file it imports from (``imported``), 2 in its folder, 3 elsewhere
    (and without ``near``)."""
    if near is None:
        return (3, 0)
    shared = _shared_folders(path, near)
    if path == near:
        return (0, -shared)
    if path in imported:
        return (1, -shared)
    if "/" in path and path.rsplit("/", 1)[0] == near.rsplit("/", 1)[0]:
        return (2, -shared)
    return (3, -shared)


def _shared_folders(path: str, near: str) -> int:
    a, b = path.split("/")[:-1], near.split("/")[:-1]
    count = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        count += 1
    return count


def _named_like(found: Found, receiver: str) -> int:
    """How well the class holding a definition found by its last name only matches what it was
    looked up on (``subscriber.next``: ``Subscriber.next``): 0 the same name (case and ``_``
    aside), 1 the receiver's name ends with it (``window_subject``: ``Subject``), 2 it starts or
    ends with the receiver's (``scheduler``: ``SchedulerLike``; ``form``: ``BaseForm``), 3
    otherwise; 0 when not found by name only."""
    if not receiver or found.via != "by name only" or not found.definition.container:
        return 0 if found.via != "by name only" else 3
    have = _plain(split_name(found.definition.container)[-1])
    want = _plain(receiver)
    if have == want:
        return 0
    if want.endswith(have):
        return 1
    return 2 if have.startswith(want) or have.endswith(want) else 3


def _in_function(lookup: Lookup, found: Found) -> int:
    """1 when a definition sits in a class defined inside a function (a test's own ``Form``):
    another file cannot name it; else 0."""
    parts = split_name(found.definition.name)
    if len(parts) < 3 or found.definition.scope == "local":
        return 0
    info = lookup.file(found.path)
    if info is None:
        return 0
    for end in range(len(parts) - 2, 0, -1):
        holders = lookup.named(info, ".".join(parts[:end]))
        if any(d.kind in ("function", "method") for d in holders):
            return 1
    return 0


def _plain(name: str) -> str:
    return name.replace("_", "").lower()


__all__ = ["MAX_LIKELY", "Likely", "inside", "likely_definitions"]
