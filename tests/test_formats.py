"""Line decorations: each format's exact look, and that taking it off gives the line back."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from leanread.view.formats import FORMATS, decorate, hide_controls, show_controls, undecorate

# Any character a line can hold (no line feed), with controls, carets and marker look-alikes.
line_text = st.lists(
    st.one_of(
        st.characters(blacklist_characters="\n", blacklist_categories=("Cs",)),
        st.sampled_from(["^", "^I", "^^", "\t", "\r", "\x1e", "\x7f", "$", "\x00", "~", "I", "@"]),
    ),
    max_size=30,
).map("".join)


@pytest.mark.parametrize(
    ("fmt", "shown"),
    [
        ("plain", "\tx = 1"),
        ("tab", "41\t\tx = 1"),
        ("colon", "41: \tx = 1"),
        ("catn", "    41\t\tx = 1"),
        ("visible", "  41\t^Ix = 1$"),
    ],
)
def test_each_format_looks_as_documented(fmt: str, shown: str) -> None:
    assert decorate(41, "\tx = 1", fmt) == shown  # type: ignore[arg-type]


def test_visible_controls_and_carets() -> None:
    assert show_controls("a\tb\rc\x01d\x7f") == "a^Ib^Mc^Ad^?"
    assert show_controls("x ^ y") == "x ^ y"  # a caret that cannot start a marker stays single
    assert show_controls("^I") == "^^I"  # a literal "^I" is not a tab
    assert show_controls("^\t") == "^^^I"
    assert show_controls("\x1e") == "^~"


@given(line=line_text, number=st.integers(min_value=1, max_value=10**7), fmt=st.sampled_from(FORMATS))
def test_undecorate_inverts_decorate(line: str, number: int, fmt: str) -> None:
    assert undecorate(decorate(number, line, fmt), fmt) == line  # type: ignore[arg-type]


@given(line=line_text)
def test_hide_controls_inverts_show_controls(line: str) -> None:
    assert hide_controls(show_controls(line)) == line


def test_undecorate_refuses_a_line_without_the_decoration() -> None:
    with pytest.raises(ValueError, match="does not start with a tab line number"):
        undecorate("no number here", "tab")
    with pytest.raises(ValueError, match="does not end with the visible format's"):
        undecorate("   1\tcode", "visible")
