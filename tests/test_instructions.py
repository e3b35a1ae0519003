"""Instruction files (AGENTS.md, CLAUDE.md) attached once per session, before any dedup."""

from __future__ import annotations

from pathlib import Path

from leanread import MemoryLedger, Policy, Session


def _tree(root: Path) -> None:
    (root / "AGENTS.md").write_text("root rules\n")
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "AGENTS.md").write_text("pkg rules: run make lint\n")
    (root / "pkg" / "sub" / "CLAUDE.md").write_text("sub rules\n")
    (root / "pkg" / "sub" / "mod.py").write_text("".join(f"value_{i} = {i}\n" for i in range(1, 31)))
    (root / "pkg" / "other.py").write_text("x = 1\n")


def test_attached_nearest_last_once_per_session_root_excluded(root: Path) -> None:
    _tree(root)
    session = Session([root], ledger=MemoryLedger())
    first = session.read("pkg/sub/mod.py", limit=2)
    assert first.text == (
        "<path>pkg/sub/mod.py</path>\n<type>file</type>\n<content>\nvalue_1 = 1\nvalue_2 = 2\n\n"
        "(Showing lines 1-2 of 30. Use offset=3 to continue.)\n</content>\n"
        "<system-reminder>\n"
        "Instructions from pkg/AGENTS.md:\npkg rules: run make lint\n\n"
        "Instructions from pkg/sub/CLAUDE.md:\nsub rules\n"
        "</system-reminder>"
    )
    assert first.metadata["instructions"] == ["pkg/AGENTS.md", "pkg/sub/CLAUDE.md"]
    again = session.read("pkg/other.py")
    assert "<system-reminder>" not in again.text  # pkg/AGENTS.md is already in view


def test_a_stub_still_carries_a_newly_found_instruction_file(root: Path) -> None:
    _tree(root)
    session = Session([root], ledger=MemoryLedger())
    session.read("pkg/sub/mod.py")
    (root / "pkg" / "sub" / "AGENTS.md").write_text("new sub rules\n")
    stub = session.read("pkg/sub/mod.py")
    assert stub.metadata["mode"] == "stub"
    assert stub.text.endswith(
        "</content>\n<system-reminder>\nInstructions from pkg/sub/AGENTS.md:\nnew sub rules\n</system-reminder>"
    )


def test_forgetting_the_call_makes_its_instruction_files_unseen(root: Path) -> None:
    _tree(root)
    session = Session([root], ledger=MemoryLedger())
    session.read("pkg/other.py")
    assert "<system-reminder>" not in session.read("pkg/other.py", fresh=True).text
    session.forget(["r1"])
    assert "Instructions from pkg/AGENTS.md" in session.read("pkg/other.py").text


def test_root_instructions_and_names_are_configurable(root: Path) -> None:
    _tree(root)
    (root / "RULES.md").write_text("custom\n")
    policy = Policy(instruction_files=("RULES.md", "AGENTS.md"), root_instructions=True)
    result = Session([root], ledger=MemoryLedger(), policy=policy).read("pkg/other.py")
    assert result.metadata["instructions"] == ["RULES.md", "AGENTS.md", "pkg/AGENTS.md"]
