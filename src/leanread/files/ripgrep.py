"""Run ripgrep (``rg``) for the ``grep`` and ``ls`` tools: find the binary, build its command line,
stream its output under a time limit and a size budget, and turn its failures into one sentence.

The binary is the one the ``ripgrep`` wheel installs next to this interpreter (the virtualenv's
``bin``), else ``rg`` on ``PATH``. Every run passes ``--no-config`` (a user's ``RIPGREP_CONFIG_PATH``
cannot change the results), searches hidden files but never ``.git``, honours ``.gitignore`` (also
outside a git repository: ``--no-require-git``) and leaves out the deny list through an ignore
file written once per policy. ripgrep does not follow symbolic links. The deny list given to
ripgrep narrows what it opens; the tools check every path it reports against the workspace again,
so a denied file's contents never reach a result even where a repository's own ignore files
re-include it.

Output shapes (ripgrep 14):

- ``search_json``: the ``--json`` messages, one per line; per file a ``begin``, its ``match``
  messages in line order, an ``end`` with ``stats.matched_lines`` and ``binary_offset`` (not null
  when the file holds a NUL byte).
- ``count_files``: ``--count --null``, ``path NUL matching-lines`` per file.

Binary files: ripgrep calls a file binary at its first NUL byte and, in a folder, stops searching
it there, so a text file with one stray NUL before its match would vanish from the results. So
``search_json`` passes ``--binary`` (a file with a NUL is searched on until its first match) and
judges each file ripgrep found binary as ``read`` does (``sniff.binary_kind`` on its first
bytes): an almost-text file is searched again with ``--text`` (exact lines, line numbers right),
a binary one is left out and named in the caller's ``binary`` list. ``count_files`` counts with
``--text`` and judges every counted file the same way.
"""

from __future__ import annotations

import atexit
import base64
import binascii
import contextlib
import itertools
import json
import os
import re
import selectors
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..config.settings import Policy
from ..errors import InvalidArgument, InvalidRegex, LeanreadError, SearchUnavailable
from .sniff import binary_kind

__all__ = [
    "DEFAULT_TIMEOUT",
    "JSON_BUDGET",
    "FileHits",
    "Hit",
    "RgOptions",
    "SearchUnavailable",
    "count_files",
    "find_rg",
    "parse_hits",
    "search_json",
]

#: Seconds one ripgrep run may take before it is stopped.
DEFAULT_TIMEOUT = 30.0
#: Bytes of ``--json`` output kept from one run; past it ``search_json`` gives up (returns None)
#: and the caller counts with ``count_files`` instead (a pattern that matches most lines).
JSON_BUDGET = 4 * 1024 * 1024
#: Leading bytes that decide whether a file with a NUL byte is text, by default (``Limits.sniff_bytes``).
SNIFF_BYTES = 8192

_EXE = ".exe" if os.name == "nt" else ""


def _scripts_dirs() -> list[str]:
    """Where pip puts the ``ripgrep`` wheel's ``rg`` for this interpreter: its scripts folder
    (the virtualenv's ``bin``), the folder of ``sys.executable``, and the user scheme's."""
    dirs = [sysconfig.get_path("scripts"), os.path.dirname(sys.executable)]
    with contextlib.suppress(KeyError):
        dirs.append(sysconfig.get_path("scripts", f"{os.name}_user"))
    return [d for d in dict.fromkeys(dirs) if d]


_FOUND: str | None = None


def find_rg(scripts_dirs: Sequence[str] | None = None, path: str | None = None) -> str:
    """The ``rg`` binary to run: the ripgrep wheel's next to this interpreter, else ``rg`` on ``PATH``.

    Args:
        scripts_dirs: folders to look in first; default ``_scripts_dirs()``.
        path: the search path for the fallback (``os.pathsep``-separated); default ``$PATH``.

    Returns:
        An absolute path to an executable file. With both arguments at their defaults the answer
        is remembered for the process.

    Raises:
        SearchUnavailable: neither exists.
    """
    global _FOUND
    defaults = scripts_dirs is None and path is None
    if defaults and _FOUND is not None:
        return _FOUND
    with _FIND_LOCK:  # sysconfig's path expansion is not safe from two threads at once
        found = _locate(scripts_dirs, path)
    if defaults:
        _FOUND = found
    return found


_FIND_LOCK = threading.Lock()


def _locate(scripts_dirs: Sequence[str] | None, path: str | None) -> str:
    for folder in _scripts_dirs() if scripts_dirs is None else scripts_dirs:
        candidate = os.path.join(folder, "rg" + _EXE)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            found = os.path.abspath(candidate)
            break
    else:
        on_path = shutil.which("rg", path=path)
        if on_path is None:
            raise SearchUnavailable(
                "ripgrep (rg) is not installed, so grep and ls cannot run; install it with "
                "`pip install 'ripgrep>=14.1,<15'` in leanread's environment, or put an rg binary on PATH."
            )
        found = os.path.abspath(on_path)
    return found


# --- the deny list as an ignore file ------------------------------------------------------

_IGNORE_FILES: dict[tuple[tuple[str, ...], tuple[str, ...]], str] = {}
_IGNORE_LOCK = threading.Lock()


def _gitignore_line(pattern: str, negate: bool) -> str:
    """A deny or allow name pattern as a ``.gitignore`` line (a leading ``#``/``!`` and trailing
    spaces escaped)."""
    escaped = "\\" + pattern if pattern[0] in "#!" else pattern
    if escaped.endswith(" "):
        escaped = escaped[:-1] + "\\ "
    if "/" in pattern:
        escaped = "**/" + escaped  # a slash would anchor it to the ignore file's folder
    return ("!" if negate else "") + escaped


def ignore_file(policy: Policy) -> str:
    """A file in ``.gitignore`` syntax that leaves out the policy's deny list (allow patterns
    re-included), written once per policy for the life of the process; ripgrep reads it through
    ``--ignore-file``. A pattern without a slash matches a name at any depth, folders included;
    one with slashes (``.kube/config``) is written ``**/.kube/config`` to match at any depth too."""
    key = (policy.deny, policy.allow)
    with _IGNORE_LOCK:
        existing = _IGNORE_FILES.get(key)
        if existing is not None and os.path.isfile(existing):
            return existing
        lines = [_gitignore_line(p, False) for p in policy.deny] + [_gitignore_line(p, True) for p in policy.allow]
        fd, name = tempfile.mkstemp(prefix="leanread-deny-", suffix=".ignore")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
        atexit.register(_remove, name)
        _IGNORE_FILES[key] = name
        return name


def _remove(name: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(name)


# --- running rg -------------------------------------------------------------------------


@dataclass(frozen=True)
class RgOptions:
    """What narrows a search besides the pattern.

    Attributes:
        case_insensitive: ``-i``.
        glob: a ``--glob`` (ripgrep's syntax: ``*.py``, ``src/**/*.ts``, ``!*.min.js``), or None.
        file_type: a ``--type`` (``py``, ``js``, …), or None.
        policy: the deny list, given to ripgrep as an ignore file.
        timeout: seconds before the run is stopped.
        skip: extra folder names left out (``--glob !name``).
        fixed_strings: ``--fixed-strings``: the pattern is literal text, not a regex.
        no_ignore: ``--no-ignore``: search what ``.gitignore``, ``.ignore``, ``.rgignore`` and git's
            exclude files leave out (the deny list still applies: it is an ``--ignore-file``).
    """

    case_insensitive: bool = False
    glob: str | None = None
    file_type: str | None = None
    policy: Policy = field(default_factory=Policy)
    timeout: float = DEFAULT_TIMEOUT
    skip: tuple[str, ...] = ()
    fixed_strings: bool = False
    no_ignore: bool = False


def _base(options: RgOptions) -> list[str]:
    args = [find_rg(), "--no-config", "--no-messages", "--hidden", "--no-require-git", "--glob", "!.git"]
    for name in options.skip:
        args += ["--glob", f"!{name}"]
    args += ["--ignore-file", ignore_file(options.policy)]
    if options.no_ignore:
        args.append("--no-ignore")
    if options.glob:
        args += ["--glob", options.glob]
    if options.file_type:
        args += ["--type", options.file_type]
    if options.case_insensitive:
        args.append("--ignore-case")
    if options.fixed_strings:
        args.append("--fixed-strings")
    return args


_LOGGED = re.compile(r"rg: (DEBUG|TRACE)\|")


def _problem(stderr: str, options: RgOptions) -> LeanreadError:
    """ripgrep's complaint as one sentence with the next step."""
    lines = [line.strip() for line in stderr.strip().splitlines() if line.strip() and not _LOGGED.match(line)]
    text = " ".join(lines)
    if "regex parse error" in text:
        reason = next((line[len("error: ") :] for line in reversed(lines) if line.startswith("error: ")), text)
        return InvalidRegex(
            f"pattern is not a valid ripgrep regular expression ({reason}); escape characters such as "
            "( [ { . * + ? | with a backslash to match them literally.",
            reason,
        )
    if 'literal "\\n" is not allowed' in text:
        return InvalidArgument(
            "pattern matches a line break, but grep matches within one line; search for one line of the text."
        )
    if "exceeds size limit" in text:
        return InvalidArgument(
            "pattern makes a regex too big for ripgrep; use smaller repetition counts, e.g. {1,100} "
            "rather than {1,100000}."
        )
    if "unrecognized file type" in text:
        return InvalidArgument(
            f"type {options.file_type!r} is not a file type ripgrep knows; use one such as py, js, ts, rust, go, "
            "java or md, or use glob instead."
        )
    if "error parsing glob" in text:
        reason = text.split("': ", 1)[-1] if "': " in text else text
        return InvalidArgument(
            f"glob {options.glob!r} is not a valid glob ({reason}); use a pattern such as *.py or src/**/*.ts."
        )
    first = lines[0].removeprefix("rg: ") if lines else "no message"
    return SearchUnavailable(f"ripgrep failed ({first}); check the arguments, or run rg by hand to see why.")


def _run(
    args: list[str],
    options: RgOptions,
    cwd: str,
    budget: int | None,
    on_chunk: Callable[[bytes], None] | None = None,
    log: bytearray | None = None,
) -> bytes | None:
    """ripgrep's stdout, or None once it passes ``budget`` bytes (the run is stopped then).
    With ``on_chunk``, each piece of output goes to it as it arrives (while ripgrep still runs)
    and the return value is ``b""``. With ``log``, ripgrep's stderr (its ``--debug`` log, when
    ``args`` ask for it) is appended to it.

    Raises:
        LeanreadError: the run timed out, could not start, or failed (see ``_problem``).
    """
    deadline = time.monotonic() + options.timeout
    with tempfile.TemporaryFile() as err:
        try:
            proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err, cwd=cwd)
        except OSError as exc:
            raise SearchUnavailable(
                f"ripgrep ({args[0]}) could not be started ({exc.strerror or exc}); reinstall the ripgrep wheel."
            ) from None
        chunks: list[bytes] = []
        size = 0
        over = expired = False
        assert proc.stdout is not None
        try:
            with selectors.DefaultSelector() as selector:
                selector.register(proc.stdout, selectors.EVENT_READ)
                while True:
                    left = deadline - time.monotonic()
                    if left <= 0 or not selector.select(left):
                        expired = True
                        break
                    chunk = os.read(proc.stdout.fileno(), 1 << 20)
                    if not chunk:
                        break
                    size += len(chunk)
                    if budget is not None and size > budget:
                        over = True
                        break
                    if on_chunk is None:
                        chunks.append(chunk)
                    else:
                        on_chunk(chunk)
        finally:
            if expired or over:
                proc.kill()
            proc.stdout.close()
            code = proc.wait()
        if expired:
            raise LeanreadError(
                f"The search took longer than {options.timeout:g} s and was stopped; narrow it with path, glob or type."
            )
        if over:
            return None
        if code == 2 and not size:
            err.seek(0)
            raise _problem(err.read().decode("utf-8", "replace"), options)
        if log is not None:
            err.seek(0)
            log += err.read()
    return b"".join(chunks)


def _debug(log: bytearray | None) -> list[str]:
    """``--debug`` when the caller wants the log (see ``rglog``)."""
    return [] if log is None else ["--debug"]


def _path_of(value: dict[str, Any]) -> str:
    """A path of ripgrep's JSON: ``{"text": …}``, or ``{"bytes": base64}`` for a name that is not UTF-8."""
    if "text" in value:
        return str(value["text"])
    return os.fsdecode(base64.b64decode(value["bytes"]))


@dataclass(frozen=True)
class FileHits:
    """The matching lines ripgrep found in one file.

    Attributes:
        path: the path as ripgrep printed it (absolute when the searched path was).
        count: matching lines.
        block: the file's raw ``match`` messages (JSON lines), or None when only counted.
        transcoded: ripgrep searched the file's text as ``read`` decodes it, written as UTF-8 to
            ``searched`` (a legacy encoding, UTF-16 without a byte-order mark); the hits' lines
            are that UTF-8.
        searched: the file ripgrep searched in place of ``path`` (when ``transcoded``).
    """

    path: str
    count: int
    block: bytes | None = None
    transcoded: bool = False
    searched: str | None = None


_BEGIN = b'{"type":"begin"'
_END = b'{"type":"end"'


class _Blocks:
    """Cuts ``--json`` output, as it arrives, into one ``FileHits`` per file."""

    def __init__(self, on_file: Callable[[FileHits], None] | None) -> None:
        self.data = bytearray()
        self.pos = 0
        self.files: list[FileHits] = []
        self.binary: list[str] = []  # files ripgrep found a NUL byte in (their hits are not kept)
        self.on_file = on_file
        self.scanned = 0  # where the search for the current file's end message goes on from

    def feed(self, chunk: bytes) -> None:
        data = self.data
        data += chunk
        # A JSON string never holds a bare '"', so these markers only start messages.
        while (begin := data.find(_BEGIN, self.pos)) >= 0:
            # go on where the last chunk's search stopped: a file with many hits arrives in many
            # chunks, and searching its block from the start each time would be quadratic
            end = data.find(_END, max(begin, self.scanned))
            eol = data.find(b"\n", end) if end >= 0 else -1
            if eol < 0:
                self.scanned = max(begin, (end if end >= 0 else len(data)) - len(_END))
                return  # the file's end message has not arrived yet
            closing = json.loads(data[end:eol])["data"]
            self.pos = self.scanned = eol
            if closing.get("binary_offset") is not None:
                self.binary.append(_path_of(closing["path"]))
                continue
            first = data.find(b"\n", begin) + 1
            hits = FileHits(_path_of(closing["path"]), int(closing["stats"]["matched_lines"]), bytes(data[first:end]))
            self.files.append(hits)
            if self.on_file is not None:
                self.on_file(hits)


def search_json(
    pattern: str,
    paths: Sequence[str],
    options: RgOptions,
    *,
    cwd: str,
    budget: int | None = JSON_BUDGET,
    on_file: Callable[[FileHits], None] | None = None,
    binary: list[str] | None = None,
    sniff_bytes: int = SNIFF_BYTES,
    log: bytearray | None = None,
) -> list[FileHits] | None:
    """Search ``paths`` for ``pattern`` with ``rg --json``; one ``FileHits`` per file with a
    match, in ripgrep's order (files with a NUL byte that are almost text after the others).

    Args:
        on_file: called with each file's hits as soon as ripgrep has finished the file, while it
            searches on (so a caller can prepare its result meanwhile).
        binary: gets the path of each file with a match that is left out as binary.
        sniff_bytes: leading bytes that decide whether a file with a NUL byte is text.
        log: gets the walk's ``--debug`` log (``rglog.parse_log`` reads what it left out).

    Returns:
        None when the output passed ``budget`` bytes: count with ``count_files`` instead.

    Raises:
        InvalidArgument: the pattern, glob or type is not valid for ripgrep.
        SearchUnavailable: ripgrep is missing or failed.
        LeanreadError: the run took longer than ``options.timeout``.
    """
    args = [*_base(options), *_debug(log), "--binary", "--json", "--regexp", pattern, "--", *paths]
    blocks = _Blocks(on_file)
    if _run(args, options, cwd, budget, blocks.feed, log) is None:
        return None
    texts, binaries = _judge(blocks.binary, cwd, sniff_bytes)
    if binary is not None:
        binary.extend(binaries)
    if texts:
        again = _Blocks(on_file)
        args = [*_base(options), "--text", "--json", "--regexp", pattern, "--", *texts]
        if _run(args, options, cwd, budget, again.feed) is None:
            return None
        blocks.files.extend(again.files)
    return blocks.files


def _judge(paths: Sequence[str], cwd: str, sniff_bytes: int) -> tuple[list[str], list[str]]:
    """``paths`` split into (almost text, binary) by their first ``sniff_bytes``, as ``read``
    decides; a file that cannot be opened counts as binary."""
    texts: list[str] = []
    binaries: list[str] = []
    for path in paths:
        try:
            fd = os.open(os.path.join(cwd, path), os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            binaries.append(path)
            continue
        with os.fdopen(fd, "rb") as handle:
            head = handle.read(sniff_bytes)
        (texts if binary_kind(head) is None else binaries).append(path)
    return texts, binaries


_COUNT_ROW = re.compile(rb"([^\0]*)\0([0-9]+)\n")


def count_files(
    pattern: str,
    paths: Sequence[str],
    options: RgOptions,
    *,
    cwd: str,
    binary: list[str] | None = None,
    sniff_bytes: int = SNIFF_BYTES,
    log: bytearray | None = None,
) -> list[FileHits]:
    """Matching lines per file (``rg --count --text``), without their text; binary files (judged
    as ``read`` judges them) are left out and put in ``binary``; ``log`` as for ``search_json``.

    Raises:
        as ``search_json``.
    """
    args = [*_base(options), *_debug(log), "--text", "--count", "--null", "--regexp", pattern, "--", *paths]
    data = _run(args, options, cwd, None, log=log) or b""
    # ``path\0count\n``: a name may hold a line break, never a NUL
    files = [FileHits(os.fsdecode(name), int(count)) for name, count in _COUNT_ROW.findall(data)]
    _, binaries = _judge([f.path for f in files], cwd, sniff_bytes)
    if binary is not None:
        binary.extend(binaries)
    left_out = set(binaries)
    return [f for f in files if f.path not in left_out]


@dataclass(frozen=True)
class Hit:
    """One matching line from ripgrep.

    Attributes:
        line: 1-based line number.
        raw: the line's bytes as ripgrep saw them (UTF-16 files transcoded to UTF-8), line
            ending included.
        spans: ``(start, end)`` byte offsets of the first matches within ``raw`` (``MAX_SPANS`` at most).
        offset: byte offset of the line's start in what ripgrep searched (the file itself, unless
            ripgrep transcoded it from UTF-16 or dropped a byte-order mark).
        utf8: ``raw`` is UTF-8 whatever the file's encoding (ripgrep searched the file's decoded
            text, ``FileHits.transcoded``).
    """

    line: int
    raw: bytes
    spans: tuple[tuple[int, int], ...]
    offset: int = 0
    utf8: bool = False


def _bytes_of(value: dict[str, Any]) -> bytes:
    if "text" in value:
        return str(value["text"]).encode("utf-8", "surrogatepass")
    try:
        return base64.b64decode(value["bytes"])
    except (binascii.Error, KeyError):
        return b""


#: Submatches kept per line at most: a pattern that matches the empty string (``a*``) gives one
#: at every column of a line, and only the first ones are ever shown or needed.
MAX_SPANS = 8
#: ripgrep writes a match message's fields in one order, the submatches last (``--json`` docs).
_SUBMATCHES = b',"submatches":['
_SPAN = re.compile(rb'"start":([0-9]+),"end":([0-9]+)\}')
#: Bytes of submatches past which they are read with ``_SPAN`` rather than parsed as JSON.
_LONG_SUBMATCHES = 512


def _data_of(message: bytes) -> tuple[dict[str, Any], tuple[tuple[int, int], ...]] | None:
    """A ``match`` message's ``data`` and its first ``MAX_SPANS`` submatch spans, or None for
    another message; thousands of submatches are read without building their JSON objects."""
    cut = message.find(_SUBMATCHES)
    if cut >= 0 and len(message) - cut > _LONG_SUBMATCHES and message.startswith(b'{"type":"match"'):
        data = json.loads(message[:cut] + b"}}")["data"]
        found = itertools.islice(_SPAN.finditer(message, cut), MAX_SPANS)
        return data, tuple((int(m.group(1)), int(m.group(2))) for m in found)
    parsed = json.loads(message)
    if parsed.get("type") != "match":
        return None
    data = parsed["data"]
    subs = itertools.islice(data.get("submatches", ()), MAX_SPANS)
    return data, tuple((int(sub["start"]), int(sub["end"])) for sub in subs)


def parse_hits(block: bytes, utf8: bool = False) -> list[Hit]:
    """The ``match`` messages of one file's block (see ``FileHits.block``), in line order, each
    with at most ``MAX_SPANS`` submatch spans; ``utf8`` as ``Hit.utf8``."""
    hits: list[Hit] = []
    for line in block.splitlines():
        found = _data_of(line)
        if found is None:
            continue
        data, spans = found
        offset = int(data.get("absolute_offset", 0))
        hits.append(Hit(int(data["line_number"]), _bytes_of(data["lines"]), spans, offset, utf8))
    return hits
