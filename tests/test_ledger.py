"""ledger: what the model still has; stubs for unchanged re-reads, full text otherwise."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from leanread import MemoryLedger, Session, count_tokens

LINES = [f"    result_{i} = transform(payload, option={i})" for i in range(1, 61)]


def stub(path: str, first: int, last: int, total: int = 60, capped: str = "") -> str:
    """The stub for lines first..last of a file of ``total`` lines; the calls it stands for are
    in the result's metadata (``unchanged_since``), not in the text."""
    if last == total:
        notice = f"(End of file - total {total} line{'' if total == 1 else 's'})"
    else:
        notice = f"({capped}Showing lines {first}-{last} of {total}. Use offset={last + 1} to continue.)"
    return (
        f"<path>{path}</path>\n<type>file</type>\n<content>\n"
        f"(Lines {first}-{last} unchanged since you read them, still in your context. "
        f"Use fresh=true to see them again.)\n\n{notice}\n</content>"
    )


def full(path: str, lines: list[str], first: int, last: int, total: int) -> str:
    notice = (
        f"(End of file - total {total} line{'' if total == 1 else 's'})"
        if last == total
        else f"(Showing lines {first}-{last} of {total}. Use offset={last + 1} to continue.)"
    )
    head = [f"<path>{path}</path>", "<type>file</type>", "<content>"]
    return "\n".join([*head, *lines[first - 1 : last], "", notice, "</content>"])


@pytest.fixture
def mod(root: Path) -> Path:
    path = root / "mod.py"
    path.write_text("\n".join(LINES) + "\n")
    return path


# --- the ledger store -----------------------------------------------------------------------


def test_same_range_reread_is_a_stub(session: Session, mod: Path) -> None:
    first = session.read("mod.py")
    assert first.text == full("mod.py", LINES, 1, 60, 60)
    again = session.read("mod.py")
    assert again.text == stub("mod.py", 1, 60)
    meta = again.metadata
    assert meta["call_id"] == "r2"
    assert meta["unchanged_since"] == ["r1"]
    assert meta["tokens"] == count_tokens(again.text)
    assert meta["full_tokens"] == first.metadata["tokens"]
    assert meta["tokens"] < meta["full_tokens"]
    assert (meta["offset"], meta["last_line"], meta["total_lines"]) == (1, 60, 60)
    # a stub shows no lines anew: its record holds none (it is there so rewind/compact know the call)
    views = session.ledger.views_of(session.id, os.path.realpath(mod))
    assert [(r.call_id, r.ranges) for r in views] == [("r1", ((1, 60),)), ("r2", ())]


def test_sub_range_is_a_stub(session: Session, mod: Path) -> None:
    session.read("mod.py")
    assert session.read("mod.py", offset=10, limit=11).text == stub("mod.py", 10, 20)


def test_range_partly_outside_shows_only_the_new_lines(session: Session, mod: Path) -> None:
    session.read("mod.py", offset=1, limit=20)
    result = session.read("mod.py", offset=15, limit=16)
    assert result.text == "\n".join(
        [
            "<path>mod.py</path>",
            "<type>file</type>",
            "<content>",
            "… lines 15-20 unchanged since you read them …",
            *LINES[20:30],
            "",
            "(Showing lines 15-30 of 60. Use offset=31 to continue.)",
            "</content>",
        ]
    )
    assert result.metadata["unchanged_since"] == ["r1"]
    assert result.metadata["mode"] == "elided"
    # lines 21-30 are now known from r2: the whole window is a stub naming both calls
    assert session.read("mod.py", offset=15, limit=16).text == stub("mod.py", 15, 30)


def test_range_covered_by_two_calls(session: Session, mod: Path) -> None:
    session.read("mod.py", offset=1, limit=20)
    session.read("mod.py", offset=21, limit=20)
    assert session.read("mod.py", offset=5, limit=30).text == stub("mod.py", 5, 34)


def test_lines_had_from_two_calls_side_by_side_are_one_marker(session: Session, mod: Path) -> None:
    session.read("mod.py", offset=1, limit=10)
    session.read("mod.py", offset=11, limit=10)
    result = session.read("mod.py", offset=1, limit=30)
    assert result.text == "\n".join(
        [
            "<path>mod.py</path>",
            "<type>file</type>",
            "<content>",
            "… lines 1-20 unchanged since you read them …",
            *LINES[20:30],
            "",
            "(Showing lines 1-30 of 60. Use offset=31 to continue.)",
            "</content>",
        ]
    )
    assert (result.metadata["mode"], result.metadata["unchanged_since"]) == ("elided", ["r1", "r2"])


def test_forgotten_read_earns_no_stub(session: Session, mod: Path) -> None:
    session.read("mod.py")
    assert session.forget(["r1"]) == 1
    result = session.read("mod.py")
    assert result.text == full("mod.py", LINES, 1, 60, 60)
    assert result.metadata["unchanged_since"] is None
    # the new full read is what a later stub points to
    assert session.read("mod.py").text == stub("mod.py", 1, 60)
    assert session.forget(["r1"]) == 0


def test_changed_bytes_give_a_diff_against_what_was_shown(session: Session, mod: Path) -> None:
    session.read("mod.py")
    changed = [*LINES]
    changed[29] = "    result_30 = transform(payload, option=-1)"
    mod.write_text("\n".join(changed) + "\n")
    result = session.read("mod.py")
    assert result.text == "\n".join(
        [
            "<path>mod.py</path>",
            "<type>diff</type>",
            "<content>",
            "(mod.py changed since you read it. Lines 1-60 as a diff against what you were shown; "
            "lines outside the hunks are unchanged.)",
            "@@ -29,3 +29,3 @@",
            " " + LINES[28],
            "-" + LINES[29],
            "+" + changed[29],
            " " + LINES[30],
            "",
            "(End of file - total 60 lines)",
            "</content>",
        ]
    )
    assert result.metadata["mode"] == "diff"
    # the unchanged lines stay known through r1, carried onto the new version
    assert session.read("mod.py", offset=1, limit=10).text == stub("mod.py", 1, 10)
    assert session.read("mod.py", offset=26, limit=10).text == stub("mod.py", 26, 35)  # the hunk's lines too


def test_same_size_edit_with_same_mtime_still_gives_full_text(session: Session, mod: Path) -> None:
    before = mod.stat()
    session.read("mod.py")
    mod.write_text("\n".join(LINES).replace("payload", "PAYLOAD") + "\n")
    os.utime(mod, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert mod.stat().st_size == before.st_size
    result = session.read("mod.py", offset=1, limit=5)
    assert result.metadata["unchanged_since"] is None
    assert "    result_1 = transform(PAYLOAD, option=1)" in result.text


def test_touch_with_same_bytes_keeps_the_stub(session: Session, mod: Path) -> None:
    session.read("mod.py")
    stat = mod.stat()
    os.utime(mod, ns=(stat.st_atime_ns + 10**9, stat.st_mtime_ns + 10**9))
    result = session.read("mod.py")
    assert result.text == stub("mod.py", 1, 60)
    assert result.metadata["mtime_ns"] == stat.st_mtime_ns + 10**9


def test_fresh_gives_full_text_and_becomes_the_source(session: Session, mod: Path) -> None:
    session.read("mod.py")
    result = session.read("mod.py", fresh=True)
    assert result.text == full("mod.py", LINES, 1, 60, 60)
    assert result.metadata["unchanged_since"] is None
    assert session.read("mod.py").text == stub("mod.py", 1, 60)


def test_stub_names_the_harness_call_id(session: Session, mod: Path) -> None:
    session.read("mod.py", call_id="toolu_01ABC")
    result = session.read("mod.py", offset=3, limit=9, call_id="toolu_02DEF")
    assert result.text == stub("mod.py", 3, 11)
    assert result.metadata["call_id"] == "toolu_02DEF"
    assert result.metadata["unchanged_since"] == ["toolu_01ABC"]


def test_other_spellings_and_links_of_the_same_file_dedup(session: Session, root: Path, mod: Path) -> None:
    os.symlink("mod.py", root / "alias.py")
    session.read("mod.py")
    for spelling in ("./mod.py", str(mod), "sub/../mod.py", "alias.py"):
        if spelling.startswith("sub"):
            (root / "sub").mkdir(exist_ok=True)
        assert session.read(spelling).text == stub("mod.py", 1, 60), spelling


def test_format_change_still_stubs_visible_lines(session: Session, mod: Path) -> None:
    session.read("mod.py", format="tab")
    assert session.read("mod.py", offset=2, limit=9).text == stub("mod.py", 2, 10)


def test_other_session_has_its_own_ledger(root: Path, mod: Path) -> None:
    ledger = MemoryLedger()
    Session([root], id="a", ledger=ledger).read("mod.py")
    other = Session([root], id="b", ledger=ledger).read("mod.py")
    assert other.text == full("mod.py", LINES, 1, 60, 60)
    resumed = Session([root], id="a", ledger=ledger).read("mod.py")
    assert resumed.text == stub("mod.py", 1, 60)


def test_cut_line_is_never_counted_as_seen(session: Session, root: Path) -> None:
    lines = [*LINES[:10], "z" * 2500, *LINES[10:20]]
    (root / "cut.py").write_text("\n".join(lines) + "\n")
    session.read("cut.py")
    again = session.read("cut.py")
    assert again.metadata["cut_lines"] == [11]
    assert again.metadata["unchanged_since"] == ["r1"]  # lines 1-10 and 12-21 are marked, 11 is shown again
    assert (
        "… lines 1-10 unchanged since you read them …\n" + "z" * 2000 + "… [line cut: 2500 chars in all]\n"
        in again.text
    )
    assert session.read("cut.py", offset=12).text == stub("cut.py", 12, 21, total=21)
    assert session.read("cut.py", offset=11, limit=1).metadata["mode"] == "full"


def test_byte_capped_window_reread_is_a_stub(session: Session, root: Path) -> None:
    lines = [f"{i:05d} " + "w" * 94 for i in range(1, 1001)]
    (root / "big.txt").write_text("\n".join(lines) + "\n")
    first = session.read("big.txt", mode="full")
    assert first.metadata["truncated"] == "bytes"
    last = first.metadata["last_line"]
    again = session.read("big.txt", mode="full")
    assert again.text == stub("big.txt", 1, last, total=1000, capped="Output capped at 50 KB. ")
    assert again.metadata["next_offset"] == last + 1


def test_tiny_file_reread_is_full_text_when_a_stub_would_cost_more(session: Session, root: Path) -> None:
    (root / "t.txt").write_text("x = 1\n")
    session.read("t.txt")
    again = session.read("t.txt")
    assert again.text == full("t.txt", ["x = 1"], 1, 1, 1)
    assert again.metadata["unchanged_since"] is None
    assert again.metadata["tokens"] == again.metadata["full_tokens"]


def test_file_changed_and_changed_back_is_not_unchanged_since_the_first_read(session: Session, mod: Path) -> None:
    # r1 shows version A, r2 shows version B (both still in context), then the file is put
    # back to A (git checkout, an undo). The lines did change since r1, and the newest version
    # the model holds is B: a stub claiming "unchanged since call r1" is false and stale.
    original = mod.read_bytes()
    session.read("mod.py")
    mod.write_bytes(original.replace(b"payload", b"PAYLOAD"))
    assert session.read("mod.py").metadata["unchanged_since"] is None
    mod.write_bytes(original)
    result = session.read("mod.py")
    assert result.text == full("mod.py", LINES, 1, 60, 60)
    assert result.metadata["unchanged_since"] is None


def test_changed_back_after_the_other_version_was_forgotten_is_a_stub(session: Session, mod: Path) -> None:
    # after a rewind that drops r2, the model holds only version A from r1: a stub is right
    original = mod.read_bytes()
    session.read("mod.py")
    mod.write_bytes(original.replace(b"payload", b"PAYLOAD"))
    session.read("mod.py")
    session.forget(["r2"])
    mod.write_bytes(original)
    assert session.read("mod.py").text == stub("mod.py", 1, 60)
