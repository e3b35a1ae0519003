"""Sources beyond PyPI: Debian source packages and npm tarballs, cached like the sdists.

A trace names its tree in the header's ``tree`` (``{"kind": "debian-source", "package":
"jackson-core", "version": "2.14.1-2~deb12u1"}``, ``{"kind": "npm", …}``; none or ``pypi``: the
PyPI release of ``repo``/``version``, see ``source``). ``obtain_for`` picks the way.

- ``debian-source``: ``apt-get source --download-only NAME=VERSION`` with a private apt setup under
  ``<cache>/apt/`` (its own ``sources.list`` with ``deb-src`` lines for bookworm, bookworm-updates
  and bookworm-security main, its own lists, cache and state folders; ``apt-get update`` runs with
  that setup only, never the machine's), then the upstream ``*.orig.tar.*`` is unpacked into
  ``<cache>/src/debian-NAME-VERSION`` (Debian's own patches are not applied: the tree the agents
  saw is the upstream one).
- ``npm``: ``npm pack NAME@VERSION`` into ``<cache>/npm/``, unpacked (its ``package/`` folder) into
  ``<cache>/src/npm-NAME-VERSION``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from ...errors import LeanreadError
from ..sources import _unpack, default_cache
from .source import Source, _last_line, _record, cached_source, obtain

#: The ``deb-src`` lines of the private apt setup.
DEB_SRC = (
    "deb-src http://deb.debian.org/debian bookworm main",
    "deb-src http://deb.debian.org/debian bookworm-updates main",
    "deb-src http://deb.debian.org/debian-security bookworm-security main",
)


def apt_options(cache: Path) -> list[str]:
    """The ``-o`` options that keep apt inside ``<cache>/apt`` (creating its folders)."""
    base = cache / "apt"
    for folder in (
        base / "etc" / "sources.list.d",
        base / "lists" / "partial",
        base / "cache" / "archives" / "partial",
    ):
        folder.mkdir(parents=True, exist_ok=True)
    listing = base / "etc" / "sources.list"
    listing.write_text("\n".join(DEB_SRC) + "\n", "utf-8")
    (base / "status").touch()
    return [
        "-o", f"Dir::Etc::SourceList={listing}",
        "-o", f"Dir::Etc::SourceParts={base / 'etc' / 'sources.list.d'}",
        "-o", f"Dir::State::Lists={base / 'lists'}",
        "-o", f"Dir::State::status={base / 'status'}",
        "-o", f"Dir::Cache={base / 'cache'}",
        "-o", "APT::Sandbox::User=root",
    ]  # fmt: skip


def _run(cmd: list[str], cwd: Path, what: str) -> None:
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise LeanreadError(f"{what} failed ({_last_line(done.stderr or done.stdout)})")


def fetch_debian(package: str, version: str, cache: Path) -> Source:
    """The upstream tree of Debian source package ``package`` at ``version``.

    Raises:
        LeanreadError: apt could not update its private lists or fetch the package (its last line).
    """
    root = cache / "src" / f"debian-{package}-{version}"
    folder = cache / "debian" / f"{package}-{version}"
    origs = sorted(folder.glob("*.orig.tar.*")) if folder.is_dir() else []
    if not origs:
        folder.mkdir(parents=True, exist_ok=True)
        options = apt_options(cache)
        _run(["apt-get", *options, "update"], folder, "apt-get update (private setup)")
        _run(["apt-get", *options, "source", "--download-only", f"{package}={version}"], folder, "apt-get source")
        origs = sorted(p for p in folder.glob("*.orig.tar.*") if not p.name.endswith(".asc"))
        if not origs:
            raise LeanreadError(f"apt-get source gave no upstream tarball for {package}={version}")
    if not root.is_dir():
        _unpack(origs[0], root)
    return Source("debian-source", root, origs[0].name)


def fetch_npm(package: str, version: str, cache: Path) -> Source:
    """The tree of npm package ``package@version`` (the ``npm pack`` tarball's ``package/``).

    Raises:
        LeanreadError: npm could not fetch it (its last line).
    """
    root = cache / "src" / f"npm-{package.replace('/', '+')}-{version}"
    folder = cache / "npm" / f"{package.replace('/', '+')}-{version}"
    tarballs = sorted(folder.glob("*.tgz")) if folder.is_dir() else []
    if not tarballs:
        folder.mkdir(parents=True, exist_ok=True)
        _run(["npm", "pack", "--silent", f"{package}@{version}"], folder, "npm pack")
        tarballs = sorted(folder.glob("*.tgz"))
        if not tarballs:
            raise LeanreadError(f"npm pack gave no tarball for {package}@{version}")
    if not root.is_dir():
        _unpack(tarballs[0], root)
    return Source("npm", root, tarballs[0].name)


FETCHERS = {"debian-source": fetch_debian, "npm": fetch_npm}


def obtain_for(header: dict[str, Any], package: str, version: str, cache: Path | None = None) -> Source:
    """The source a trace's header names (``tree``), cached; PyPI's (``source.obtain``) without one.

    Raises:
        LeanreadError: an unknown kind, or the fetch failed.
    """
    tree = header.get("tree")
    if not isinstance(tree, dict) or tree.get("kind") in (None, "pypi"):
        return obtain(package, version, cache)
    kind = str(tree["kind"])
    if kind not in FETCHERS:
        raise LeanreadError(f"Unknown source kind {kind} in the trace's header; use debian-source, npm or pypi.")
    cache = cache or default_cache()
    name, release = str(tree.get("package") or package), str(tree.get("version") or version)
    key = f"{kind}-{name.replace('/', '+')}"
    known = cached_source(cache, key, release)
    if known is not None:
        return known
    return _record(cache, key, release, FETCHERS[kind](name, release, cache))
