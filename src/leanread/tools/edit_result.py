"""What an ``edit`` result shows the model, from the plan and the file as written: one line when
the file got what the model sent; otherwise the rule in a note and, numbered, only the lines
written otherwise than sent and the line a parse warning names. Pure: no I/O. Line numbers are
1-based."""

from __future__ import annotations

from collections.abc import Sequence

from ..code.edit_plan import EditPlan
from ..code.edit_text import lines_of
from ..code.edit_whitespace import indent_width, leading_space
from ..ledger.knowledge import ranges_of
from ..view.frame import Own
from ..view.render import cut_line, span

#: Lines an edit result shows at most; past them a note names the rest for a read.
EXCERPT_LINES = 6


def _written_otherwise(lines: Sequence[str], plan: EditPlan) -> list[int]:
    """Lines of the new text (1-based) written otherwise than the model sent them: compared with
    ``plan.given`` range by range, trailing whitespace aside (the rule's note says it). Where
    new_string was shifted, a line counts as sent when it is indented by the note's columns more
    than sent, in the file's characters; elsewhere its indentation must be the one sent."""
    if plan.rule not in ("whitespace", "line-numbers+whitespace"):
        return []  # the other rules write new_string as given, as a substring
    given = lines_of(plan.given)
    shifted = plan.shift != 0 and not plan.kept_indent

    def same(written: str, sent: str) -> bool:
        if written.strip() != sent.strip():
            return False
        if not written.strip():
            return True
        lead, sent_lead = leading_space(written), leading_space(sent)
        if not shifted:
            return lead == sent_lead
        return indent_width(lead, plan.tab) == max(0, indent_width(sent_lead, plan.tab) + plan.shift)

    out: list[int] = []
    for first, last in plan.new_lines:
        written = list(lines[first - 1 : last])
        if len(written) != len(given):
            out.extend(range(first, last + 1))
            continue
        out.extend(first + i for i, (w, g) in enumerate(zip(written, given, strict=True)) if not same(w, g))
    return out


def shown_lines(lines: Sequence[str], plan: EditPlan, warning_line: int | None) -> list[int]:
    """The lines an edit result shows, numbered: those written otherwise than sent (and, where
    new_string was shifted, its first line, to show the indentation), and the line a parse
    warning names when the model did not write it."""
    shown = set(_written_otherwise(lines, plan))
    if plan.shift and not plan.kept_indent:
        first = next((n for a, b in plan.new_lines for n in range(a, b + 1) if lines[n - 1].strip()), None)
        shown |= {first} if first is not None else set()
    written = {n for a, b in plan.new_lines for n in range(a, b + 1)}
    if warning_line is not None and warning_line not in written and 1 <= warning_line <= len(lines):
        shown.add(warning_line)
    return sorted(shown)


def excerpt(lines: Sequence[str], numbers: list[int], max_chars: int) -> tuple[list[str], tuple[tuple[int, int], ...]]:
    """The first ``EXCERPT_LINES`` of ``numbers`` as ``41: code`` rows, cut like ``read`` cuts
    them, a note (``Own``) naming the others for a read, and the ranges shown whole."""
    head, rest = numbers[:EXCERPT_LINES], numbers[EXCERPT_LINES:]
    rows = [f"{n}: {cut_line(lines[n - 1], max_chars)}" for n in head]
    if rest:
        more = "1 more line" if len(rest) == 1 else f"{len(rest)} more lines"
        rows.append(
            Own(
                f"({more} written otherwise, to line {rest[-1]}: read offset={rest[0]}, "
                f"limit={rest[-1] - rest[0] + 1}.)"
            )
        )
    return rows, ranges_of(n for n in head if len(lines[n - 1]) <= max_chars)


def _rule_note(plan: EditPlan) -> str:
    if plan.rule == "exact":
        return ""
    note = f" (old_string matched by the {plan.rule} rule"
    if plan.shift:
        columns = "1 column" if abs(plan.shift) == 1 else f"{abs(plan.shift)} columns"
        note += (
            "; new_string kept as given, in the file's indentation"
            if plan.kept_indent
            else f"; new_string indented {columns} {'deeper' if plan.shift > 0 else 'shallower'}, as the file"
        )
    return note + ")"


def summary(plan: EditPlan) -> str:
    """One line: which lines the edit replaced and by how many lines the file grew or shrank there
    (``Edited lines 5-7 (+2 lines).``; later lines moved by as many), how many occurrences when
    more than one, and the rule when not ``exact``."""
    old_first, old_last = plan.old_span
    new_first, new_last = plan.new_span
    if new_last < new_first:  # whole lines removed
        head = f"Removed {span(old_first, old_last)}"
    else:
        head = f"Edited {span(old_first, old_last)}"
        grown = (new_last - new_first) - (old_last - old_first)
        if grown:
            head += f" ({grown:+d} line{'' if abs(grown) == 1 else 's'})"
    if plan.count > 1:
        head = f"Replaced {plan.count} occurrences; {head[0].lower()}{head[1:]}"
    return f"{head}{_rule_note(plan)}."
