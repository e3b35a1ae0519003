"""Focus on grep: grep(focus=...) keeps the matches most relevant to a question, with real files."""

from __future__ import annotations

from pathlib import Path

import pytest
from clirun import leanread

from leanread import Limits, MemoryLedger, Session
from leanread.pruning import keep_blocks
from leanread.tools import grep as grep_tool

QUESTION = "Where is the shipping cost of a parcel computed from its weight?"

MODULES = {
    "billing.py": ["invoice_total", "apply_discount", "tax_for_region", "format_receipt", "refund_order", "late_fee"],
    "mailing.py": ["send_welcome", "send_reset", "render_template", "queue_message", "bounce_count", "unsubscribe"],
    "shipping.py": ["parcel_cost", "rate_table", "track_package", "label_address", "customs_form", "pickup_slot"],
    "users.py": ["create_user", "delete_user", "rename_user", "user_roles", "login_attempts", "password_age"],
}
DOCS = {
    "rate_table": "Shipping price per kilogram, by zone, used for every parcel.",
    "track_package": "Look up where a package is now.",
}


def _write_tree(root: Path) -> None:
    """Four modules of six small functions each: a docstring line and a body line."""
    for name, functions in MODULES.items():
        lines: list[str] = []
        for function in functions:
            doc = DOCS.get(function, f"Handle the {function.replace('_', ' ')} step of the service.")
            lines += [f"def {function}(item):", f'    """{doc}"""', "    return item", ""]
        (root / name).write_text("\n".join(lines))


@pytest.fixture
def tree(root: Path) -> Path:
    _write_tree(root)
    return root


FOCUSED = """\
[focus: kept 2 of 24 matches for "Where is the shipping cost of a parcel computed from its weight?"; omitted matches \
can be shown by grep without focus or with offset]
… 12 matches omitted (billing.py: 6, mailing.py: 6); grep without focus or with offset=1 shows them …
shipping.py
1\tdef parcel_cost(item):
\t    \"\"\"Handle the parcel cost step of the service.\"\"\"
\t    return item
5\tdef rate_table(item):
\t    \"\"\"Shipping price per kilogram, by zone, used for every parcel.\"\"\"
\t    return item
… 10 matches omitted (shipping.py: 4, users.py: 6); grep without focus or with offset=15 shows them …"""


def test_focus_keeps_the_relevant_matches(session: Session, tree: Path) -> None:
    result = session.grep("^def ", after=2, focus=QUESTION)
    assert result.text == FOCUSED
    focus = result.metadata["focus"]
    assert (focus["kept_matches"], focus["total_matches"]) == (2, 24)
    assert focus["tokens_after"] < focus["tokens_before"]
    assert [m["line"] for m in result.metadata["matches"]] == [1, 5]
    # the grant covers only the matches shown: a shown line can be edited, an omitted file cannot
    assert not session.edit("shipping.py", "def rate_table(item):", "def rate_table(entry):").is_error
    assert session.edit("users.py", "def create_user(item):", "def create_user(entry):").is_error


def test_without_focus_nothing_changes(tree: Path) -> None:
    plain = Session([tree], ledger=MemoryLedger()).grep("^def ", after=2)
    assert "focus" not in plain.metadata
    assert plain.metadata["total_matches"] == 24 and len(plain.metadata["matches"]) == 24


def test_a_match_with_a_question_term_is_never_dropped(session: Session, tree: Path) -> None:
    question = "Which shipping zone price per kilogram applies to every parcel, and what is its bounce?"
    result = session.grep("^def ", after=2, focus=question)
    shown = [(m["path"], m["line"]) for m in result.metadata["matches"]]
    # "applies" stems as apply_discount's "apply" does: its match line names the question too
    assert shown == [("billing.py", 5), ("mailing.py", 17), ("shipping.py", 1), ("shipping.py", 5)]
    # BM25 alone ranks bounce_count too low: only its match line's literal "bounce" keeps it
    blocks = [
        "def bounce_count(item):\n    return item",
        *[f"def rate_{i}(item):\n    shipping zone price per kilogram parcel bounce" for i in range(12)],
    ]
    assert 0 not in keep_blocks(blocks, [""] * len(blocks), question)
    assert 0 in keep_blocks(blocks, [b.split("\n")[0] for b in blocks], question)


def test_guards_skip_small_and_cut_outputs(session: Session, tree: Path) -> None:
    small = session.grep("^def ", path="shipping.py", focus=QUESTION)
    assert small.metadata["focus"]["skipped"] == "under 50 lines"
    assert len(small.metadata["matches"]) == 6
    capped = Session([tree], ledger=MemoryLedger(), limits=Limits(max_bytes=1500))
    cut = capped.grep("^def ", after=2, max_results=24, focus=QUESTION)  # a page of its own size
    assert cut.metadata["truncated"] == "bytes"
    assert cut.metadata["focus"]["skipped"] == "output already cut"


def test_focus_judges_matches_past_the_first_page(root: Path) -> None:
    # 150 matches: the default page holds 100, the one the question is about is the 130th
    names = [f"helper_{n}" for n in range(150)]
    names[129] = "parcel_weight_cost"
    (root / "many.py").write_text("".join(f"def {name}(item):\n    return item\n\n" for name in names))
    session = Session([root], ledger=MemoryLedger())
    result = session.grep("^def ", after=1, focus="Where is the parcel weight cost computed?")
    assert [(m["line"], m["id"]) for m in result.metadata["matches"]] == [(388, "m1")]
    assert (result.metadata["focus"]["kept_matches"], result.metadata["focus"]["total_matches"]) == (1, 150)
    assert (result.metadata["truncated"], result.metadata["next_offset"]) == (None, None)
    assert result.text.endswith(
        "… 129 matches omitted (many.py: 129); grep without focus or with offset=1 shows them …\n"
        "many.py\n"
        "388\tdef parcel_weight_cost(item):\n"
        "\t    return item\n"
        "… 20 matches omitted (many.py: 20); grep without focus or with offset=131 shows them …"
    )
    # with max_results given, the question is asked of that page alone
    page = session.grep("^def ", after=1, max_results=100, focus="Where is the parcel weight cost computed?")
    assert page.metadata["focus"]["skipped"] == "no match answers the question"


def test_a_page_of_max_results_is_pruned_within_the_page(session: Session, tree: Path) -> None:
    page = session.grep("^def ", after=2, max_results=20, focus=QUESTION)
    focus = page.metadata["focus"]
    assert (focus["kept_matches"], focus["total_matches"]) == (2, 20)
    assert page.text.endswith(
        "… 6 matches omitted (shipping.py: 4, users.py: 2); grep without focus or with offset=15 shows them …\n\n"
        "(Showing matches 1-20 of 24 in 4 files. Use offset=21 to continue, or narrow the search with path, "
        "glob or type.)"
    )
    assert page.metadata["next_offset"] == 21


def test_fail_open(root: Path, tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> list[int]:
        raise RuntimeError("scorer down")

    plain = Session([root], ledger=MemoryLedger()).grep("^def ", after=2)
    monkeypatch.setattr(grep_tool.pruning, "keep_blocks", broken)
    result = Session([root], ledger=MemoryLedger()).grep("^def ", after=2, focus=QUESTION)
    assert result.text == plain.text
    assert result.metadata["focus"]["fail_open"] == "RuntimeError: scorer down"


def test_focus_through_the_cli(tree: Path) -> None:
    done = leanread("grep", "^def ", "--after", "2", "--focus", QUESTION, cwd=tree)
    assert done.returncode == 0, done.stderr
    assert done.stdout == FOCUSED + "\n"


def test_question_repeating_the_pattern_word_still_prunes(session: Session, tree: Path) -> None:
    # "item" is in every match line: it tells no match apart, so it keeps none by itself
    question = "Which item function computes the shipping cost of a parcel from its weight?"
    result = session.grep("item", after=1, focus=question)
    assert (result.metadata["focus"]["kept_matches"], result.metadata["focus"]["total_matches"]) == (2, 48)
    assert [(m["path"], m["line"]) for m in result.metadata["matches"]] == [("shipping.py", 1), ("shipping.py", 5)]
    assert "… 1 match omitted (shipping.py: 1); grep without focus or with offset=26 shows it …\n" in result.text


def test_a_focused_grep_stays_within_the_byte_cap_and_the_unfocused_page(root: Path) -> None:
    names = [f"parcel_helper_{n}" if n % 3 == 0 else f"helper_{n}" for n in range(150)]
    (root / "many.py").write_text("".join(f"def {name}(item):\n    return item\n\n" for name in names))
    question = "Which parcel helper returns the item?"
    for cap in (2_000, 3_000, 5_000, 8_000, 50 * 1024):
        session = Session([root], ledger=MemoryLedger(), limits=Limits(max_bytes=cap))
        plain = Session([root], ledger=MemoryLedger(), limits=Limits(max_bytes=cap)).grep("^def ", after=1)
        focused = session.grep("^def ", after=1, focus=question)
        assert len(focused.text.encode()) <= cap
        assert focused.metadata["tokens"] <= plain.metadata["tokens"]
        if "kept_matches" in focused.metadata["focus"]:
            assert focused.metadata["focus"]["tokens_before"] == plain.metadata["tokens"]
