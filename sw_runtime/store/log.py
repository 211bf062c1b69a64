"""The action log: every acknowledged operation, appended before it is answered.

One line per request (a JSON array of records), written with one ``write``
call: a request's records reach the file together or not at all, and the
line is on its way to the disk before the request is answered. A crash in
the middle of a write leaves a torn last line; it was never acknowledged, so
reading stops there and the next ``open`` cuts it off.

Durability modes (``--durability``):

``fsync``
    each request's line is fsynced before the answer: survives a power cut.
``write`` (the default)
    each line is handed to the operating system before the answer: survives
    the server being killed (SIGKILL, OOM, a crash), not a power cut.
``none``
    no log: episodes live in memory only.
"""

from __future__ import annotations

import logging
import os

import msgspec

log = logging.getLogger("sandworld.store")

MODES = ("fsync", "write", "none")

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(list[msgspec.Raw]).decode  # a line: its records, each left raw


class Unwritable(OSError):
    """The disk refused a line of the action log (full, or over a size limit)."""


class ActionLog:
    """One server's append-only log file."""

    def __init__(self, path: str, mode: str = "write"):
        if mode not in MODES or mode == "none":
            raise ValueError(f"durability {mode!r} has no log; use one of fsync, write")
        self.path = path
        self.mode = mode
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self.size = os.fstat(self._fd).st_size
        self.lines = 0

    def append(self, records: list) -> None:
        """Write one request's records as one line (one ``write``). A write
        the disk refuses (full: ``ENOSPC``, ``EFBIG``) raises ``Unwritable``
        with the file cut back to its last whole line."""
        self._write(_encode(records) + b"\n")
        self.lines += 1

    def probe(self) -> None:
        """Write an empty line (``[]``: nothing to replay): ``Unwritable``
        while the disk still refuses writes."""
        self._write(b"[]\n")

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        try:
            while view:
                n = os.write(self._fd, view)
                view = view[n:]
            if self.mode == "fsync":
                os.fsync(self._fd)
        except OSError as e:
            # Part of the line may be on the disk: cut it off, so the next line
            # starts on a line boundary and no half line is ever replayed.
            try:
                os.ftruncate(self._fd, self.size)
            except OSError:
                log.exception("the action log %s cannot be cut back to %d bytes", self.path, self.size)
            raise Unwritable(f"the action log {self.path} cannot be written: {e.strerror or e}") from e
        self.size += len(data)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def read(path: str, upto: int | None = None):
    """Yield each complete line's records, in order. A torn last line (a
    crash during its write) is cut off the file, with a warning. ``upto``:
    read only the first ``upto`` bytes (a line boundary), repairing nothing."""
    try:
        f = open(path, "rb")
    except FileNotFoundError:
        return
    good = 0
    with f:
        for line in f:
            if upto is not None and good + len(line) > upto:
                return
            if not line.endswith(b"\n"):
                break
            try:
                records = _decode(line)
            except msgspec.DecodeError:
                break
            good += len(line)
            yield records
        torn = f.seek(0, os.SEEK_END) - good
    if torn:
        log.warning("the action log %s ended in a torn line (%d bytes, never acknowledged): cut off", path, torn)
        os.truncate(path, good)


def write_all(path: str, lines) -> int:
    """Write a whole new log (compaction) next to ``path`` and move it into
    place atomically; answer its size."""
    tmp = write_aside(path, lines)
    return finish_aside(path, tmp, None)


def write_aside(path: str, lines) -> str:
    """Write ``lines`` to a new file beside ``path``; answer its name."""
    tmp = path + ".compacting"
    with open(tmp, "wb") as f:
        for records in lines:
            f.write(_encode(records) + b"\n")
    return tmp


def finish_aside(path: str, tmp: str, tail_from: int | None) -> int:
    """Append ``path``'s bytes from ``tail_from`` (what was logged while
    ``tmp`` was written) to ``tmp``, make it durable and move it into place."""
    with open(tmp, "ab") as f:
        if tail_from is not None:
            with open(path, "rb") as old:
                old.seek(tail_from)
                while chunk := old.read(1 << 20):
                    f.write(chunk)
        f.flush()
        os.fsync(f.fileno())
        size = f.tell()
    os.replace(tmp, path)
    _fsync_dir(os.path.dirname(path) or ".")
    return size


def _fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
