"""Turn logical text back into a file's own bytes, and put bytes on disk atomically.

``encode_text`` inverts ``textfile.decode``: for any bytes ``decode`` accepts, with
``lines = tf.raw_lines or tf.lines`` (``raw_lines`` keeps bytes that are not valid UTF-8),
``encode_text("\\n".join(lines) + ("\\n" if tf.final_newline else ""), encoding=tf.encoding,
bom=tf.bom, newline=tf.newline) == data``. ``atomic_write`` writes a temp file in the same
folder and renames it over the target, so a reader sees the old bytes or the new, never a mix,
and a failure leaves the file as it was.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import stat
import tempfile

from .errors import PathError, UnencodableText

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

    ``data`` goes to a temp file in the same folder (``.<name>.<random>.tmp``), is flushed and
    fsynced, takes the mode (and, where permitted, the owner and group) of the existing file (a
    new file gets ``0o666 & ~umask``), then is renamed over ``real_path``. Pass the realpath
    (``Resolved.real``): a symbolic link then stays a link, since its target is replaced; a path
    that is itself a link would be replaced by a regular file. Other hard links to the old file
    keep the old bytes.

    Args:
        real_path: absolute realpath of the file; its folder must exist.
        data: the complete new bytes.
        display: the path as the model knows it, for messages (default ``real_path``).

    Raises:
        PathError: the folder is missing or not writable, the disk is full, the target is a
            directory, …; the temp file is removed and the original is untouched.
    """
    shown = display if display is not None else real_path
    folder, name = os.path.split(real_path)
    folder = folder or "."
    owner: tuple[int, int] | None = None
    try:
        info = os.stat(real_path)
        if stat.S_ISDIR(info.st_mode):
            raise PathError(f"{shown} is a directory; give the path of a file.")
        mode, owner = stat.S_IMODE(info.st_mode), (info.st_uid, info.st_gid)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    except OSError as exc:
        raise _failed(shown, exc) from None
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    except FileNotFoundError:
        raise PathError(f"Cannot write {shown}: its folder does not exist; create the folder first.") from None
    except OSError as exc:
        raise _failed(shown, exc) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if owner is not None and hasattr(os, "chown"):
            with contextlib.suppress(OSError):
                os.chown(temp, *owner)
        os.chmod(temp, mode)  # after chown, which may clear set-id bits
        os.replace(temp, real_path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(exc, OSError):
            raise _failed(shown, exc) from None
        raise
    _sync_folder(folder)


def _sync_folder(folder: str) -> None:
    """Make the rename durable; best effort (not every OS or file system allows it)."""
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
