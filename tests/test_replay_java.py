"""The replay beyond PyPI: Debian source packages through a private apt setup, npm tarballs, and
the SWE-agent anchor (its 100-line window and search frames)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from leanread.bench.replay.calls import FileSnapshot, GrepCall, Hit, ReadCall
from leanread.bench.replay.source import Source, _record
from leanread.bench.replay.source_more import apt_options, obtain_for
from leanread.bench.replay.strategies.swe_agent import SweAgent, frame
from leanread.errors import LeanreadError


def _file(n: int) -> FileSnapshot:
    return FileSnapshot("A.java", tuple(f"l{i}" for i in range(1, n + 1)), True, 1, 1, "h")


def test_swe_agent_window_has_its_frame() -> None:
    lines = _file(250).lines
    text = frame("A.java", lines, 101)
    assert text.splitlines()[:3] == ["[File: /A.java (250 lines total)]", "(100 more lines above)", "101:l101"]
    assert text.splitlines()[-1] == "(50 more lines below)"
    # Near the end the window is moved back to show 100 lines, as SWE-agent's scroll_down does.
    assert frame("A.java", lines, 240).splitlines()[1:3] == ["(150 more lines above)", "151:l151"]


def test_swe_agent_reads_past_100_lines_as_scrolled_windows(tmp_path: Path) -> None:
    text = SweAgent(tmp_path).read(ReadCall("A.java", None, None, _file(150)))
    assert text.count("[File: /A.java (150 lines total)]") == 2
    assert "(50 more lines below)\n[File: /A.java (150 lines total)]\n(100 more lines above)\n101:l101" in text


def test_swe_agent_search_file_and_search_dir(tmp_path: Path) -> None:
    hit = Hit("A.java", 3, "l3", True)
    one = GrepCall(("l3",), ("A.java",), hits=(hit,), files=("A.java",))
    assert SweAgent(tmp_path).grep(one) == (
        'Found 1 matches for "l3" in /A.java:\nLine 3:l3\nEnd of matches for "l3" in /A.java'
    )
    folder = GrepCall(("l3",), ("src",), count=True, hits=(hit, Hit("A.java", 9, "l3", True)), files=("A.java",))
    assert SweAgent(tmp_path).grep(folder) == (
        'Found 2 matches for "l3" in /src:\n/A.java (2 matches)\nEnd of matches for "l3" in /src'
    )
    assert SweAgent(tmp_path).grep(GrepCall(("zz",), ("src",))) == 'No matches found for "zz" in /src'


def test_apt_setup_is_private_to_the_cache(tmp_path: Path) -> None:
    options = apt_options(tmp_path)
    values = [o for o in options if o != "-o"]
    assert all(str(tmp_path) in v for v in values if not v.startswith("APT::"))
    listing = (tmp_path / "apt" / "etc" / "sources.list").read_text("utf-8")
    assert listing.splitlines()[0] == "deb-src http://deb.debian.org/debian bookworm main"


def test_a_header_tree_picks_its_source_and_it_is_cached(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    _record(tmp_path, "debian-source-jackson-core", "2.14.1-2~deb12u1", Source("debian-source", tree, "x.orig.tar.xz"))
    header = {"tree": {"kind": "debian-source", "package": "jackson-core", "version": "2.14.1-2~deb12u1"}}
    source = obtain_for(header, "jackson-core", "2.14.1-2~deb12u1", tmp_path)
    assert source.kind == "debian-source" and source.root == tree
    assert source.describe() == "x.orig.tar.xz: upstream tarball of the Debian source package (apt-get source)"
    with pytest.raises(LeanreadError, match="Unknown source kind cargo in the trace's header"):
        obtain_for({"tree": {"kind": "cargo"}}, "x", "1", tmp_path)


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_npm_tarball_is_unpacked_and_cached(tmp_path: Path) -> None:
    try:
        source = obtain_for({"tree": {"kind": "npm", "package": "is-number", "version": "7.0.0"}}, "x", "1", tmp_path)
    except LeanreadError as exc:  # no registry from here
        pytest.skip(str(exc))
    assert (source.root / "index.js").is_file() and source.archive == "is-number-7.0.0.tgz"
