"""Read results computed once per state.

A tool declared ``pure`` (``worlds/tool.py``) answers from the store and its
arguments only: not the clock, the step number, the seed or anything else.
Its encoded answer is then a function of (the state, the tool, the raw
argument bytes), and is kept here under that key, so the 64 episodes of a
GRPO group on one seed, and every episode before its first write, compute a
listing once.

*The state* is the store's ``identity`` (``sw_core_ext``): a token shared by
stores that hold the same records. A fork inherits it until either side
writes; a write drops it. The store's digest would not do: two states with
equal records can still differ in a dict's key order, and so in the bytes
of an answer. A read that declares the collections it ``reads``
(``worlds/tool.py``) is keyed on those collections' tokens instead
(``store.identity_of``), which a write to another collection leaves as they
were: a payment does not make the next listing of requests compute again.

After a write the engine may hand the store a *derived* identity instead of
a fresh one: a write tool is a deterministic function of (the state, its
arguments, the step number, the seed), so the same call at the same step on
the same state leaves the same records, key order included. ``after_write``
remembers the identities (the store's and every collection's) each such
transition led to, so episodes that take the same first steps (a GRPO
group) keep sharing reads past their first write.

Only the tool's payload is kept: the step number, the time, signals and
faults are added around it per episode, and faulted calls never use the
cache. Memory is bounded: two generations of entries; when the newer one
fills up the older one is dropped (a cheap approximation of LRU whose hits
are promoted).
"""

from __future__ import annotations

# An entry: (ok, payload_json). The bound counts the payloads' bytes.
_ENTRY_OVERHEAD = 200  # the key tuple, the entry tuple, dict slots: roughly


class ReadCache:
    """Encoded answers of pure reads, by (identity of the state or of the
    collections read, tool name, argument bytes)."""

    __slots__ = ("enabled", "max_entries", "max_bytes", "_new", "_old", "_bytes",
                 "_derived", "_derived_old", "hits", "misses", "stored", "derived_hits")

    def __init__(self, max_entries: int = 50_000, max_bytes: int = 128 * 2**20):
        self.resize(max_entries, max_bytes)
        self._new: dict = {}
        self._old: dict = {}
        self._bytes = 0
        self._derived: dict = {}
        self._derived_old: dict = {}
        self.hits = self.misses = self.stored = self.derived_hits = 0

    def get(self, key):
        """The ``(ok, payload_json)`` kept for ``key``, or None."""
        got = self._new.get(key)
        if got is None:
            got = self._old.get(key)
            if got is None:
                self.misses += 1
                return None
            self._put(key, got)  # promote: it is still in use
        self.hits += 1
        return got

    def put(self, key, ok: bool, payload_json: bytes) -> None:
        self.stored += 1
        self._put(key, (ok, payload_json))

    def _put(self, key, entry) -> None:
        if len(self._new) >= self.max_entries or self._bytes >= self.max_bytes:
            self._old, self._new, self._bytes = self._new, {}, 0
        self._new[key] = entry
        self._bytes += len(entry[1]) + len(key[2]) + _ENTRY_OVERHEAD

    def after_write(self, store, before, tool_name: str, args_json: bytes, step: int, seed: int) -> list:
        """Give ``store`` the identities (its own and its collections') that
        the same write at the same step on the state ``before`` gave another
        store, or remember its own. Answers the state's *cell*: ``[True]``
        once another store holds that state too (see ``SHARED``)."""
        key = (before, tool_name, args_json, step, seed)
        got = self._derived.get(key)
        if got is None:
            got = self._derived_old.get(key)
            if got is None:
                if len(self._derived) >= self.max_entries:
                    self._derived_old, self._derived = self._derived, {}
                cell = [False]  # set by the first store that follows
                self._derived[key] = (store.identity, store.identities, cell)
                return cell
            self._derived[key] = got
        self.derived_hits += 1
        store.identity, store.identities, cell = got
        cell[0] = True
        return cell

    def resize(self, max_entries: int, max_bytes: int = 128 * 2**20) -> None:
        """Bound each generation to ``max_entries`` answers and ``max_bytes``; 0 entries turns the cache off."""
        self.enabled = max_entries > 0
        self.max_entries = max_entries
        self.max_bytes = max_bytes

    def clear(self) -> None:
        self._new, self._old, self._bytes = {}, {}, 0
        self._derived, self._derived_old = {}, {}

    def stats(self) -> dict:
        looked = self.hits + self.misses
        return {
            "enabled": self.enabled,
            "hits": self.hits,
            "misses": self.misses,
            "hit_rate": round(self.hits / looked, 4) if looked else None,
            "entries": len(self._new) + len(self._old),
            "derived_states": self.derived_hits,
            "transitions": len(self._derived) + len(self._derived_old),  # writes remembered for derivation
        }


# The cell of a state that other stores hold: an episode's start (the seed's
# or a snapshot's state, shared by every episode started from it) and both
# sides of a fork. Only such a state's writes are looked up and remembered:
# a state one store alone holds leads, by its next write, to a state nobody
# else will reach, and remembering it cost two probes of a large dict and
# ~2,000 instructions per call of the (a) workload, where almost no write is
# ever followed. A state remembered by ``after_write`` has a cell of its
# own, set when another store follows. Never set back to False.
SHARED = [True]

# One per process: identities are unique process-wide, so engines share it
# (each Engine sizes it from its settings; the last one created wins).
READS = ReadCache()
