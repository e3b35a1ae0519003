"""mini-swe-agent (the PyPI package) driven by its own DeterministicModel through a scripted
session, with ``LeanreadEnvironment``: reads answered through the ledger, the rest unchanged."""

from __future__ import annotations

from pathlib import Path

from minisweagent.agents.default import DefaultAgent
from minisweagent.environments.local import LocalEnvironment
from minisweagent.models.test_models import DeterministicModel, make_output

from leanread.ledger.store import MemoryLedger
from leanread.session import Session
from leanread.shell.minisweagent import LeanreadEnvironment

COMMANDS = [
    "nl -ba a.py | sed -n '1,20p'",
    "nl -ba a.py | sed -n '1,20p'",
    "sed -i 's/value_3 = 3$/value_3 = 33/' a.py && echo edited",
    "nl -ba a.py | sed -n '1,20p'",
    "grep -c value a.py",
    "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT",
]


def _observations(env: LocalEnvironment) -> list[str]:
    model = DeterministicModel(outputs=[make_output(f"step {n}", [{"command": c}]) for n, c in enumerate(COMMANDS)])
    agent = DefaultAgent(
        model, env, system_template="You fix code.", instance_template="{{task}}", step_limit=20, cost_limit=0
    )
    agent.run("Fix value_3.")
    return [m["content"] for m in agent.messages if m["role"] == "user"][1:]


def _repo(root: Path) -> Path:
    root.mkdir()
    (root / "a.py").write_text("".join(f"value_{n} = {n}\n" for n in range(1, 41)))
    return root


def test_a_scripted_mini_swe_agent_session_reads_through_leanread(tmp_path: Path) -> None:
    root = _repo(tmp_path / "lean")
    env = LeanreadEnvironment(cwd=str(root), session=Session([root], ledger=MemoryLedger()))
    seen = _observations(env)
    first = "".join(f"{n}\tvalue_{n} = {n}\n" for n in range(1, 21))
    assert seen[0] == f"<returncode>0</returncode>\n<output>\n{first}</output>"
    assert seen[1] == (
        "<returncode>0</returncode>\n<output>\n(Lines 1-20 unchanged since you read them, still in your context. "
        "Run `command nl -ba a.py | sed -n '1,20p'` to print them again.)\n</output>"
    )
    assert seen[2] == "<returncode>0</returncode>\n<output>\nedited\n</output>"
    assert seen[3] == (
        "<returncode>0</returncode>\n<output>\n1\tvalue_1 = 1\n2\tvalue_2 = 2\n3\tvalue_3 = 33\n"  # 2 short lines
        "… lines 4-20 unchanged since you read them …\n\n"
        "(a.py changed since you read it; the lines marked unchanged are as you saw them.)\n</output>"
    )
    assert seen[4] == "<returncode>0</returncode>\n<output>\n40\n</output>"


def test_commands_leanread_passes_give_what_the_local_environment_gives(tmp_path: Path) -> None:
    lean = _observations(LeanreadEnvironment(cwd=str(_repo(tmp_path / "lean")), session_id="t"))
    plain = _observations(LocalEnvironment(cwd=str(_repo(tmp_path / "plain"))))
    assert lean[2] == plain[2] and lean[4] == plain[4]
    assert lean[0] != plain[0]  # nl -ba's padding is leanread's tab form
