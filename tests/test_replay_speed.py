"""`leanread bench speed`: every measurement runs and the report names its baseline."""

from __future__ import annotations

from pathlib import Path

from leanread.bench.speed import bench_speed, markdown_report, pick_small_file


def test_speed_measures_each_call_against_its_shell_equivalent(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "small.py").write_text("".join(f"def f{i}(x):\n    return x\n" for i in range(100)))
    (tmp_path / "pkg" / "tiny.py").write_text("x = 1\n")
    (tmp_path / "pkg" / "long.py").write_text(
        "".join(f"def g{i}(x):\n    y = x * {i}\n    return y\n" for i in range(100))
    )
    assert pick_small_file(tmp_path).name == "small.py"
    result = bench_speed(tmp_path, runs=2, big_mb=1)
    assert [row["baseline"] for row in result["rows"]] == [
        "`cat FILE`",
        "`sed -n 'A,Bp' FILE`",
        "the same read in process",
        "`rg -n PATTERN`",
        "`cat FILE`",
        "`cat FILE`",
    ]
    assert all(row["leanread_s"] > 0 and row["ratio"] > 0 for row in result["rows"])
    text = markdown_report(result, "leanread bench speed --runs 2 --big-mb 1")
    assert "Command: `leanread bench speed --runs 2 --big-mb 1`" in text
    assert "| read a small file (200 lines), in process |" in text
    assert "| read a 300-line file whole (its outline), a new version each call |" in text
    assert "| the same whole read again (the outline's stub) |" in text
