"""The action log: every acknowledged operation, appended before it is answered.

One line per request (a JSON array of records, after its CRC-32: see
``HEADER``), written with one ``write`` call: a request's records reach the file together or not at all, and the
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
import zlib

import msgspec

log = logging.getLogger("sandworld.store")

MODES = ("fsync", "write", "none")

# The first line of a log whose lines carry checksums. Each line after it is
# ``<crc32 of the JSON, 8 hex digits> <JSON>\n``. A log without it was written
# before checksums (bare JSON lines): still read, and rewritten with them by
# the compaction every start does (docs/DECISIONS.md).
HEADER = b"#sandworld-log 2\n"

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
        if self.size == 0:  # a new log: lines with checksums from here on
            self._write(HEADER)

    def append(self, records: list) -> None:
        """Write one request's records as one line (one ``write``). A write
        the disk refuses (full: ``ENOSPC``, ``EFBIG``) raises ``Unwritable``
        with the file cut back to its last whole line."""
        self._write(_line(_encode(records)))
        self.lines += 1

    def probe(self) -> None:
        """Write an empty line (``[]``: nothing to replay): ``Unwritable``
        while the disk still refuses writes."""
        self._write(_line(b"[]"))

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


def read(path: str, upto: int | None = None, on_damage=None):
    """Yield each complete line's records, in order. A torn last line (a
    crash during its write: no newline yet) is cut off the file, with a
    warning. A complete line that fails its checksum (or is not JSON) was
    acknowledged and is now damaged: reading stops before it, the file is
    left as it is, and ``on_damage(info)`` hears what was left out (``info``:
    ``line``, ``offset``, ``lines``, ``bytes``, ``reason``); without
    ``on_damage`` it raises ``Damaged``. A log without the version header
    (written before checksums) is read without them. ``upto``: read only the
    first ``upto`` bytes (a line boundary), repairing nothing."""
    try:
        f = open(path, "rb")
    except FileNotFoundError:
        return
    with f:
        first = f.readline()
        checked = _version(first, path)
        if checked:
            good, number = len(first), 1
        else:
            f.seek(0)
            good, number = 0, 0
        for line in f:
            if upto is not None and good + len(line) > upto:
                return
            if not line.endswith(b"\n"):
                break  # torn: the last write never finished, so it was never acknowledged
            records, reason = _parse(line, checked)
            if reason is not None:
                total = f.seek(0, os.SEEK_END)
                f.seek(good)
                rest = f.read()
                info = {"line": number, "offset": good, "lines": rest.count(b"\n") + (not rest.endswith(b"\n")),
                        "bytes": total - good, "reason": reason}
                log.error("the action log %s is damaged at line %d (byte %d, %s): reading stopped there, "
                          "leaving out %d lines (%d bytes)", path, number, good, reason, info["lines"], info["bytes"])
                if on_damage is None:
                    raise Damaged(f"the action log {path} is damaged at line {number} (byte {good}): {reason}")
                on_damage(info)
                return
            good += len(line)
            number += 1
            yield records
        torn = f.seek(0, os.SEEK_END) - good
    if torn:
        log.warning("the action log %s ended in a torn line (%d bytes, never acknowledged): cut off", path, torn)
        os.truncate(path, good)


class Damaged(ValueError):
    """A complete line of the action log that fails its checksum."""


def _version(first: bytes, path: str) -> bool:
    """Whether the log's lines carry checksums (its first line is the header)."""
    if first == HEADER:
        return True
    if first.startswith(b"#"):
        raise RuntimeError(f"the action log {path} starts {first[:40]!r}: written by a newer server "
                           "(this one reads version 2 and logs without a header); run that version")
    return False


def _parse(line: bytes, checked: bool):
    """``(records, None)``, or ``(None, why the line is damaged)``."""
    payload = line[:-1]
    if checked:
        head, payload = payload[:9], payload[9:]
        if len(head) != 9 or head[8:] != b" " or head[:8] != b"%08x" % zlib.crc32(payload):
            return None, "checksum"
    try:
        return _decode(payload), None
    except msgspec.DecodeError:
        return None, "not JSON"


def write_all(path: str, lines) -> int:
    """Write a whole new log (compaction) next to ``path`` and move it into
    place atomically; answer its size."""
    tmp = write_aside(path, lines)
    return finish_aside(path, tmp, None)


def write_aside(path: str, lines) -> str:
    """Write ``lines`` to a new file beside ``path``; answer its name."""
    tmp = path + ".compacting"
    with open(tmp, "wb") as f:
        f.write(HEADER)
        for records in lines:
            f.write(_line(_encode(records)))
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


def _line(payload: bytes) -> bytes:
    return b"%08x " % zlib.crc32(payload) + payload + b"\n"


def _fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
