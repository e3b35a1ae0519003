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

Its searches and their output (``search_json``, ``count_files``, the hits of a file) are
``rgsearch``'s.
"""

from __future__ import annotations

import atexit
import contextlib
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

from ..config.settings import Policy
from ..errors import InvalidArgument, InvalidRegex, LeanreadError, SearchUnavailable

__all__ = [
    "DEFAULT_TIMEOUT",
    "JSON_BUDGET",
    "SNIFF_BYTES",
    "STREAM_BUDGET",
    "RgOptions",
    "SearchUnavailable",
    "base_args",
    "debug_args",
    "find_rg",
    "ignore_file",
    "run_rg",
]

#: Seconds one ripgrep run may take before it is stopped.
DEFAULT_TIMEOUT = 30.0
#: Bytes of ``--json`` match messages kept from one run; the files ripgrep finishes after that are
#: only counted (a pattern that matches most lines), and a page's counted files searched again.
JSON_BUDGET = 4 * 1024 * 1024
#: Bytes of ``--json`` output read from one run at most; past it ``search_json`` gives up (returns
#: None) and the caller counts with ``count_files`` instead, whose output is one line per file.
#: ripgrep writes about three times ``rg -n``'s bytes as JSON: 18 MB for ``self\.`` over django.
STREAM_BUDGET = 64 * 1024 * 1024
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


def glob_under(glob: str, folder: str) -> str:
    """``glob`` as ripgrep applies it under ``folder``: results show paths from the workspace
    root, so a glob written from there (``src/app/*.py`` with ``path="src"``) drops the folder,
    and one written from the folder itself (``./app/*.py``) drops its ``./``."""
    negated, pattern = ("!", glob[1:]) if glob.startswith("!") else ("", glob)
    pattern = pattern.removeprefix("./")
    prefix = folder.rstrip("/") + "/"
    if folder not in (".", "") and pattern.startswith(prefix):
        pattern = pattern[len(prefix) :]
    return negated + pattern


def base_args(options: RgOptions) -> list[str]:
    """ripgrep's arguments for ``options``. The caller's glob comes before the folders always left
    out (``.git``, ``options.skip``): of globs that match one path ripgrep obeys the last, so
    ``--glob '*'`` cannot bring ``.git`` back."""
    args = [find_rg(), "--no-config", "--no-messages", "--hidden", "--no-require-git"]
    if options.glob:
        args += ["--glob", options.glob]
    args += ["--glob", "!.git"]
    for name in options.skip:
        args += ["--glob", f"!{name}"]
    args += ["--ignore-file", ignore_file(options.policy)]
    if options.no_ignore:
        args.append("--no-ignore")
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


def run_rg(
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


def debug_args(log: bytearray | None) -> list[str]:
    """``--debug`` when the caller wants the log (see ``rglog``)."""
    return [] if log is None else ["--debug"]
