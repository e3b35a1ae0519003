"""Get a traced repository's source at the traced version: the release sdist from PyPI, cached."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

from ..errors import LeanreadError


def default_cache() -> Path:
    """``$XDG_CACHE_HOME/leanread`` or ``~/.cache/leanread``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "leanread"


def _download(package: str, version: str, dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--quiet",
        "--no-deps",
        "--no-binary",
        ":all:",
        f"{package}=={version}",
        "-d",
        str(dest),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    archives = sorted(p for p in dest.iterdir() if p.suffix in (".gz", ".zip", ".bz2"))
    if done.returncode != 0 or not archives:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise LeanreadError(
            f"pip could not download the sdist of {package}=={version} ({tail[0]}); "
            "check that the package index is reachable."
        )
    return archives[0]


def _unpack(archive: Path, dest: Path) -> Path:
    tmp = dest.with_name(dest.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    if archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(tmp)
    else:
        with tarfile.open(archive) as tf:
            tf.extractall(tmp, filter="data")
    entries = list(tmp.iterdir())
    if len(entries) == 1 and entries[0].is_dir():
        entries[0].rename(dest)
        shutil.rmtree(tmp)
    else:
        tmp.rename(dest)
    return dest


def release_source(package: str, version: str, cache: Path | None = None) -> Path:
    """The unpacked sdist of ``package==version``, downloaded once into ``cache``.

    Raises:
        LeanreadError: pip failed (no network, no such release, no sdist).
    """
    cache = cache or default_cache()
    unpacked = cache / "src" / f"{package}-{version}"
    if not unpacked.is_dir():
        archive = _download(package, version, cache / "sdist" / f"{package}-{version}")
        _unpack(archive, unpacked)
    return unpacked
