"""Reading code files for the index: one file's bytes to its facts (``parse_file``, pure but for
the read), and many files at once (``parse_files``), spread over worker processes when there are
enough of them to pay for starting the workers (a first build of a big tree: tree-sitter's parse
and the walk over each tree are CPU work, and each file is independent).
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ..files.sniff import binary_kind
from .extract import facts_of, indexed_language
from .facts import FileFacts

#: Files larger than this (bytes) are not indexed (a generated or minified file).
MAX_FILE_BYTES = 2 * 1024 * 1024
#: Files to read at least before worker processes are started (each costs an interpreter and
#: leanread's imports, about half a second of CPU).
PARALLEL_FILES = 400
#: Worker processes at most.
MAX_WORKERS = 4
#: Files a worker takes at a time.
CHUNK_FILES = 16


@dataclass(frozen=True)
class Job:
    """A file to read: ``rel`` under ``root``, its stat, and the hash the index holds (or None)."""

    root: str
    rel: str
    size: int
    mtime_ns: int
    known_hash: bytes | None


@dataclass(frozen=True)
class Parsed:
    """What reading one file gave.

    Attributes:
        job: the file asked for.
        skipped: why it is not indexed (``over 2 MiB``, ``unreadable``, ``binary``), or empty.
        digest: the hash of its bytes (empty when skipped).
        facts: what it says about names; None when skipped, or when its bytes are those the index
            holds (touched, not changed).
    """

    job: Job
    skipped: str = ""
    digest: bytes = b""
    facts: FileFacts | None = None


def content_hash(data: bytes) -> bytes:
    """The index's hash of a file's bytes (BLAKE2b, 16 bytes)."""
    return hashlib.blake2b(data, digest_size=16).digest()


def parse_file(job: Job) -> Parsed:
    """Read and parse one file (see ``Parsed``); never raises for the file's sake."""
    language = indexed_language(job.rel)
    if language is None:
        return Parsed(job, skipped="not code")
    if job.size > MAX_FILE_BYTES:
        return Parsed(job, skipped=f"over {MAX_FILE_BYTES // (1024 * 1024)} MiB")
    try:
        with open(os.path.join(job.root, job.rel), "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError:
        return Parsed(job, skipped="unreadable")
    if binary_kind(data[:8192]) is not None:
        return Parsed(job, skipped="binary")
    digest = content_hash(data)
    if digest == job.known_hash:
        return Parsed(job, digest=digest)
    return Parsed(job, digest=digest, facts=facts_of(language, data))


def workers_for(count: int) -> int:
    """Worker processes for reading ``count`` files: none below ``PARALLEL_FILES``, on one CPU, or
    off Linux (see ``parse_files``)."""
    if count < PARALLEL_FILES or sys.platform != "linux":
        return 0
    cpus = len(os.sched_getaffinity(0))
    return min(cpus, MAX_WORKERS) if cpus > 1 else 0


def parse_files(jobs: Sequence[Job], workers: int | None = None) -> Iterator[Parsed]:
    """``parse_file`` of each job, in order; in ``workers`` processes (default ``workers_for``:
    when there are many).

    The workers are forked: a spawned worker imports the caller's ``__main__`` again (a script
    without a ``__main__`` guard runs twice). A fork copies the caller's threads' locks, so the
    workers touch nothing but files, tree-sitter and pickling, and every parser and query is
    made before the fork (no import runs in a worker).
    """
    workers = workers_for(len(jobs)) if workers is None else workers
    if not workers:
        yield from map(parse_file, jobs)
        return
    for language in {indexed_language(job.rel) for job in jobs} - {None}:
        facts_of(str(language), b"x = 1\n")  # its parser and queries made once, before the fork
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        yield from pool.imap(parse_file, jobs, chunksize=CHUNK_FILES)
