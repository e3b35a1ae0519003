"""Files read for the symbol index in worker processes give what reading them one by one gives,
and a refresh after an edit sees it while the stat rows are kept in memory."""

from __future__ import annotations

import os
from pathlib import Path

from leanread.symbols.find import definitions
from leanread.symbols.parse import Job, parse_file, parse_files
from leanread.symbols.store import SymbolStore


def _tree(root: Path, count: int) -> list[Job]:
    jobs = []
    for n in range(count):
        rel = f"m{n % 3}/f{n}.{'py' if n % 2 else 'ts'}"
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        text = f"def f{n}(x):\n    return g(x)\n" if n % 2 else f"export function f{n}(x: number) {{ return x; }}\n"
        path.write_text(text)
        st = path.stat()
        jobs.append(Job(str(root), rel, st.st_size, st.st_mtime_ns, None))
    (root / "bin.py").write_bytes(b"\x00\x01" * 50)
    st = (root / "bin.py").stat()
    return [*jobs, Job(str(root), "bin.py", st.st_size, st.st_mtime_ns, None)]


def test_worker_processes_read_what_one_process_reads(tmp_path: Path) -> None:
    jobs = _tree(tmp_path, 41)
    one = [parse_file(job) for job in jobs]
    assert list(parse_files(jobs, workers=2)) == one
    assert [p.skipped for p in one].count("binary") == 1
    assert one[1].facts is not None and [d.name for d in one[1].facts.definitions] == ["f1"]


def test_a_known_hash_is_a_touch_not_a_read(tmp_path: Path) -> None:
    job = _tree(tmp_path, 1)[0]
    digest = parse_file(job).digest
    again = parse_file(Job(job.root, job.rel, job.size, job.mtime_ns, digest))
    assert (again.facts, again.digest, again.skipped) == (None, digest, "")


def test_an_edit_between_two_refreshes_is_seen(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.py").write_text("def old():\n    pass\n")
    store = SymbolStore(str(root), path=tmp_path / "index.sqlite3")
    store.refresh()
    assert store.refresh().read == 0
    (root / "a.py").write_text("def new():\n    pass\n")
    os.utime(root / "a.py", ns=(1, 1))
    assert store.refresh().read == 1
    assert [f.definition.name for f in definitions(store, "new")] == ["new"]
    assert definitions(store, "old") == []
    (root / "b.py").write_text("def new():\n    return 1\n")
    assert store.refresh().read == 1
    assert sorted(f.path for f in definitions(store, "new")) == ["a.py", "b.py"]
    store.close()
