"""The model-visible text of the two answers. Pure: records in, rows or one string out.

- Several definitions: a ranked list, each row its place, the class it is in, its signature line,
  and the exact ``read`` call that shows it; the rest counted.
- Uses: grouped by file and by the definition they are in, each with its label and its line as
  the file has it (a long one cut around the use as grep cuts it, ``view.rows.matched``);
  resolved uses first, then name-only ones, within ``MAX_REFERENCES`` rows; what is left out
  counted by label.

The rows of a list, a class's map and the uses carry the files' text (their paths, signatures
and lines); the lines leanread writes itself among them are ``Own``, so that the answer is sealed
like grep's (``frame.plain_or_framed``) when a file's text reads like leanread's frame.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from ..view.counts import plural
from ..view.frame import Own
from ..view.rows import matched
from .facts import split_name
from .find import LABELS, NAME_ONLY, Found, Reference
from .resolve import parts_of

#: Definitions listed at most.
MAX_DEFINITIONS = 8
#: Uses listed at most.
MAX_REFERENCES = 60


def read_call(found: Found, display: Callable[[str], str]) -> str:
    """The ``read`` call that shows one definition whole."""
    d = found.definition
    return f'read(path="{display(found.path)}", offset={d.first}, limit={d.last - d.first + 1})'


def _where(found: Found, display: Callable[[str], str]) -> str:
    d = found.definition
    lines = f"{d.first}-{d.last}" if d.last > d.first else f"{d.first}"
    container = f" (in {d.container})" if d.container else ""
    via = f" [{found.via}]" if found.via else ""
    return f"{display(found.path)}:{lines}{container}{via}: {d.signature or d.kind}"


def others_step(query: str) -> str:
    """The call that lists every definition of ``query`` in the workspace, ranked."""
    return f'read(symbol="{query}", path=".")'


def others_line(query: str, others: int) -> str:
    """``(3 other definitions of get: read(symbol="get", path=".").)``, or empty for none."""
    if others <= 0:
        return ""
    name = "definition" if others == 1 else "definitions"
    return f"({others} other {name} of {query.split('.')[-1]}: {others_step(query)}.)"


def likely_note(query: str, found: Found, total: int, resolved_from: str, display: Callable[[str], str]) -> str:
    """The line before one definition read whole: what and where it is, why this one, and how
    many others there are with the call that lists them."""
    d = found.definition
    named = "" if split_name(d.name)[-len(parts_of(query)) :] == parts_of(query) else f"{d.name} "
    where = f"{query}: {named}defined in {display(found.path)}, lines {d.first}-{d.last}{_via_text(found)}"
    if resolved_from:
        where += f", as {display(resolved_from)} sees it"
    if total <= 1:
        return f"({where}.)"
    if resolved_from:
        return f"({where}; {others_line(query, total - 1)[1:]}"
    tail = query.split(".")[-1]
    return f"({where}; the likeliest of {total} definitions of {tail}, the others: {others_step(query)}.)"


def definitions_rows(
    query: str,
    found: Sequence[Found],
    display: Callable[[str], str],
    total: int | None = None,
    resolved_from: str = "",
    near: str = "",
) -> list[str]:
    """The list of several definitions of ``query`` (the caller shows a single one itself):
    ``found`` the likely ones of ``total`` found, resolved from the file ``resolved_from`` or
    ranked by nearness to the file ``near``. Rows: the head, then per definition its place and
    signature (``pkg/a.py:4-9 (in Store): def get(self, key):``, the file's) and its read call."""
    total = len(found) if total is None else total
    shown = found[:MAX_DEFINITIONS]
    if resolved_from:
        head = f"{len(shown)} definitions of {query} as {display(resolved_from)} sees it:"
    elif len(shown) < total:
        nearest = f", nearest {display(near)}" if near else ""
        head = f"{total} definitions of {query}; the {len(shown)} likeliest{nearest}:"
    else:
        head = f"{total} definitions of {query}, likeliest first:"
    rows: list[str] = [Own(head)]
    for item in shown:
        rows.append(_where(item, display))
        rows.append(Own("  " + read_call(item, display)))
    left = total - len(shown)
    if left and len(found) > len(shown):
        tail = query.split(".")[-1]
        rows.append(Own(f'(+{left} more; name the class or module, e.g. symbol="Class.{tail}".)'))
    elif left:
        rows.append(Own(f"(+{left} more: {others_step(query)} lists the workspace's.)"))
    return rows


def members_rows(query: str, found: Found, display: Callable[[str], str]) -> list[str]:
    """A big class's map: its own row and each member's (``first-last<TAB>signature``, the
    file's), with the read call of the whole and of the first member."""
    d = found.definition
    path = display(found.path)
    head = f"({query}: a {d.kind} in {path}, lines {d.first}-{d.last}{_via_text(found)}; its members:)"
    rows: list[str] = [Own(head), f"{d.first}-{d.last}\t{d.signature}"]
    for member in found.members:
        span = f"{member.first}-{member.last}" if member.last > member.first else f"{member.first}"
        rows.append(f"{span}\t  {member.signature}")
    first = found.members[0] if found.members else d
    rows.append(
        Own(
            f'(Read a member with read(path="{path}", offset={first.first}, limit={first.last - first.first + 1}), '
            f"the whole with offset={d.first}, limit={d.last - d.first + 1}.)"
        )
    )
    return rows


def _via_text(found: Found) -> str:
    return f", {found.via}" if found.via else ""


def no_definition_text(query: str, files: int, skipped: str) -> str:
    """The answer when the index has no definition of ``query``."""
    return (
        f"No definition of {query} in the {plural(files, 'indexed file')}{skipped}; "
        f'search the text with grep(pattern="{query.split(".")[-1]}").'
    )


def skipped_note(counts: dict[str, int]) -> str:
    """`` (not indexed: 2 deny-listed, 1 over 2 MiB)`` or empty."""
    if not counts:
        return ""
    return " (not indexed: " + ", ".join(f"{n} {reason}" for reason, n in counts.items()) + ")"


def references_rows(
    query: str,
    targets: Sequence[Found],
    found: Sequence[Reference],
    display: Callable[[str], str],
    line_text: Callable[[str, int], str],
    limit: int = MAX_REFERENCES,
) -> list[str]:
    """Uses of ``query`` grouped by file and enclosing definition; resolved first, within ``limit``
    rows; the rest counted by label. ``line_text(path, line)`` gives a line's text as the file has
    it (``""`` when it cannot be read). Rows: the head, then per group its file and definition
    (``pkg/a.py · Store.put``) and per use ``  12 same-file: <the line>``, then the notes."""
    counts = Counter(r.label for r in found)
    where = ", ".join(f"{display(t.path)}:{t.definition.line}" for t in targets[:3])
    more = f" and {len(targets) - 3} more" if len(targets) > 3 else ""
    summary = ", ".join(f"{counts[label]} {label}" for label in LABELS if counts[label])
    files = len({r.path for r in found})
    head = f"Uses of {query} (defined at {where}{more}): {plural(len(found), 'use')} in {plural(files, 'file')}"
    head += f" ({summary})." if found else "."
    ordered = sorted(found, key=lambda r: LABELS.index(r.label))[:limit]
    chosen = sorted(ordered, key=lambda r: (r.path, r.line, r.column))
    rows: list[str] = [Own(head)]
    group = None
    for ref in chosen:
        if (ref.path, ref.enclosing) != group:
            group = (ref.path, ref.enclosing)
            rows.append(display(ref.path) + (f" · {ref.enclosing}" if ref.enclosing else ""))
        line = line_text(ref.path, ref.line)
        rows.append(f"  {ref.line} {ref.label}: {matched(line, ref.line, _char_column(line, ref.column))}")
    left = Counter(r.label for r in found) - Counter(r.label for r in chosen)
    if left:
        parts = ", ".join(f"{left[label]} {label}" for label in LABELS if left[label])
        rows.append(Own(f"(+{parts} not shown; narrow with path, or grep the name.)"))
    if counts[NAME_ONLY]:
        rows.append(
            Own(
                f"(name-only: the name {query.split('.')[-1]} on something the index cannot follow, such as a "
                "local variable or a call's result; it may be another definition of the name.)"
            )
        )
    return rows


def _char_column(line: str, column: int) -> int:
    """The 0-based character of ``line`` at which its UTF-8 byte ``column`` falls."""
    return len(line.encode("utf-8", "replace")[:column].decode("utf-8", "ignore"))


def targets_note(query: str, shown: int, total: int, resolved_from: str, display: Callable[[str], str]) -> str:
    """A last line when the uses are those of some of ``query``'s definitions only (as the file
    ``resolved_from`` sees the name, or the likeliest): how many were left out and the call that
    lists them; empty when none was."""
    if total <= shown:
        return ""
    tail = query.split(".")[-1]
    which = (
        f"{tail} as {display(resolved_from)} sees it"
        if resolved_from
        else f"the likeliest {plural(shown, 'definition')}"
    )
    left = total - shown
    return f"(Only uses of {which}; {plural(left, 'other definition')} of {tail}: {others_step(query)}.)"
