"""editing: the matching rules of ``edit``, the plan they give, and every refusal's exact words."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from leanread.code.edit_plan import EditPlan, find_marker, plan_edit, refuse_markers
from leanread.errors import InvalidArgument, MarkerInEdit, MultipleMatches, NoChange, NoMatch
from leanread.view.formats import decorate

APP = "def f():\n    x = 1\n    y = 2\n    return x\n\ndef g():\n    x = 1\n"


def refused(error: type[Exception], text: str, old: str, new: str, **options: object) -> str:
    with pytest.raises(error) as err:
        plan_edit(text, old, new, **options)  # type: ignore[arg-type]
    return str(err.value)


def file_lines(text: str) -> list[str]:
    """The lines of a logical text, as ``read`` counts them."""
    if not text:
        return []
    lines = text.split("\n")
    return lines[:-1] if text.endswith("\n") else lines


def arrow(number: int, line: str) -> str:
    """Claude Code's read format: number right-aligned in 6 columns, then an arrow."""
    return f"{number:>6}→{line}"


def decorated(first: int, lines: list[str], fmt: str) -> str:
    if fmt == "arrow":
        return "\n".join(arrow(first + i, line) for i, line in enumerate(lines))
    return "\n".join(decorate(first + i, line, fmt) for i, line in enumerate(lines))  # type: ignore[arg-type]


# --- exact -------------------------------------------------------------------------------------------


def test_exact_match_plan() -> None:
    assert plan_edit(APP, "y = 2", "y = 3") == EditPlan(
        new_text=APP.replace("y = 2", "y = 3"), rule="exact", count=1, old_lines=((3, 3),), new_lines=((3, 3),)
    )


def test_replace_all_replaces_every_match_and_lists_each_range() -> None:
    assert plan_edit(APP, "x = 1", "x = 9", replace_all=True) == EditPlan(
        new_text=APP.replace("x = 1", "x = 9"),
        rule="exact",
        count=2,
        old_lines=((2, 2), (7, 7)),
        new_lines=((2, 2), (7, 7)),
    )


def test_replace_all_merges_matches_on_one_line() -> None:
    plan = plan_edit("a x x\nb\nx\n", "x", "yy\nz", replace_all=True)
    assert plan.new_text == "a yy\nz yy\nz\nb\nyy\nz\n"
    assert (plan.count, plan.old_lines, plan.new_lines) == (3, ((1, 1), (3, 3)), ((1, 3), (5, 6)))


@pytest.mark.parametrize(
    ("text", "old", "new", "after", "old_lines", "new_lines"),
    [
        # a whole line removed: the new range is empty, at the line that followed
        ("a\nb\nc\n", "b\n", "", "a\nc\n", ((2, 2),), ((2, 1),)),
        ("a\nb\n", "b\n", "", "a\n", ((2, 2),), ((2, 1),)),
        ("a\nb", "b", "", "a\n", ((2, 2),), ((2, 1),)),
        # part of a line removed: the line is still there, changed
        ("a\nbar\nc", "ba", "", "a\nr\nc", ((2, 2),), ((2, 2),)),
        # a removed line ending joins the next line onto the changed one
        ("foo a\nb", "a\n", "", "foo b", ((1, 2),), ((1, 1),)),
        ("foo a\n", "a\n", "", "foo ", ((1, 1),), ((1, 1),)),
        # lines added
        ("a\nb\nc\n", "b\n", "x\ny\nz\n", "a\nx\ny\nz\nc\n", ((2, 2),), ((2, 4),)),
        ("a\nb\nc", "b", "x\ny", "a\nx\ny\nc", ((2, 2),), ((2, 3),)),
        # lines joined
        ("a\nb\nc\n", "a\nb", "ab", "ab\nc\n", ((1, 2),), ((1, 1),)),
    ],
)
def test_line_ranges_of_the_change(
    text: str,
    old: str,
    new: str,
    after: str,
    old_lines: tuple[tuple[int, int], ...],
    new_lines: tuple[tuple[int, int], ...],
) -> None:
    plan = plan_edit(text, old, new)
    assert (plan.new_text, plan.old_lines, plan.new_lines) == (after, old_lines, new_lines)


def test_new_string_line_endings_follow_the_file() -> None:
    # A file without CRs is edited on "\n" lines: a CRLF in new_string can only mean a line ending.
    assert plan_edit("a\nb\n", "b", "c\r\nd").new_text == "a\nc\nd\n"
    # A file whose lines hold CRs keeps new_string as given.
    assert plan_edit("a\rx\nb\n", "b", "c\rd").new_text == "a\rx\nc\rd\n"


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(st.sampled_from("ab x=\n\t"), max_size=60),
    start=st.integers(min_value=0),
    length=st.integers(min_value=1, max_value=12),
    new=st.text(st.sampled_from("cd y\n\t"), max_size=12),
)
def test_a_unique_substring_is_replaced_exactly(text: str, start: int, length: int, new: str) -> None:
    assume(text)
    start %= len(text)
    old = text[start : start + length]
    assume(text.count(old) == 1 and text.find(old, text.find(old) + 1) == -1 and old != new)
    plan = plan_edit(text, old, new)
    assert (plan.rule, plan.count, plan.new_text) == ("exact", 1, text.replace(old, new, 1))
    # Outside the ranges, the lines before and after are the same in both texts.
    ((a, b),), ((c, d),) = plan.old_lines, plan.new_lines
    before, after = file_lines(text), file_lines(plan.new_text)
    assert a == c and a <= b + 1 and c <= d + 1
    assert before[: a - 1] == after[: c - 1]
    assert before[b:] == after[d:]


# --- line endings -------------------------------------------------------------------------------------


def test_line_endings_rule() -> None:
    plan = plan_edit(APP, "    x = 1\r\n    y = 2", "    x = 1\r\n    y = 5\r")
    assert plan == EditPlan(
        new_text=APP.replace("y = 2", "y = 5\n"),
        rule="line-endings",
        count=1,
        old_lines=((2, 3),),
        new_lines=((2, 4),),
    )
    assert plan_edit("a\nb\nc", "a\rb", "x").rule == "line-endings"


def test_same_text_after_normalising_is_no_change() -> None:
    assert refused(NoChange, "a\nb\n", "a\r\nb", "a\nb") == "old_string and new_string are the same; nothing to change."


# --- line numbers -------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["tab", "colon", "catn", "arrow"])
def test_copied_line_numbers_are_stripped_from_old_and_new(fmt: str) -> None:
    old = decorated(2, ["    x = 1", "    y = 2"], fmt)
    new = decorated(2, ["    x = 1", "    y = 7", ""], fmt)
    assert plan_edit(APP, old, new) == EditPlan(
        new_text=APP.replace("y = 2", "y = 7\n"),
        rule="line-numbers",
        count=1,
        old_lines=((2, 3),),
        new_lines=((2, 4),),
    )
    # new_string given plain
    assert plan_edit(APP, old, "    x = 1\n    y = 7").new_text == APP.replace("y = 2", "y = 7")


def test_copied_line_numbers_pick_the_match_on_that_line() -> None:
    plan = plan_edit(APP, "7\t    x = 1", "7\t    x = 11")
    assert (plan.rule, plan.old_lines, plan.new_text) == ("line-numbers", ((7, 7),), APP[:-2] + "11\n")
    # a number that names none of the matches leaves the choice to the model
    assert refused(MultipleMatches, APP, "5\t    x = 1", "5\t    x = 11") == (
        "old_string matches 2 places (lines 2, 7); add surrounding lines to make it unique, or pass replace_all=true."
    )


def test_numbered_empty_lines_may_have_lost_their_tab() -> None:
    text = "a\n\nb\n"
    assert plan_edit(text, "1\ta\n2\n3\tb", "1\ta\n2\n3\tc").new_text == "a\n\nc\n"
    assert plan_edit(text, "     1→a\n\n     3→b\n", "x\n").new_text == "x\n"
    assert plan_edit(text, "1: a\n2:\n3: b", "1: a\n2:\n3: c").new_text == "a\n\nc\n"


def test_line_numbers_must_be_consecutive_and_consistent() -> None:
    text = "a\nb\nc\n"
    assert refused(NoMatch, text, "1\ta\n3\tb", "x").startswith("old_string was not found;")
    assert refused(NoMatch, text, "1\ta\n2: b", "x").startswith("old_string was not found;")


def test_line_numbers_are_not_stripped_when_old_string_matched_as_given() -> None:
    text = "1\tone\n2\ttwo\n"  # a TSV file whose first column looks like line numbers
    plan = plan_edit(text, "1\tone", "1\tuno")
    assert (plan.rule, plan.new_text) == ("exact", "1\tuno\n2\ttwo\n")


def test_numbers_on_some_lines_of_new_string_only_are_refused() -> None:
    assert refused(MarkerInEdit, APP, "2\t    x = 1\n3\t    y = 2", "2\t    x = 1\n    y = 7") == (
        "new_string has copied line-number prefixes on some lines but not on others; "
        "give new_string as plain text, without line numbers."
    )


@st.composite
def numbered_edits(draw: st.DrawFn) -> tuple[str, list[str], int, list[str]]:
    """A text, a block of its lines occurring once (1-based first line), and new lines."""
    line = st.text(st.sampled_from("ab x=():"), max_size=8)
    lines = draw(st.lists(line, min_size=1, max_size=12))
    text = "\n".join(lines) + draw(st.sampled_from(["", "\n"]))
    first = draw(st.integers(min_value=1, max_value=len(lines)))
    height = draw(st.integers(min_value=1, max_value=len(lines) - first + 1))
    block = lines[first - 1 : first - 1 + height]
    new = draw(st.lists(st.text(st.sampled_from("cd y;"), max_size=8), min_size=1, max_size=4))
    return text, block, first, new


@settings(max_examples=200, deadline=None)
@given(edit=numbered_edits(), fmt=st.sampled_from(["tab", "colon", "catn", "arrow"]), numbered_new=st.booleans())
def test_decorated_copies_give_the_plain_edits_result(
    edit: tuple[str, list[str], int, list[str]], fmt: str, numbered_new: bool
) -> None:
    text, block, first, new_lines = edit
    old, new = "\n".join(block), "\n".join(new_lines)
    assume(old.strip() and old != new)
    assume(text.count(old) == 1 and text.find(old, text.find(old) + 1) == -1)
    plain = plan_edit(text, old, new)
    copied = plan_edit(text, decorated(first, block, fmt), decorated(first, new_lines, fmt) if numbered_new else new)
    assert copied.rule == "line-numbers"
    assert (copied.new_text, copied.old_lines, copied.new_lines) == (plain.new_text, plain.old_lines, plain.new_lines)


# --- the visible format --------------------------------------------------------------------------------

VISIBLE_OLD = (
    "old_string contains the visible format's markers (^I, $); they are display only: "
    "copy the text from a plain read instead (read with fresh=true if a plain read gives a stub)."
)


@pytest.mark.parametrize(
    "old",
    [
        "   2\t^Ix = 1$\n   3\t^Iy = 2$",  # copied from a visible read
        "   2\t    x = 1$",
        "^Ix = 1",  # numbers dropped, markers kept
        "    x = 1$\n    y = 2$",
    ],
)
def test_visible_markers_in_old_string_are_refused(old: str) -> None:
    assert refused(MarkerInEdit, APP, old, "z") == VISIBLE_OLD


def test_visible_markers_that_are_file_text_are_edited_as_text() -> None:
    text = 'assert show("\\t") == "^I"\nx = "$"\ny = "$"\n'
    assert plan_edit(text, '== "^I"', '== "^M"').rule == "exact"
    assert plan_edit(text, 'x = "$"\ny = "$"', "z").new_text == 'assert show("\\t") == "^I"\nz\n'


def test_visible_markers_added_by_new_string_alone_are_refused() -> None:
    text = "def f():\n\treturn 1\n"
    message = (
        "new_string contains the visible format's markers (^I, $); they are display only: "
        "give new_string as plain text instead."
    )
    assert refused(MarkerInEdit, text, "return 1", "return 2$") == message
    assert refused(MarkerInEdit, text, "\treturn 1", "^Ireturn 2") == message
    assert plan_edit(text, "return 1", "return '$'").rule == "exact"  # a $ that is not at every line end


def test_pasted_notices_and_envelope_lines_are_refused() -> None:
    for pasted in (
        "x = 1\n(End of file - total 2 lines)",
        "x = 1\n(File is cp1252-encoded; edits keep that encoding.)",
        "x = 1\n(a.py changed since you read it; the lines marked unchanged are as you saw them.)",
        "<path>a.py</path>\n<type>file</type>\n<content>\nx = 1\n</content>",
        "x = 1\n<system-reminder>\nrules\n</system-reminder>",
    ):
        assert refused(MarkerInEdit, APP, "y = 2", pasted).startswith("new_string contains leanread's marker")


def test_visible_decorations_in_new_string_are_refused() -> None:
    assert refused(MarkerInEdit, APP, "y = 2", "   3\t^Iy = 3$") == (
        "new_string contains the visible format's markers (^I, $); they are display only: "
        "give new_string as plain text instead."
    )


# --- whitespace -----------------------------------------------------------------------------------------


def test_trailing_whitespace_is_forgiven_and_unchanged_lines_keep_the_files_bytes() -> None:
    text = "a = 1  \nb = 2\t\nc = 3\n"
    plan = plan_edit(text, "a = 1\nb = 2  ", "a = 1\nb = 5")
    assert plan == EditPlan(
        new_text="a = 1  \nb = 5\nc = 3\n", rule="whitespace", count=1, old_lines=((1, 2),), new_lines=((1, 2),)
    )


def test_a_uniform_indentation_shift_is_forgiven_and_new_string_follows_it() -> None:
    # old_string copied without the block's indentation
    plan = plan_edit(APP, "x = 1\ny = 2\n", "x = 1\nif y:\n    y = 3\n")
    assert plan == EditPlan(
        new_text=APP.replace("    y = 2\n", "    if y:\n        y = 3\n"),
        rule="whitespace",
        count=1,
        old_lines=((2, 3),),
        new_lines=((2, 4),),
        shift=4,
    )


def test_spaces_for_tabs_are_forgiven_and_new_string_gets_tabs() -> None:
    text = "def f():\n\tx = 1\n\tif x:\n\t\treturn x\n"
    plan = plan_edit(text, "    if x:\n        return x", "    if x:\n        x += 1\n        return x")
    assert (plan.rule, plan.new_text) == ("whitespace", "def f():\n\tx = 1\n\tif x:\n\t\tx += 1\n\t\treturn x\n")


def test_line_numbers_and_whitespace_together() -> None:
    plan = plan_edit(APP, "2\tx = 1\n3\ty = 2", "2\tx = 1\n3\ty = 4")
    assert (plan.rule, plan.new_text) == ("line-numbers+whitespace", APP.replace("y = 2", "y = 4"))


def test_copied_line_numbers_pick_among_loose_matches_too() -> None:
    text = "if a:\n    go()\nif b:\n  go()\n"
    plan = plan_edit(text, "4\tgo()", "4\tstop()")
    assert (plan.rule, plan.new_text) == ("line-numbers+whitespace", "if a:\n    go()\nif b:\n  stop()\n")


def test_whitespace_rule_finds_several_matches() -> None:
    text = "if a:\n    go()\nif b:\n  go()\n"
    assert refused(MultipleMatches, text, "go()  ", "stop()") == (
        "old_string matches 2 places (lines 2, 4); add surrounding lines to make it unique, or pass replace_all=true."
    )
    plan = plan_edit(text, "go()  ", "stop()", replace_all=True)
    assert (plan.count, plan.new_text) == (2, "if a:\n    stop()\nif b:\n  stop()\n")


def test_old_string_with_a_final_newline_at_the_end_of_a_file_without_one() -> None:
    plan = plan_edit("a\n  b", "b  \n", "c\n")
    assert (plan.rule, plan.new_text) == ("whitespace", "a\n  c")


def test_only_whitespace_is_never_matched_loosely() -> None:
    assert refused(NoMatch, "a\n\nb\n", "  \n", "x") == (
        "old_string was not found, nor anything close to it; "
        "read the lines you mean to change and copy old_string from them exactly."
    )


# --- refusals -------------------------------------------------------------------------------------------


def test_empty_old_string() -> None:
    assert refused(InvalidArgument, APP, "", "x") == "old_string is empty; to create or overwrite a file use write."


def test_same_strings() -> None:
    assert refused(NoChange, APP, "y = 2", "y = 2") == "old_string and new_string are the same; nothing to change."


def test_several_matches_list_their_lines() -> None:
    text = "x\n" * 3
    assert refused(MultipleMatches, text, "x", "y") == (
        "old_string matches 3 places (lines 1, 2, 3); "
        "add surrounding lines to make it unique, or pass replace_all=true."
    )
    assert refused(MultipleMatches, "aaa", "aa", "b") == (
        "old_string matches 2 places (line 1); add surrounding lines to make it unique, or pass replace_all=true."
    )
    assert refused(MultipleMatches, "x\n" * 13, "x", "y") == (
        "old_string matches 13 places (lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 3 more); "
        "add surrounding lines to make it unique, or pass replace_all=true."
    )


def test_no_match_quotes_the_closest_lines() -> None:
    text = "import os\n\ndef run(path):\n    data = load(path)\n    return data\n"
    message = refused(NoMatch, text, "data = load(paht)\nreturn data", "x")
    assert message == (
        "old_string was not found; lines 4-5 come closest, where 1 of 2 lines differs "
        "(copy old_string exactly from the file's lines):\n"
        "4:     data = load(path)"
    )
    assert refused(NoMatch, text, "def runn(path):", "x") == (
        "old_string was not found; line 3 comes closest "
        "(copy old_string exactly from the file's lines):\n"
        "3: def run(path):"
    )


def test_no_match_quote_is_short() -> None:
    text = "".join(f"line number {n}\n" for n in range(1, 31)) + "x" * 300 + "\n"
    old = "".join(f"line numbr {n}\n" for n in range(20, 31)) + "x" * 299
    message = refused(NoMatch, text, old, "y")
    assert message.splitlines()[0] == (
        "old_string was not found; lines 20-31 come closest "
        "(first 8 of 12 shown; copy old_string exactly from the file's lines):"
    )
    assert message.splitlines()[1:] == [f"{n}: line number {n}" for n in range(20, 28)]
    long = refused(NoMatch, "x" * 300 + "\n", "x" * 299 + "y", "z").splitlines()[1]
    assert long == "1: " + "x" * 200 + "… (300 chars in all)"


def test_no_match_in_an_empty_file() -> None:
    assert refused(NoMatch, "", "x", "y") == (
        "old_string was not found: the file is empty; use write to give it content."
    )


def test_no_match_finds_the_closest_window_in_a_big_file_quickly() -> None:
    lines = [f"    value_{n} = compute({n}, scale={n % 7})" for n in range(20_000)]
    text = "\n".join(lines) + "\n"
    message = refused(NoMatch, text, "value_12345 = compute(12345, scale=99)", "x")
    assert message.splitlines()[1] == "12346:     value_12345 = compute(12345, scale=4)"


# --- markers ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "marker"),
    [
        ("x = 'abc… [line cut: 12,000 chars in all]", "… [line cut: 12,000 chars in all]"),
        ("a\n… lines 40-80 unchanged since call r3 …\nb", "… lines 40-80 unchanged since call r3 …"),
        ("a\n  … lines 12-30 omitted …\n", "… lines 12-30 omitted …"),
        ("… [lines 40-80 unchanged, shown in call r3]", "… [lines 40-80 unchanged, shown in call r3]"),
        (
            "(Lines 1-120 unchanged since call r1, still in your context. Use fresh=true to see them again.)",
            "(Lines 1-120 unchanged since call r1, still in your context. Use fresh=true to see them again.)",
        ),
        (
            "x\n(Output capped at 50 KB. Showing lines 1-2000 of 5000. Use offset=2001 to continue.)\n",
            "(Output capped at 50 KB. Showing lines 1-2000 of 5000. Use offset=2001 to continue.)",
        ),
        ("data<response clipped><NOTE>To save on context", "<response clipped>"),
        # the wording render.py uses today
        ("… lines 1-10 unchanged since you read them …", "… lines 1-10 unchanged since you read them …"),
        ("a\n… line 5 unchanged since you read it as line 7 …", "… line 5 unchanged since you read it as line 7 …"),
        (
            "(Lines 1-20 unchanged since you read them, still in your context. Use fresh=true to see them again.)",
            "(Lines 1-20 unchanged since you read them, still in your context. Use fresh=true to see them again.)",
        ),
        (
            "(Line 3 is longer than 2,000 characters and was cut where marked; "
            "read the rest with offset=3, char_offset=2001.)",
            "(Line 3 is longer than 2,000 characters and was cut where marked; "
            "read the rest with offset=3, char_offset=2001.)",
        ),
    ],
)
def test_find_marker_finds_each_marker(text: str, marker: str) -> None:
    assert find_marker(text) == marker


@pytest.mark.parametrize(
    "text",
    [
        'CUT = "… [line cut: 3,000 chars in all]"',  # inside a string literal: code about markers
        'assert out == "(Lines 3-9 unchanged since calls r4, r2, still in your context.)"',
        "# lines 3-5 omitted for brevity",
        "the lines 40-80 unchanged",
        "plain text\n",
    ],
)
def test_find_marker_ignores_the_same_words_in_code(text: str) -> None:
    assert find_marker(text) is None


def test_markers_in_new_string_are_refused() -> None:
    assert refused(MarkerInEdit, APP, "return x", "return x… [line cut: 5,000 chars in all]") == (
        'new_string contains the read tool\'s line-cut marker "… [line cut: 5,000 chars in all]", which stands '
        "for text you were not shown; read the rest of that line with char_offset and give the line in full."
    )
    assert refused(MarkerInEdit, APP, "return x", "… lines 3-5 unchanged since call r2 …") == (
        'new_string contains leanread\'s marker "… lines 3-5 unchanged since call r2 …", which stands for lines '
        "left out of a read; give the real lines instead (read them with fresh=true if you no longer have them)."
    )
    assert refused(MarkerInEdit, APP, "return x", "return x <response clipped>") == (
        'new_string contains a "<response clipped>" marker, which stands for text cut from a tool result; '
        "give the full text instead."
    )


def test_a_marker_the_file_really_holds_may_stay() -> None:
    text = "a\n… lines 1-2 omitted …\nb\n"
    assert plan_edit(text, "a\n… lines 1-2 omitted …", "c\n… lines 1-2 omitted …").new_text == (
        "c\n… lines 1-2 omitted …\nb\n"
    )


def test_a_marker_copied_into_old_string_is_named() -> None:
    assert refused(MarkerInEdit, "x = 'abcdef'\n", "x = 'abc… [line cut: 9,000 chars in all]", "y") == (
        'old_string contains the read tool\'s line-cut marker "… [line cut: 9,000 chars in all]", which stands '
        "for text you were not shown; read the rest of that line with char_offset and give the line in full."
    )


def test_refuse_markers_for_the_write_tool() -> None:
    refuse_markers("plain content\n", argument="content")
    with pytest.raises(MarkerInEdit, match=r'^content contains a "<response clipped>" marker'):
        refuse_markers("a <response clipped>", argument="content")
    refuse_markers("a <response clipped>", argument="content", allowed="old a <response clipped>")
    # a marker the old text holds does not let another one through
    with pytest.raises(MarkerInEdit, match=r"^new_string contains leanread's marker \"… lines 3-4 omitted …\""):
        refuse_markers("x <response clipped>\n… lines 3-4 omitted …\n", allowed="<response clipped>")


# --- bytes that are not valid UTF-8 ----------------------------------------------------------------------

# "caf\xe9" in a UTF-8 file: the byte 0xE9 kept as a surrogateescape code point; read shows U+FFFD.
ESCAPED = "name = 'caf\udce9'\nvalue = 1\n"


def test_matching_sees_escaped_bytes_as_read_shows_them() -> None:
    plan = plan_edit(ESCAPED, "value = 1", "value = 2")
    assert plan.new_text == "name = 'caf\udce9'\nvalue = 2\n"
    # new_string keeps the U+FFFD it was shown: the byte it stands for comes back
    plan = plan_edit(ESCAPED, "name = 'caf\ufffd'", "name = 'caf\ufffd!'")
    assert (plan.rule, plan.new_text) == ("exact", "name = 'caf\udce9!'\nvalue = 1\n")
    # new_string drops it: the model rewrote the text, so what it wrote is what the file gets
    assert plan_edit(ESCAPED, "'caf\ufffd'", "'cafe'").new_text == "name = 'cafe'\nvalue = 1\n"


def test_escaped_bytes_survive_the_whitespace_rule() -> None:
    plan = plan_edit(ESCAPED, "name = 'caf\ufffd'  \nvalue = 1", "name = 'caf\ufffd'\nvalue = 3")
    assert (plan.rule, plan.new_text) == ("whitespace", "name = 'caf\udce9'\nvalue = 3\n")


def test_real_replacement_characters_stay() -> None:
    # a real U+FFFD of the file and an escaped byte, both shown as U+FFFD, each come back as they were
    text = "a = '\ufffd'\nb = '\udcff'\n"
    plan = plan_edit(text, "a = '\ufffd'\nb = '\ufffd'", "a = '\ufffd'\nb = '\ufffd'\nc = 1")
    assert plan.new_text == "a = '\ufffd'\nb = '\udcff'\nc = 1\n"
