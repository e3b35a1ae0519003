"""Where a replay's repository comes from: the order of the ways, the cache, the wheel layout.
Offline: the ways are stand-ins; the real ones call pip and the package index."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from leanread.bench.replay.source import Source, cached_source, obtain, place, sdist_names, wheel_prefix
from leanread.errors import LeanreadError


def test_first_way_that_works_is_used_and_remembered(tmp_path: Path) -> None:
    calls: list[str] = []
    tree = tmp_path / "tree"
    tree.mkdir()

    def sdist(package: str, version: str, cache: Path) -> Source:
        calls.append("sdist")
        raise LeanreadError("pip could not download the sdist (Failed to build 'astropy')")

    def wheel(package: str, version: str, cache: Path) -> Source:
        calls.append("wheel")
        return Source("wheel", tree, "astropy-3.1-cp37-cp37m-manylinux1_x86_64.whl")

    def index(package: str, version: str, cache: Path) -> Source:
        calls.append("index")
        raise AssertionError("not reached")

    source = obtain("astropy", "3.1", tmp_path / "cache", ways=(sdist, wheel, index))
    assert calls == ["sdist", "wheel"]
    assert source.kind == "wheel" and "Failed to build 'astropy'" in source.note
    assert "wheel for Python 3.7" in source.describe()
    # A second run finds it in the cache and asks nobody.
    again = obtain("astropy", "3.1", tmp_path / "cache", ways=())
    assert again == source
    assert cached_source(tmp_path / "cache", "astropy", "3.1") == source


def test_every_way_failing_says_why(tmp_path: Path) -> None:
    def broken(package: str, version: str, cache: Path) -> Source:
        raise LeanreadError(f"no {package} here")

    expected = re.escape("No source for requests==1.1: no requests here; no requests here")
    with pytest.raises(LeanreadError, match=expected):
        obtain("requests", "1.1", tmp_path, ways=(broken, broken))


def test_a_cache_entry_whose_tree_is_gone_is_ignored(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "x-1.source.json").write_text('{"kind": "sdist", "root": "/nonexistent", "archive": "a"}')
    assert cached_source(tmp_path, "x", "1") is None


def test_sdist_names_cover_short_versions() -> None:
    names = sdist_names("requests", "1.1")
    assert "requests-1.1.0.tar.gz" in names and "requests-1.1.tar.gz" in names
    assert "scikit_learn-0.22.tar.gz" in sdist_names("scikit-learn", "0.22")


def test_wheel_packages_are_placed_where_the_trace_expects_them(tmp_path: Path) -> None:
    wheel = tmp_path / "wheel"
    (wheel / "matplotlib").mkdir(parents=True)
    (wheel / "matplotlib" / "dates.py").write_text("x = 1\n")
    paths = ["lib/matplotlib/dates.py", "lib/matplotlib/tests/test_dates.py", "reproduce.py", "/workspace/a.py"]
    assert wheel_prefix(wheel, paths) == "lib"
    assert wheel_prefix(wheel, ["matplotlib/dates.py"]) == ""
    scratch = tmp_path / "scratch"
    assert place(Source("wheel", wheel, "m.whl"), scratch, paths) == "lib"
    assert (scratch / "lib" / "matplotlib" / "dates.py").read_text() == "x = 1\n"
    sdist = tmp_path / "scratch2"
    assert place(Source("sdist", wheel, "m.tar.gz"), sdist, paths) == ""
    assert (sdist / "matplotlib" / "dates.py").is_file()
