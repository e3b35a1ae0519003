"""``leanread bench import FORMAT FILE… --out DIR``: agents' own logs as the replay's JSONL traces.

One module per format; each module's docstring is its documented mapping (what becomes what,
what is skipped and why) and it has ``convert(path, meta) -> list[Imported]``. ``FORMATS`` is the
registry. The schema written is the one of ``shared/traces/README.md``; ``shell`` maps the bash
commands every format's agent runs, the same way for all of them.

A ``sources.json`` beside the imported files (``{instance_id: {...}}``) adds header fields per
trace: ``repo``, ``agent``, ``model``, ``version``, ``base_commit``, ``resolved``/``result``, the
repository's folder in the agent's container (``repo_root_in_trajectory``) and the tree the
replay should use (``source``: ``{"kind": "debian-source"|"npm"|"pypi", "package", "version"}``,
written as the header's ``tree``), so an import followed by ``leanread bench replay --traces OUT``
needs nothing else.
"""

from __future__ import annotations

import importlib
import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import LeanreadError

#: Format name → module of this package.
FORMATS = {
    "swe-agent": "swe_agent",
    "mini-swe-agent": "mini_swe_agent",
    "openhands": "openhands",
    "claude-code": "claude_code",
    "codex": "codex",
    "opencode": "opencode",
}


@dataclass
class Imported:
    """One trace: its name (the file name without ``.jsonl``), header and ops."""

    name: str
    header: dict[str, Any]
    ops: list[dict[str, Any]] = field(default_factory=list)

    def finish(self) -> Imported:
        """Fill ``op_counts`` (in order of first use) and ``schema_version``."""
        counts: Counter[str] = Counter()
        for op in self.ops:
            counts[op["op"]] += 1
        self.header.setdefault("schema_version", 1)
        self.header["op_counts"] = dict(counts)
        return self

    def jsonl(self) -> str:
        """The trace as JSONL text: the header, then one op a line."""
        return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in [self.header, *self.ops])


Converter = Callable[[Path, dict[str, Any]], list[Imported]]


def converter(fmt: str) -> Converter:
    """The ``convert`` function of format ``fmt``.

    Raises:
        LeanreadError: an unknown format.
    """
    if fmt not in FORMATS:
        raise LeanreadError(f"Unknown trace format {fmt}; choose from {', '.join(FORMATS)}.")
    module = importlib.import_module(f"{__name__}.{FORMATS[fmt]}")
    convert: Converter = module.convert
    return convert


def sidecar(path: Path) -> dict[str, Any]:
    """The ``sources.json`` beside ``path``, or ``{}``."""
    try:
        data = json.loads((path.parent / "sources.json").read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def meta_for(path: Path, instance: str) -> dict[str, Any]:
    """The ``sources.json`` entry for ``instance`` (or for the file's stem), or ``{}``."""
    found = sidecar(path)
    entry = found.get(instance) or found.get(path.stem.split(".")[0]) or {}
    return entry if isinstance(entry, dict) else {}


def apply_meta(header: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    """``header`` with the sidecar's fields (see the package docstring)."""
    for key in ("repo", "agent", "model", "version", "base_commit", "benchmark", "resolved"):
        if key in meta:
            header[key] = meta[key]
    if "result" in meta:
        header["result"] = meta["result"]
        header.setdefault("resolved", meta["result"] == "resolved")
    if meta.get("repo_root_in_trajectory"):
        header["orig_repo_root"] = meta["repo_root_in_trajectory"]
    tree = meta.get("source")
    if isinstance(tree, dict):
        header["tree"] = tree
        header.setdefault("version", tree.get("version"))
    return header


def import_files(fmt: str, files: Iterable[Path], out: Path) -> list[Path]:
    """Convert ``files`` of format ``fmt`` and write one ``<name>.jsonl`` each into ``out``.

    Raises:
        LeanreadError: an unknown format, or a file that is not of that format (named).
    """
    convert = converter(fmt)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for path in files:
        try:
            traces = convert(path, sidecar(path))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise LeanreadError(f"{path} is not a {fmt} log ({type(exc).__name__}: {exc}); check the format.") from None
        for trace in traces:
            target = out / f"{trace.name}.jsonl"
            target.write_text(trace.finish().jsonl(), "utf-8")
            written.append(target)
    return written
