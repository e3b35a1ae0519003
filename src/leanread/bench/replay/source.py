"""The source tree a trace is replayed on: the traced release from PyPI, downloaded once and cached.

Three ways, tried in order (``obtain``):

1. ``sdist``: ``pip download --no-deps --no-binary :all:`` — the release sdist, the repository's
   own layout (``..sources.release_source``, shared with ``leanread demo``).
2. ``wheel``: when pip cannot prepare the sdist's metadata on this interpreter (old or compiled
   projects: astropy 3.1, matplotlib 3.5, scikit-learn 0.22), a wheel built for an old interpreter
   (``--only-binary :all: --python-version 3.7 --platform manylinux1_x86_64``), which holds the
   Python sources. A wheel has no ``lib/``/``src/`` folder: ``place_wheel`` puts the packages where
   the trace's paths expect them. Tests, docs and the build files of the repository are missing.
3. ``sdist-index``: when there is no such wheel either (requests 1.1 predates wheels), the same
   sdist file pip would have downloaded, fetched from the package index's JSON page (PEP 691) and
   checked against the index's SHA-256, without running its build step.

Everything is cached under ``<cache>/`` (default ``~/.cache/leanread``): archives in ``sdist/`` and
``wheel/``, unpacked trees in ``src/``, and ``src/<package>-<version>.source.json`` says which way
was used, so a second run neither downloads nor asks pip again.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import urllib.request
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ...errors import LeanreadError
from ..sources import _unpack, default_cache, release_source

#: How the wheel fallback asks pip for a wheel that holds the Python sources.
WHEEL_ARGS = ("--only-binary", ":all:", "--python-version", "3.7", "--platform", "manylinux1_x86_64")
#: The package index the ``sdist-index`` fallback reads (the one pip uses by default).
INDEX_URL = "https://pypi.org/simple"
#: Folders a repository keeps its packages in that a wheel does not have.
SOURCE_FOLDERS = ("lib", "src")


@dataclass(frozen=True)
class Source:
    """Where a trace's repository comes from.

    Attributes:
        kind: ``sdist``, ``wheel`` or ``sdist-index`` (see the module docstring), or
            ``debian-source`` / ``npm`` (``source_more``).
        root: the unpacked tree (for a wheel: its files, without ``.dist-info``).
        archive: the file name of the downloaded archive.
        note: why a fallback was needed (pip's last error line), empty for ``sdist``.
    """

    kind: str
    root: Path
    archive: str
    note: str = ""

    def describe(self) -> str:
        """One line for the report: the archive and how it was obtained."""
        how = {
            "sdist": "sdist from PyPI",
            "wheel": "wheel for Python 3.7 from PyPI (the sdist cannot be prepared here)",
            "sdist-index": "sdist from PyPI, fetched from the index without pip's build step",
            "debian-source": "upstream tarball of the Debian source package (apt-get source)",
            "npm": "npm tarball (npm pack)",
        }[self.kind]
        return f"{self.archive}: {how}"


Fetcher = Callable[[str, str, Path], Source]


def _record(cache: Path, package: str, version: str, source: Source) -> Source:
    marker = cache / "src" / f"{package}-{version}.source.json"
    marker.parent.mkdir(parents=True, exist_ok=True)
    data = {"kind": source.kind, "root": str(source.root), "archive": source.archive, "note": source.note}
    marker.write_text(json.dumps(data, indent=1), "utf-8")
    return source


def cached_source(cache: Path, package: str, version: str) -> Source | None:
    """The source recorded by an earlier run, if its tree is still there."""
    marker = cache / "src" / f"{package}-{version}.source.json"
    try:
        data = json.loads(marker.read_text("utf-8"))
        source = Source(str(data["kind"]), Path(data["root"]), str(data["archive"]), str(data.get("note", "")))
    except (OSError, ValueError, KeyError):
        return None
    return source if source.root.is_dir() else None


def fetch_sdist(package: str, version: str, cache: Path) -> Source:
    """Way 1 (pip sdist). Raises ``LeanreadError`` with pip's last error line."""
    root = release_source(package, version, cache)
    archives = sorted((cache / "sdist" / f"{package}-{version}").glob("*"))
    return Source("sdist", root, archives[0].name if archives else root.name)


def fetch_wheel(package: str, version: str, cache: Path) -> Source:
    """Way 2 (a Python 3.7 wheel, unpacked without its ``.dist-info``)."""
    root = cache / "src" / f"{package}-{version}-wheel"
    folder = cache / "wheel" / f"{package}-{version}"
    wheels = sorted(folder.glob("*.whl")) if folder.is_dir() else []
    if not wheels:
        folder.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", *WHEEL_ARGS]
        done = subprocess.run(
            [*cmd, f"{package}=={version}", "-d", str(folder)], capture_output=True, text=True, timeout=900
        )
        wheels = sorted(folder.glob("*.whl"))
        if done.returncode != 0 or not wheels:
            raise LeanreadError(f"no Python 3.7 wheel of {package}=={version} ({_last_line(done.stderr)})")
    if not root.is_dir():
        partial = root.with_name(root.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        with zipfile.ZipFile(wheels[0]) as zf:
            zf.extractall(partial)
        for info in partial.glob("*.dist-info"):
            shutil.rmtree(info)
        partial.rename(root)
    return Source("wheel", root, wheels[0].name)


def _index_files(package: str) -> list[dict[str, object]]:
    request = urllib.request.Request(
        f"{INDEX_URL}/{package.lower()}/", headers={"Accept": "application/vnd.pypi.simple.v1+json"}
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        files = json.loads(response.read().decode("utf-8"))["files"]
    return [f for f in files if isinstance(f, dict)]


def sdist_names(package: str, version: str) -> list[str]:
    """File names the sdist of ``package==version`` may have (``requests==1.1`` is ``requests-1.1.0.tar.gz``)."""
    names = {package, package.replace("-", "_"), package.lower(), package.capitalize()}
    versions = [version, version + ".0"] if version.count(".") == 1 else [version]
    return [f"{n}-{v}{ext}" for v in versions for n in sorted(names) for ext in (".tar.gz", ".zip", ".tar.bz2")]


def fetch_sdist_from_index(package: str, version: str, cache: Path) -> Source:
    """Way 3: the sdist file from the index's JSON page, SHA-256 checked, unpacked into ``src/``."""
    root = cache / "src" / f"{package}-{version}"
    folder = cache / "sdist" / f"{package}-{version}"
    archives = sorted(folder.glob("*")) if folder.is_dir() else []
    if not archives:
        try:
            files = {str(f.get("filename")): f for f in _index_files(package)}
        except (OSError, ValueError, KeyError) as exc:
            raise LeanreadError(f"the package index could not be read for {package} ({exc})") from None
        wanted = next((files[name] for name in sdist_names(package, version) if name in files), None)
        if wanted is None:
            raise LeanreadError(f"the index has no sdist of {package}=={version}")
        data = urllib.request.urlopen(str(wanted["url"]), timeout=600).read()
        hashes = wanted.get("hashes")
        expected = hashes.get("sha256") if isinstance(hashes, dict) else None
        if expected and hashlib.sha256(data).hexdigest() != expected:
            raise LeanreadError(f"the sdist of {package}=={version} does not match the index's SHA-256")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / str(wanted["filename"])).write_bytes(data)
        archives = sorted(folder.glob("*"))
    if not root.is_dir():
        _unpack(archives[0], root)
    return Source("sdist-index", root, archives[0].name)


DEFAULT_WAYS: tuple[Fetcher, ...] = (fetch_sdist, fetch_wheel, fetch_sdist_from_index)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


def obtain(package: str, version: str, cache: Path | None = None, ways: Iterable[Fetcher] = DEFAULT_WAYS) -> Source:
    """The source of ``package==version``: the cached one, else the first of ``ways`` that works.

    Raises:
        LeanreadError: every way failed; the message lists why each did.
    """
    cache = cache or default_cache()
    known = cached_source(cache, package, version)
    if known is not None:
        return known
    failures: list[str] = []
    for way in ways:
        try:
            source = way(package, version, cache)
        except (LeanreadError, OSError, subprocess.SubprocessError) as exc:
            failures.append(str(exc))
            continue
        note = "; ".join(failures)
        return _record(cache, package, version, Source(source.kind, source.root, source.archive, note))
    raise LeanreadError(f"No source for {package}=={version}: " + "; ".join(failures))


def wheel_prefix(tree: Path, paths: Iterable[str]) -> str:
    """The folder (``lib``/``src``) the repository keeps the wheel's packages in, judged by the
    trace's paths (``lib/matplotlib/dates.py`` with ``matplotlib/dates.py`` in the wheel → ``lib``),
    or ``""`` when the paths already match the wheel."""
    votes: dict[str, int] = {}
    for path in paths:
        parts = Path(path).parts
        misplaced = len(parts) > 2 and parts[0] in SOURCE_FOLDERS and not (tree / path).exists()
        if misplaced and ((tree / Path(*parts[1:])).exists() or (tree / parts[1]).is_dir()):
            votes[parts[0]] = votes.get(parts[0], 0) + 1
    return max(votes, key=lambda k: votes[k]) if votes else ""


def place(source: Source, scratch: Path, paths: Iterable[str]) -> str:
    """Copy ``source`` into ``scratch`` (which must not exist) in the repository's layout; returns
    the prefix a wheel's packages were placed under (``""`` for an sdist)."""
    prefix = wheel_prefix(source.root, paths) if source.kind == "wheel" else ""
    target = scratch / prefix if prefix else scratch
    shutil.copytree(source.root, target, symlinks=True)
    return prefix
