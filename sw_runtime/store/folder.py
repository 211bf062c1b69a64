"""A server's data folder: its action log and results store, opened,
replayed and compacted on start, written once per request.

Layout: ``<data-dir>/shard-NN/`` holds ``actions.log`` (the action log),
``results.sqlite`` (ended episodes) and ``lock`` (held while a server uses
the folder, so two servers never write one log). Each server of a cluster
has its own shard number and so its own folder.
"""

from __future__ import annotations

import asyncio
import base64
import fcntl
import logging
import os
import time

from .. import errors
from . import compact
from . import log as action_log
from .replay import Report, replay
from .results import Results
from .undo import undo

log = logging.getLogger("sandworld.store")

_MEMORY_RESULTS = 100_000  # results kept by a server without a data folder


class DataFolder:
    def __init__(self, settings):
        self.settings = settings
        self.mode = settings.durability
        self.report = Report()
        self.log: action_log.ActionLog | None = None
        self.unwritable: str | None = None  # why the log refused its last line, while it still does
        self.damaged: str | None = None  # why the log is read-only: a damaged line (``_read_only``)
        self._keys = None
        self._lock = None
        if self.mode == "none":
            self.path = None
            self.results = Results(":memory:", "none", settings.retention, max_rows=_MEMORY_RESULTS)
            return
        self.path = os.path.join(os.path.abspath(settings.data_dir), f"shard-{settings.shard:02d}")
        self.results = None  # opened with the folder (``open``)

    def _take_folder(self) -> None:
        os.makedirs(self.path, exist_ok=True)
        self._lock = open(os.path.join(self.path, "lock"), "w")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock.close()
            raise RuntimeError(
                f"another server is using the data folder {self.path}; give this one another --data-dir or --shard"
            ) from None
        self.results = Results(os.path.join(self.path, "results.sqlite"), self.mode, self.settings.retention)

    @property
    def log_path(self) -> str | None:
        return os.path.join(self.path, "actions.log") if self.path else None

    def open(self, engine, keys) -> Report:
        """Attach to ``engine`` and the service's idempotency ``keys``: replay
        the log into them, compact the log, then log what changes from here on."""
        if self.mode != "none":
            self._take_folder()
        engine.results = self.results
        self._keys = keys
        if self.mode == "none":
            return self.report
        path = self.log_path
        damage: list = []
        self.report = replay(engine, keys, action_log.read(path, on_damage=damage.append))  # a line at a time
        self._store_replayed(engine)
        if damage:
            self._read_only(path, damage[0])
        else:
            if self.report.lines:
                action_log.write_all(path, compact.filtered(action_log.read(path),
                                                            compact.needed(action_log.read(path))))
            self.log = action_log.ActionLog(path, self.mode)
        engine.journal = []
        keys.on_finish = lambda *a: _journal_key(engine, *a)
        engine.users.on_reply = lambda eid, key, reply: _journal_reply(engine, eid, key, reply)
        if self.report.lines:
            log.info("replayed the action log %s: %s", path, self.report.as_dict())
        return self.report

    def _read_only(self, path: str, info: dict) -> None:
        """A damaged line: serve what was read before it, take no writes (a
        write now would be lost behind the damage at the next start), and
        leave the file whole for the operator (docs/OPERATIONS.md)."""
        self.report.dropped = info
        self.damaged = self.unwritable = (
            f"the action log {path} is damaged at line {info['line']} (byte {info['offset']}, {info['reason']}): "
            f"the replay stopped there and left out {info['lines']} acknowledged lines ({info['bytes']} bytes). "
            f"This server serves what it read, read-only. Keep the file to inspect it; to go on without those "
            f"lines, stop the server, cut the log there (truncate -s {info['offset']} {path}) and start it again")
        log.error("%s", self.damaged)

    def _store_replayed(self, engine) -> None:
        """Episodes that ended in the replay: store any result the crash lost,
        and free them (the results store answers for them)."""
        eps, engine.pending_results = engine.pending_results, {}
        engine.pending_results = {eid: ep for eid, ep in eps.items() if not self.results.has(eid)}
        self.store_results(engine)
        for eid in eps:
            engine.free(eid)

    def commit(self, engine) -> None:
        """Write what ``engine`` did since the last commit as one log line.
        Called before a request is answered. (Results of ended episodes are
        stored by ``store_results``, from the sweeper: their ending is in the
        log already, so a crash before they are stored loses nothing.)"""
        if engine.journal:
            records = engine.take_journal()
            if self.log is None:  # read-only (a damaged log): every writer checks first; undo any that did not
                undo(engine, self._keys, self.log_path, records)
                raise errors.StorageUnavailable(self.damaged or "the action log is closed")
            try:
                try:
                    self.log.append(records)
                except (TypeError, ValueError, OverflowError):
                    self._append_each(records)
            except action_log.Unwritable as e:
                self._refused(engine, records, e)

    def _refused(self, engine, records: list, e: OSError) -> None:
        """The disk refused the line: undo what it records, stop taking writes
        until the disk takes one again (``writable``), answer 503."""
        self.unwritable = str(e)
        log.error("%s; writes answer 503 and /readyz is not ready until the disk takes writes again", e)
        undo(engine, self._keys, self.log_path, records)
        raise errors.StorageUnavailable(
            f"{e}: nothing this request did was kept (the disk is full or refuses writes); "
            "retry once the server's /readyz is ready again")

    def writable(self) -> bool:
        """Whether the log takes writes: after a refused line, each call tries
        an empty line until the disk takes it."""
        if self.unwritable is None:
            return True
        if self.damaged is not None:
            return False
        try:
            self.log.probe()
        except action_log.Unwritable:
            return False
        log.warning("the action log takes writes again")
        self.unwritable = None
        return True

    def check_writable(self) -> None:
        """Refuse a write up front (503) while the log cannot take it."""
        if not self.writable():
            if self.damaged is not None:
                raise errors.StorageUnavailable(self.damaged, retry_after=3600)
            raise errors.StorageUnavailable(
                f"{self.unwritable}: this server takes no writes until its disk does "
                "(reads still work; /readyz says when it is ready)")

    def store_results(self, engine, most: int | None = None) -> int:
        """Store up to ``most`` ended episodes' results; answer how many."""
        if not engine.pending_results or self.results is None:
            return 0
        pending = engine.pending_results
        held = [(eid, pending[eid]) for eid, _ in zip(pending, range(len(pending) if most is None else most))]
        rows = engine.take_results(most)
        try:
            self.results.put_many(rows)
        except Exception:  # a full disk: keep them pending (their endings are in the log), retry next sweep
            pending.update(held)
            raise
        return len(rows)

    def _append_each(self, records: list) -> None:
        """A record that cannot be encoded (a bug: requests are validated
        before they reach the engine) is left out, loudly; the rest are kept."""
        good = []
        for rec in records:
            try:
                action_log._encode(rec)
            except (TypeError, ValueError, OverflowError) as e:
                log.error("an action cannot be logged and will not survive a restart: %r (%s)", rec[:2], e)
            else:
                good.append(rec)
        if good:
            self.log.append(good)

    def needs_compaction(self) -> bool:
        return self.log is not None and self.log.size > self.settings.compact_bytes

    async def compact(self) -> None:
        """Compact the log while the server runs: the log as it stands is
        read, filtered and written aside in a thread; then, on the loop and
        without yielding, what was appended meanwhile is copied after it and
        the new file takes the old one's place."""
        upto = self.log.size
        path = self.log_path

        def aside():  # two passes over the file, a line at a time: the log is never held whole
            need = compact.needed(action_log.read(path, upto))
            tmp = action_log.write_aside(path, compact.filtered(action_log.read(path, upto), need))
            with open(tmp, "rb") as f:  # the bulk reaches the disk here, off the loop: the fsync on the loop
                os.fsync(f.fileno())  # (finish_aside) then covers only the tail
            return tmp

        try:
            tmp = await asyncio.to_thread(aside)
        except OSError:
            _remove(path + ".compacting")  # a full disk: the log stands as it was
            raise
        self.log.close()
        try:
            size = action_log.finish_aside(path, tmp, upto)
        except OSError:
            _remove(tmp)
            raise
        finally:
            self.log = action_log.ActionLog(path, self.mode)  # the old log, or the new one in its place
        log.info("compacted the action log %s to %d bytes", path, size)

    def health(self) -> dict:
        out = {"durability": self.mode}
        if self.mode != "none":
            out["data_dir"] = self.path
            out["log_writable"] = self.unwritable is None
            out["log_intact"] = self.damaged is None
            out["replay"] = self.report.as_dict()
        return out

    def close(self) -> None:
        if self.log is not None:
            self.log.close()
        if self.results is not None:
            self.results.close()
        if self._lock is not None:
            self._lock.close()


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


def _journal_key(engine, scope, key, fingerprint, canonical, reply, expires_wall) -> None:
    if engine.journal is not None:
        engine.journal.append(("k", scope, key, fingerprint, canonical, reply.created,
                               base64.b64encode(reply.body).decode(), None, expires_wall))


def _journal_reply(engine, episode_id, key, reply) -> None:
    # Before the step's own record, in the same line: a replay restores the reply, then runs the step.
    if engine.journal is not None:
        engine.journal.append(("u", episode_id, key, reply))
