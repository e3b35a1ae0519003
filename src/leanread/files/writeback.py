"""Turn logical text back into a file's own bytes, and put bytes on disk atomically.

``encode_text`` inverts ``textfile.decode``: with ``lines = tf.raw_lines or tf.lines``
(``raw_lines`` keeps bytes that are not valid UTF-8), ``encode_text("\\n".join(lines) + ("\\n"
if tf.final_newline else ""), encoding=tf.encoding, bom=tf.bom, newline=tf.newline) == data``
whenever the codec is one-to-one on those bytes: always for UTF-8/16/32, and for the usual
legacy code pages, but not for every byte pair of cp932, say. ``encode_edit`` makes an edit
keep the bytes of the lines it does not touch even then. ``atomic_write`` writes a temp file in
the same folder and renames it over the target, so a reader sees the old bytes or the new,
never a mix, and a failure leaves the file as it was.
"""

from __future__ import annotations

import codecs
import contextlib
import difflib
import errno
import fcntl
import hashlib
import os
import secrets
import stat
import threading
from collections.abc import Iterator

from ..code.diffs import common_ends
from ..errors import PathError, UnencodableText
from .safeopen import WRITE_THEN, changed, walk_folder

# Byte-order marks by codec name (``codecs.lookup(name).name``).
_BOMS: dict[str, bytes] = {
    "utf-8": codecs.BOM_UTF8,
    "utf-16-le": codecs.BOM_UTF16_LE,
    "utf-16-be": codecs.BOM_UTF16_BE,
    "utf-32-le": codecs.BOM_UTF32_LE,
    "utf-32-be": codecs.BOM_UTF32_BE,
}
# Codecs that would write a BOM of their own, or strip one: the explicit codec they stand for.
_EXPLICIT = {"utf-8-sig": "utf-8", "utf-16": "utf-16-le", "utf-32": "utf-32-le"}
_NEWLINES = ("\n", "\r\n", "\r")


def encode_text(text: str, *, encoding: str, bom: bool, newline: str, display: str = "the file") -> bytes:
    """The bytes of logical ``text`` as the file stores them.

    Args:
        text: the logical text, ``"\\n"`` between lines (a final ``"\\n"`` for a final newline).
            For UTF-8, code points U+DC80-U+DCFF stand for bytes that are not valid UTF-8
            (``surrogateescape``, as in ``TextFile.raw_lines``) and are written as those bytes.
        encoding: the file's codec name (``TextFile.encoding``: ``utf-8``, ``utf-16-le``,
            ``cp1252``, ``gb18030``, …).
        bom: start with the byte-order mark of ``encoding`` (UTF-8, UTF-16/32 LE/BE only).
        newline: the file's line ending, ``"\\n"``, ``"\\r\\n"`` or ``"\\r"``; every ``"\\n"`` of
            ``text`` becomes it, other characters (a lone CR inside a line) stay as they are.
        display: the path as the model knows it, for messages.

    Raises:
        UnencodableText: a character ``encoding`` cannot hold; the message names it and its
            1-based line.
        ValueError: ``newline`` is not a line ending, or ``bom`` for an encoding without one.
    """
    if newline not in _NEWLINES:
        raise ValueError(f"newline must be LF, CRLF or CR, not {newline!r}")
    codec = codecs.lookup(encoding).name
    codec = _EXPLICIT.get(codec, codec)
    mark = b""
    if bom:
        if codec not in _BOMS:
            raise ValueError(f"{encoding} has no byte-order mark")
        mark = _BOMS[codec]
    body = text if newline == "\n" else text.replace("\n", newline)
    # Bytes of a UTF-8 file that are not valid UTF-8 come back from their surrogateescape code points.
    errors = "surrogateescape" if codec == "utf-8" else "strict"
    try:
        return mark + body.encode(codec, errors)
    except UnicodeEncodeError as exc:
        char = body[exc.start]
        line = body.count(newline, 0, exc.start) + 1
        raise UnencodableText(
            f"Line {line} of {display} would contain {char!r} (U+{ord(char):04X}), which the file's encoding, "
            f"{encoding}, cannot hold, so nothing was written; use only characters {encoding} has, or an escape."
        ) from None


#: The changed middle of a file is compared line by line when (old lines) * (new lines) is at most
#: this; a bigger middle is re-encoded whole.
MAX_DIFF_CELLS = 4_000_000


def encode_edit(
    original: bytes, old_text: str, new_text: str, *, encoding: str, bom: bool, newline: str, display: str = "the file"
) -> bytes:
    """The bytes of ``new_text`` for a file whose bytes were ``original`` and whose logical text
    was ``old_text``: lines the edit left alone keep their original bytes.

    That is ``encode_text(new_text, …)`` whenever the codec gives ``original`` back from
    ``old_text``. Some legacy codecs do not (cp932 decodes two byte pairs to one character and
    writes it back as one of them); then the file's lines are spliced: unchanged lines (the
    common head and tail, and equal lines in between) are copied from ``original``, the others
    encoded. When the bytes cannot be split into the same lines, ``encode_text`` decides alone.

    Args:
        original: the file's bytes the edit was planned on.
        old_text: their logical text (see ``encode_text``).
        new_text: the logical text after the edit.
        encoding, bom, newline, display: as for ``encode_text``.

    Raises:
        UnencodableText: a character of ``new_text`` that ``encoding`` cannot hold.
        ValueError: as for ``encode_text``.
    """
    encoded = encode_text(new_text, encoding=encoding, bom=bom, newline=newline, display=display)
    if encode_text(old_text, encoding=encoding, bom=bom, newline=newline) == original:
        return encoded
    codec = _EXPLICIT.get(codecs.lookup(encoding).name, codecs.lookup(encoding).name)
    errors = "surrogateescape" if codec == "utf-8" else "strict"
    mark = _BOMS[codec] if bom else b""
    # Lines are cut at each LF and keep their own CR, so a line of another ending (a mixed
    # file) keeps it; new lines get ``newline``. UTF-16/32 round-trip exactly above.
    separator, cr = b"\n", b"\r" if newline == "\r\n" else b""
    if len("\n".encode(codec)) != 1 or newline == "\r":
        return encoded
    raw = original[len(mark) :].split(separator)
    old, new = old_text.split("\n"), new_text.split("\n")
    try:
        same_lines = len(raw) == len(old) and all(
            _strip_cr(r, cr).decode(codec, errors) == o for r, o in zip(raw, old, strict=True)
        )
    except UnicodeDecodeError:
        same_lines = False
    if not original.startswith(mark) or not same_lines:
        return encoded
    head, tail = common_ends(old, new)
    old_middle, new_middle = old[head : len(old) - tail], new[head : len(new) - tail]
    pieces = raw[:head]
    if len(old_middle) * len(new_middle) <= MAX_DIFF_CELLS:
        matcher = difflib.SequenceMatcher(None, old_middle, new_middle, autojunk=False)
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            if op == "equal":
                pieces.extend(raw[head + i1 : head + i2])
            else:
                added = enumerate(new_middle[j1:j2], start=head + j1)
                pieces.extend(_new_line(line, codec, errors, cr, j == len(new) - 1) for j, line in added)
    else:
        added = enumerate(new_middle, start=head)
        pieces.extend(_new_line(line, codec, errors, cr, j == len(new) - 1) for j, line in added)
    pieces.extend(raw[len(raw) - tail :])
    return mark + separator.join(pieces)


def _strip_cr(raw: bytes, cr: bytes) -> bytes:
    return raw[: -len(cr)] if cr and raw.endswith(cr) else raw


def _new_line(line: str, codec: str, errors: str, cr: bytes, last: bool) -> bytes:
    """A new line's bytes with the file's CR before the LF that follows it (none after the last)."""
    return line.encode(codec, errors) + (b"" if last else cr)


def _umask() -> int:
    """The process umask, read without changing it where the OS allows."""
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _failed(shown: str, exc: OSError) -> PathError:
    reason = exc.strerror or str(exc)
    return PathError(
        f"Cannot write {shown} ({reason}), so it is unchanged; fix the cause (permissions, free space) and try again."
    )


def atomic_write(real_path: str, data: bytes, *, display: str | None = None) -> None:
    """Replace the file at ``real_path`` with ``data``, or create it, atomically.

    The folder is reached from ``/`` without following any link (``safeopen.walk_folder``), and
    everything happens inside that folder's fd: ``data`` goes to a temp file there
    (``.<name>.<random>.tmp``, created ``O_EXCL | O_NOFOLLOW``), is flushed and fsynced, takes
    the mode (and, where permitted, the owner and group) of the existing file (a new file gets
    ``0o666 & ~umask``), then is renamed over the name. So a folder on the path swapped for a
    link after the path was checked is refused, never written through. Pass the realpath
    (``Resolved.real``): a symbolic link then stays a link, since its target is replaced; a
    name that has become a link since it was checked is refused. Other hard links to the old
    file keep the old bytes.

    Args:
        real_path: absolute realpath of the file; its folder must exist.
        data: the complete new bytes.
        display: the path as the model knows it, for messages (default ``real_path``).

    Raises:
        PathError: the file is read-only for this process (a rename could replace it anyway, so
            it is refused), the folder is missing or not writable, the disk is full, the target is
            a directory, the path changed since it was checked, …; the temp file is removed and
            the original is untouched.
    """
    shown = display if display is not None else real_path
    folder, name = os.path.split(os.path.abspath(real_path))
    try:
        dir_fd = walk_folder(folder, readable=True)
    except FileNotFoundError:
        raise PathError(f"Cannot write {shown}: its folder does not exist; create the folder first.") from None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise changed(shown, WRITE_THEN) from None
        raise _failed(shown, exc) from None
    try:
        mode, owner = _existing_mode(real_path, name, dir_fd, shown)
        _write_in(dir_fd, name, data, mode, owner, shown)
        with contextlib.suppress(OSError):  # make the rename durable; best effort
            os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def _existing_mode(real_path: str, name: str, dir_fd: int, shown: str) -> tuple[int, tuple[int, int] | None]:
    """``(mode, (uid, gid) or None)`` the new file takes: the existing file's, or a new file's."""
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return 0o666 & ~_umask(), None
    except OSError as exc:
        raise _failed(shown, exc) from None
    if stat.S_ISDIR(info.st_mode):
        raise PathError(f"{shown} is a directory; give the path of a file.")
    if stat.S_ISLNK(info.st_mode):
        raise changed(shown, WRITE_THEN)
    if not os.access(real_path, os.W_OK):
        raise PathError(
            f"{shown} is read-only (mode {stat.S_IMODE(info.st_mode):o}), so it is unchanged; "
            "ask the user to make it writable first."
        )
    return stat.S_IMODE(info.st_mode), (info.st_uid, info.st_gid)


def _temp_file(dir_fd: int, name: str, shown: str) -> tuple[int, str]:
    """``(fd, name)`` of a new, empty temp file in the folder ``dir_fd`` (mode 0o600)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        temp = f".{name[:200]}.{secrets.token_hex(4)}.tmp"
        try:
            return os.open(temp, flags, 0o600, dir_fd=dir_fd), temp
        except FileExistsError:
            continue
        except OSError as exc:
            raise _failed(shown, exc) from None
    raise PathError(f"Cannot write {shown}: no free temp-file name in its folder; remove its .*.tmp files.")


def _write_in(dir_fd: int, name: str, data: bytes, mode: int, owner: tuple[int, int] | None, shown: str) -> None:
    """Write ``data`` to a temp file in ``dir_fd`` and rename it over ``name``; on any failure
    the temp file is removed and ``name`` is untouched."""
    fd, temp = _temp_file(dir_fd, name, shown)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
            if owner is not None and hasattr(os, "fchown"):
                with contextlib.suppress(OSError):
                    os.fchown(handle.fileno(), *owner)
            os.fchmod(handle.fileno(), mode)  # after chown, which may clear set-id bits
        os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=dir_fd)
        if isinstance(exc, OSError):
            raise _failed(shown, exc) from None
        raise


def _lock_folder() -> str:
    """``$XDG_STATE_HOME/leanread/locks`` (or ``~/.local/state/leanread/locks``), created on demand."""
    state = os.environ.get("XDG_STATE_HOME")
    base = state if state and os.path.isabs(state) else os.path.join(os.path.expanduser("~"), ".local", "state")
    folder = os.path.join(base, "leanread", "locks")
    os.makedirs(folder, mode=0o700, exist_ok=True)
    return folder


@contextlib.contextmanager
def file_lock(real_path: str) -> Iterator[None]:
    """Hold an exclusive lock on changes to ``real_path`` across threads and processes.

    Every leanread ``edit`` and ``write`` of a file takes it while it reads, checks and writes
    the file, so two agents never interleave there. The lock lives in a file named after the
    path in the user's state folder (a lock on the file itself would not survive the rename
    that replaces it). Programs other than leanread do not take it: the tools also check the
    bytes again just before they replace the file.
    """
    digest = hashlib.sha256(real_path.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    with _THREAD_LOCKS_GUARD:
        thread_lock = _THREAD_LOCKS.setdefault(digest, threading.Lock())
    with thread_lock:
        fd = os.open(os.path.join(_lock_folder(), digest), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the flock


_THREAD_LOCKS: dict[str, threading.Lock] = {}
_THREAD_LOCKS_GUARD = threading.Lock()
