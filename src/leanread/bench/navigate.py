"""``leanread bench navigate``: leanread's symbol index against a language server, side by side.

Projects: django 4.2 (its PyPI sdist, the replay's source) against pyright, and rxjs 7.8.2 and
mobx 6.13.5 (their npm tarballs, which ship their TypeScript sources; the ``src/`` folder with a
``tsconfig.json`` written beside its own) against typescript-language-server; mobx is the check
that what was fixed on rxjs holds on a project it was not looked at for. Both servers come from npm,
installed into ``~/.cache/leanread/npm`` (``npm install --prefix ~/.cache/leanread/npm pyright
typescript-language-server typescript``; ``LEANREAD_NPM_PREFIX`` overrides the folder), with the
``tsserver`` of TypeScript 5 under ``ts5/`` (``npm install --prefix ~/.cache/leanread/npm/ts5
typescript@5``): TypeScript 7 is the native compiler and ships no ``tsserver.js``.

For each project, uses of names are drawn at random by syntax (``navigate_sample``); the server's
go-to-definition at each use is the truth, kept when it lands in the tree on a definition outside
a function. leanread answers the question an agent would ask there (``QuerySet.filter``,
``models.Model``, ``get``) as ``read(symbol=…)`` does after a read of the use's file
(``likely.likely_definitions`` with that file as ``near``); and, for one more column, as after
no read. Matched by (file, line of the name; a row for overloads side by side by any of theirs):

- precision: of the definitions leanread lists, the share the server gives; top-1: the share of
  questions whose first answer is one the server gives; recall: of the server's, the share listed.
- references: for the first draws' definitions, the server's find-references against leanread's
  uses labelled ``import-resolved`` (precision) and all of its uses (recall).
- time: leanread's index built from nothing and one call (refresh + lookup), median and p95;
  the server's start to first answer and one call, in the same run.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..config.policy import Policy
from ..errors import LeanreadError
from ..files.ripgrep import RgOptions
from ..files.search_files import list_files
from ..symbols.find import IMPORT_RESOLVED, Found, references
from ..symbols.likely import likely_definitions
from ..symbols.store import SymbolStore
from .lsp import LspClient
from .navigate_sample import Sample, draw, is_local

#: The npm packages the servers come from.
NPM_PACKAGES = ("pyright", "typescript-language-server", "typescript")
#: The TypeScript projects: npm packages that ship their sources.
TS_PACKAGE = ("rxjs", "7.8.2")
TS_PACKAGES = (TS_PACKAGE, ("mobx", "6.13.5"))
_TSCONFIG = {"compilerOptions": {"target": "esnext", "strict": True, "lib": ["esnext", "dom"]}, "include": ["**/*.ts"]}


def npm_prefix() -> Path:
    """Where the npm servers are installed."""
    return Path(os.environ.get("LEANREAD_NPM_PREFIX") or Path.home() / ".cache" / "leanread" / "npm")


def tsserver_options() -> dict[str, object]:
    """typescript-language-server's options: the ``tsserver.js`` of TypeScript 5 (TypeScript 7,
    the native compiler, ships none), installed beside the servers under ``ts5/``.

    Raises:
        LeanreadError: it is not installed (the message says how).
    """
    path = npm_prefix() / "ts5" / "node_modules" / "typescript" / "lib" / "tsserver.js"
    if not path.exists():
        raise LeanreadError(
            f"TypeScript 5 is not installed; run `npm install --prefix {path.parents[3]} typescript@5`."
        )
    return {"tsserver": {"path": str(path)}}


def server_command(name: str) -> list[str]:
    """The command line of an npm language server.

    Raises:
        LeanreadError: it is not installed (the message says how to install it).
    """
    binary = npm_prefix() / "node_modules" / ".bin" / name
    if not binary.exists():
        raise LeanreadError(
            f"{name} is not installed; run `npm install --prefix {npm_prefix()} {' '.join(NPM_PACKAGES)}`."
        )
    return [str(binary), "--stdio"]


@dataclass
class Scores:
    """One project's figures (see the module docstring)."""

    project: str
    server: str
    files: int = 0
    asked: int = 0
    kept: int = 0
    local: int = 0
    outside: int = 0
    precision: list[float] = field(default_factory=list)
    bare_precision: list[float] = field(default_factory=list)
    top1: list[float] = field(default_factory=list)
    recall: list[float] = field(default_factory=list)
    forms: dict[str, list[float]] = field(default_factory=dict)
    ref_precision: list[float] = field(default_factory=list)
    ref_recall: list[float] = field(default_factory=list)
    ref_import_resolved: int = 0
    index_seconds: float = 0.0
    call_ms: list[float] = field(default_factory=list)
    ref_call_ms: list[float] = field(default_factory=list)
    server_first_seconds: float = 0.0
    server_call_ms: list[float] = field(default_factory=list)
    server_ref_ms: list[float] = field(default_factory=list)


def _code_files(root: str, suffixes: tuple[str, ...]) -> list[str]:
    names = list_files(".", RgOptions(policy=Policy()), cwd=root)
    return sorted(os.path.join(root, n) for n in names if n.endswith(suffixes) and not n.endswith(".d.ts"))


def _rel(root: str, path: str) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")


def run_project(
    scores: Scores,
    root: str,
    server: list[str],
    language: str,
    suffixes: tuple[str, ...],
    names: int,
    refs: int,
    options: dict[str, object] | None = None,
) -> Scores:
    """Fill ``scores`` for one project (the index is built from nothing into a temporary file)."""
    with tempfile.TemporaryDirectory(prefix="leanread-navigate-") as folder:
        store = SymbolStore(root, path=Path(folder) / "index.sqlite3")
        started = time.perf_counter()
        store.refresh()
        scores.index_seconds = time.perf_counter() - started
        scores.files = store.file_count()
        client = LspClient(server, root)
        try:
            _compare(scores, store, client, root, language, suffixes, names, refs, options)
        finally:
            client.close()
            store.close()
    return scores


def _compare(
    scores: Scores,
    store: SymbolStore,
    client: LspClient,
    root: str,
    language: str,
    suffixes: tuple[str, ...],
    names: int,
    refs: int,
    options: dict[str, object] | None,
) -> None:
    started = time.perf_counter()
    client.initialize(options)
    first = True
    kept: list[tuple[Sample, set[tuple[str, int]]]] = []
    for sample in draw(_code_files(root, suffixes), names * 4, seed=30):
        if len(kept) >= names:
            break
        scores.asked += 1
        client.open(sample.path, language)
        asked = time.perf_counter()
        truth = _loaded(client, sample, client.definition(sample.path, sample.line, sample.character), first)
        if first:
            scores.server_first_seconds = time.perf_counter() - started
            first = False
        else:
            scores.server_call_ms.append((time.perf_counter() - asked) * 1000)
        inside = {(_rel(root, p), line) for p, line, _ in truth if p.startswith(root + os.sep)}
        if not inside or len(inside) < len(truth):
            scores.outside += 1
            continue
        if (_rel(root, sample.path), sample.line + 1) in inside:
            continue  # the use is its own definition
        if any(is_local(p, line, character) for p, line, character in truth):
            scores.local += 1
            continue
        kept.append((sample, inside))
        _score_definitions(scores, store, root, sample, inside)
    scores.kept = len(kept)
    for sample, inside in kept[:refs]:
        _score_references(scores, store, client, root, language, sample, inside)


def _loaded(
    client: LspClient, sample: Sample, truth: list[tuple[str, int, int]], first: bool
) -> list[tuple[str, int, int]]:
    """The answer once the server has loaded its project: typescript-language-server answers
    with the ``import`` line of the file asked about until then (asked again every 0.2 s, up to
    60 s for the first question and 5 s for later ones)."""
    deadline = time.monotonic() + (60 if first else 5)
    while time.monotonic() < deadline and any(_is_import_line(p, line) for p, line, _ in truth):
        time.sleep(0.2)
        truth = client.definition(sample.path, sample.line, sample.character)
    return truth


def _is_import_line(path: str, line: int) -> bool:
    try:
        text = Path(path).read_text("utf-8", "replace").split("\n")[line - 1]
    except (OSError, IndexError):
        return False
    return text.lstrip().startswith(("import ", "from "))


def _score_definitions(
    scores: Scores, store: SymbolStore, root: str, sample: Sample, truth: set[tuple[str, int]]
) -> None:
    """leanread asked as an agent that read the use's file last asks (``near``), and, for the
    ``without the file`` column, as one that read nothing."""
    near = _rel(root, sample.path)
    asked = time.perf_counter()
    store.refresh()
    found = likely_definitions(store, sample.query, near).shown
    scores.call_ms.append((time.perf_counter() - asked) * 1000)
    precision, top1, recall = _scored(found, truth)
    scores.precision.append(precision)
    scores.top1.append(top1)
    scores.recall.append(recall)
    scores.forms.setdefault(sample.form, []).append(top1)
    scores.bare_precision.append(_scored(likely_definitions(store, sample.query).shown, truth)[0])


def _scored(found: Sequence[Found], truth: set[tuple[str, int]]) -> tuple[float, float, float]:
    """(precision, top-1, recall) of ``found`` against the server's ``truth``: a row that stands
    for several definitions side by side (overloads) is right when one of them is."""
    if not found:
        return 0.0, 0.0, 0.0
    rows = [{(f.path, line) for line in f.name_lines} for f in found]
    hits = [row for row in rows if row & truth]
    return len(hits) / len(rows), 1.0 if rows[0] & truth else 0.0, len(set().union(*rows) & truth) / len(truth)


def _score_references(
    scores: Scores,
    store: SymbolStore,
    client: LspClient,
    root: str,
    language: str,
    sample: Sample,
    truth: set[tuple[str, int]],
) -> None:
    path, line = sorted(truth)[0]
    full = os.path.join(root, path)
    text = Path(full).read_text("utf-8", "replace").split("\n")[line - 1]
    name = sample.query.split(".")[-1]
    column = text.find(name)
    if column < 0:
        return
    client.open(full, language)
    asked = time.perf_counter()
    character = len(text[:column].encode("utf-16-le")) // 2
    server = {(_rel(root, p), n) for p, n, _ in client.references(full, line - 1, character)}
    scores.server_ref_ms.append((time.perf_counter() - asked) * 1000)
    asked = time.perf_counter()
    store.refresh()
    near = _rel(root, sample.path)
    ours = references(store, sample.query, likely_definitions(store, sample.query, near).shown).found
    scores.ref_call_ms.append((time.perf_counter() - asked) * 1000)
    resolved = {(r.path, r.line) for r in ours if r.label == IMPORT_RESOLVED}
    listed = {(r.path, r.line) for r in ours}
    scores.ref_import_resolved += len(resolved)
    if resolved:
        scores.ref_precision.append(len(resolved & server) / len(resolved))
    if server:
        scores.ref_recall.append(len(listed & server) / len(server))


def django_root(cache: Path | None) -> str:
    """The django 4.2 sdist tree (downloaded once, as the replay's sources are)."""
    from .sources import release_source

    return os.path.realpath(release_source("django", "4.2", cache))


def rxjs_root(cache: Path | None) -> str:
    """rxjs's ``src`` folder from its npm tarball, with a ``tsconfig.json`` (written once)."""
    return npm_source_root(*TS_PACKAGE, cache)


def npm_source_root(package: str, version: str, cache: Path | None) -> str:
    """The ``src`` folder of an npm package's tarball, which ships its TypeScript sources, with a
    ``tsconfig.json`` (written once) so the server loads it as one project.

    Raises:
        LeanreadError: npm could not fetch it.
    """
    from .replay.source_more import fetch_npm
    from .sources import default_cache

    source = fetch_npm(package, version, cache or default_cache())
    root = source.root / "package" / "src" if (source.root / "package").is_dir() else source.root / "src"
    config = root / "tsconfig.json"
    if not config.exists():
        config.write_text(json.dumps(_TSCONFIG, indent=2) + "\n")
    return os.path.realpath(root)


def bench_navigate(names: int = 300, refs: int = 30, cache: Path | None = None) -> list[Scores]:
    """Every project (see the module docstring).

    Raises:
        LeanreadError: a server is not installed, a source cannot be fetched, or a server fails.
    """
    if shutil.which("node") is None:
        raise LeanreadError("node is not installed; the language servers need it.")
    python = Scores("django 4.2", "pyright")
    run_project(python, django_root(cache), server_command("pyright-langserver"), "python", (".py",), names, refs)
    results = [python]
    ts_server = server_command("typescript-language-server")
    for package, version in TS_PACKAGES:
        script = Scores(f"{package} {version} (src)", "typescript-language-server")
        root = npm_source_root(package, version, cache)
        run_project(script, root, ts_server, "typescript", (".ts",), names, refs, tsserver_options())
        results.append(script)
    return results


def _mean(values: Sequence[float]) -> str:
    return f"{statistics.fmean(values):.3f}" if values else "-"


def _ms(values: Sequence[float], quantile: float) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    return f"{ordered[min(len(ordered) - 1, int(quantile * len(ordered)))]:.1f}"


def markdown_report(results: Sequence[Scores], command: str) -> str:
    """The section for BENCHMARKS.md."""
    rows = [
        f"Command: `{command}`",
        "",
        "| project | server | files indexed | names asked / kept | definitions precision | top-1 | recall "
        "| precision, nothing read | refs import-resolved precision | refs recall (all labels) |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for s in results:
        rows.append(
            f"| {s.project} | {s.server} | {s.files:,} | {s.asked} / {s.kept} | {_mean(s.precision)} "
            f"| {_mean(s.top1)} | {_mean(s.recall)} | {_mean(s.bare_precision)} "
            f"| {_mean(s.ref_precision)} ({s.ref_import_resolved} uses, "
            f"{len(s.ref_precision)} names) | {_mean(s.ref_recall)} |"
        )
    rows += [
        "",
        "| project | leanread index | leanread call p50 / p95 (ms) | leanread refs p50 (ms) "
        "| server to first answer | server call p50 / p95 (ms) | server refs p50 (ms) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for s in results:
        rows.append(
            f"| {s.project} | {s.index_seconds:.1f} s | {_ms(s.call_ms, 0.5)} / {_ms(s.call_ms, 0.95)} "
            f"| {_ms(s.ref_call_ms, 0.5)} | {s.server_first_seconds:.1f} s "
            f"| {_ms(s.server_call_ms, 0.5)} / {_ms(s.server_call_ms, 0.95)} | {_ms(s.server_ref_ms, 0.5)} |"
        )
    rows += ["", "Top-1 by the form of the question (share right):", ""]
    for s in results:
        forms = ", ".join(f"{form} {_mean(v)} ({len(v)})" for form, v in sorted(s.forms.items()))
        rows.append(
            f"- {s.project}: {forms}; draws left out: {s.outside} outside the tree or unanswered, {s.local} local."
        )
    return "\n".join(rows)
