"""`grep`'s literal fallback with the real ripgrep: a pattern that is not a valid regex, or whose
regex matches nothing, is searched as literal text and the result says so; ripgrep's own error
text never reaches the model raw."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import text_of
from mcp import Client

from leanread import MemoryLedger, Session
from leanread.mcp.server import build_server
from leanread.tools.grep.literal import reads_differently

APP = "$('.x').html(json.data);\nfoo(bar)\nrange [a-z]\n"


def _grep(body: list[str], footer: str) -> str:
    """A grep result's text: the rows (and notes), then the footer when there is one."""
    while body and body[-1] == "" and not footer:
        body = body[:-1]
    return "\n".join([*body, footer] if footer else body)


def test_a_regex_that_matches_nothing_is_searched_as_literal_text(session: Session, root: Path) -> None:
    (root / "app.js").write_text(APP)
    result = session.grep(".html(json.data)")
    assert result.text == _grep(
        [
            "app.js",
            "1\t$('.x').html(json.data);",
            "",
            '(No match for the regex; these are matches of the literal text ".html(json.data)".)',
        ],
        "",
    )
    assert (result.metadata["literal"], result.metadata["total_matches"]) == (True, 1)
    assert session.read(match_id="m1", context_before=0, context_after=0).text == (
        "<path>app.js</path>\n<type>file</type>\n<content>\n$('.x').html(json.data);\n\n"
        "(Showing lines 1-1 of 3. Use offset=2 to continue.)\n</content>"
    )
    edited = session.edit("app.js", ".html(json.data)", ".text(json.data)")
    assert not edited.is_error, edited.text
    assert (root / "app.js").read_text() == APP.replace(".html(", ".text(")


@pytest.mark.parametrize(
    ("pattern", "reason", "line"),
    [
        ("foo(", "unclosed group", "2\tfoo(bar)"),
        ("[a-", "invalid character class range, the start must be <= the end", "3\trange [a-z]"),
    ],
)
def test_an_invalid_regex_is_searched_as_literal_text(
    session: Session, root: Path, pattern: str, reason: str, line: str
) -> None:
    (root / "app.js").write_text(APP)
    result = session.grep(pattern)
    assert result.text == _grep(
        ["app.js", line, "", f'(Not a valid regex ({reason}); these are matches of the literal text "{pattern}".)'],
        "",
    )
    assert not result.is_error


def test_files_only_says_it_searched_literal_text(session: Session, root: Path) -> None:
    (root / "app.js").write_text(APP)
    (root / "b.js").write_text("call foo(1)\nfoo(2)\n")
    assert session.grep("foo(", files_only=True).text == _grep(
        [
            "app.js (1 match)",
            "b.js (2 matches)",
            "",
            '(Not a valid regex (unclosed group); these are matches of the literal text "foo(".)',
        ],
        "",
    )


def test_a_regex_that_matches_is_not_searched_again(session: Session, root: Path) -> None:
    (root / "app.js").write_text(APP)
    result = session.grep("foo(bar)?")  # as a regex it matches line 2; the literal text is nowhere
    assert result.text == _grep(["app.js", "2\tfoo(bar)"], "")
    assert result.metadata["literal"] is False


def test_no_match_either_way_is_a_plain_no_match(session: Session, root: Path) -> None:
    (root / "app.js").write_text(APP)
    result = session.grep("nowhere(x)")
    assert result.text == _grep(
        [], "(No matches in the workspace; gitignored, binary and deny-listed files are not searched.)"
    )
    assert result.metadata["literal"] is False


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        (
            "nowhere(",
            "pattern is not a valid ripgrep regular expression (unclosed group), and as literal text it matches "
            "nothing either; fix the regex (Rust syntax: no look-around or backreferences).",
        ),
        (
            r"(\w+) \1",
            "pattern is not a valid ripgrep regular expression (backreferences are not supported), and as literal "
            "text it matches nothing either; fix the regex (Rust syntax: no look-around or backreferences).",
        ),
        (
            "foo\nbar",
            "pattern matches a line break, but grep matches within one line; search for one line of the text.",
        ),
        (
            r"foo\nbar",
            "pattern matches a line break, but grep matches within one line; search for one line of the text.",
        ),
        (
            "a{99999999}",
            "pattern makes a regex too big for ripgrep; use smaller repetition counts, e.g. {1,100} rather "
            "than {1,100000}.",
        ),
    ],
)
def test_what_ripgrep_refuses_is_one_sentence(session: Session, root: Path, pattern: str, message: str) -> None:
    (root / "app.js").write_text(APP)
    result = session.grep(pattern)
    assert (result.is_error, result.text) == (True, message)


def test_only_characters_a_regex_reads_otherwise_call_for_the_fallback() -> None:
    assert [reads_differently(p) for p in ("a.b", "plain", "f(x)", "a|b", "x{2", r"\d", "^a", "a$", "[a")] == [
        False,
        False,
        True,
        True,
        True,
        True,
        True,
        True,
        True,
    ]


@pytest.mark.anyio
async def test_over_mcp_the_fallback_and_the_refusal(root: Path) -> None:
    (root / "app.js").write_text(APP)
    async with Client(build_server([root], ledger=MemoryLedger())) as client:
        found = await client.call_tool("grep", {"pattern": "foo("})
        refused = await client.call_tool("grep", {"pattern": "(?=nowhere)"})
    assert (found.is_error, text_of(found)) == (
        False,
        _grep(
            [
                "app.js",
                "2\tfoo(bar)",
                "",
                '(Not a valid regex (unclosed group); these are matches of the literal text "foo(".)',
            ],
            "",
        ),
    )
    assert (refused.is_error, text_of(refused)) == (
        True,
        "pattern is not a valid ripgrep regular expression (look-around, including look-ahead and look-behind, is "
        "not supported), and as literal text it matches nothing either; fix the regex (Rust syntax: no look-around "
        "or backreferences).",
    )
