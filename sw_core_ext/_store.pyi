"""Type stub of the state core's ``Store``: the API a world's tools and tasks use.

Both implementations follow it: the Cython extension (``_store.pyx``) and
the pure-Python twin (``_store_py.py``, forced with ``SW_PURE=1``). A state is
a set of named collections, each mapping a string id to a JSON record (money
as integer cents). docs/WORLDS.md ("The state core's API") and docs/DIGEST.md
say more.

A collection may declare a *shape* (``Store(shapes=...)``, from a world's
``schema.py``): its records are then kept compactly, and reads build a dict,
equal and with keys in the same order, for each record they return. Queries
(``scan``, ``select``, ``count``, ``sum`` with ``where``, ``between``,
``order_by``, ``limit``) run inside the core and build no dict for a record
they skip; on a collection without a shape they are a Python filter and
``list.sort``, the reference the compact path is tested against.
``select_json`` answers ``select``'s records as one ``orjson.Fragment`` of
their JSON, each row's bytes made once and kept. ``SW_LAYOUT=dicts`` in the
environment when a store is made ignores its shapes (every record a dict, as
before shapes).
"""

from typing import Any, Iterable, Mapping

import orjson

JSON = Any  # a JSON-compatible value: dict, list, str, int, float, bool or None
Record = dict[str, JSON]
Where = Mapping[str, JSON]  # field -> the value it must equal
Between = Mapping[str, tuple[JSON, JSON]]  # field -> (lo, hi): lo <= value < hi; None: no bound
OrderBy = str | tuple[str, ...]  # sort by this field (or these fields, as a tuple), stably
Diff = dict[str, dict[str, list[str]]]  # collection -> {"created": [...], "updated": [...], "removed": [...]}

DIGEST_DOMAIN: bytes

def canonical_json(value: JSON) -> bytes:
    """Sorted keys, no whitespace, UTF-8: the bytes every hash is taken over."""

def record_hash(collection: str, rid: str, record: Record) -> int:
    """SHA-256 of ``canonical_json([collection, id, record])`` as a 256-bit integer."""

def digest_of_acc(acc: int) -> str:
    """``sha256:<64 hex>`` of a state whose record hashes sum (mod 2^256) to ``acc``."""

class Store:
    """Collections of JSON records with O(1) copy-on-write forks and an
    incrementally kept SHA-256 state digest.

    Records handed to the store become its property: never mutate a record
    after inserting it, nor one returned by ``get``/``scan`` (forks share
    them); ``update`` and ``put`` write new ones. In a collection with a
    shape a read returns a dict the store built, equal to the record
    written and with its keys in the same order (built once per row, then
    shared like any record).
    """

    version: int
    """Bumped by every write: a cheap "did anything change?" (read-only)."""
    journal: list[tuple[str, str]] | None
    """None, or a list that every write appends ``(collection, id)`` to."""
    identity: object
    """A token for these exact records: shared by a fork until either store
    writes, new after every write; never None (the read cache keys on it)."""
    identities: tuple[object, ...]
    """Every collection's token (see ``identity_of``), in the order of the
    store's collections, which its forks keep; settable, all at once."""

    def __init__(self, data: Mapping[str, Mapping[str, Record]] | None = None,
                 collections: Iterable[str] = (),
                 shapes: Mapping[str, Iterable[str]] | None = None) -> None:
        """A store holding ``data`` (``{collection: {id: record}}``), with
        ``collections`` present even when empty. ``shapes`` gives collections
        their records' field names in order: a record with exactly those keys
        in that order is kept compactly (a row of values, the seed's strings
        interned), any other as a dict. Forks and pickles keep the shapes;
        ``SW_LAYOUT=dicts`` ignores them."""

    # -- reads
    @property
    def collections(self) -> list[str]:
        """The collection names, sorted."""
    def has_collection(self, name: str) -> bool: ...
    def get(self, collection: str, rid: str) -> Record | None:
        """The record, or None. ``KeyError`` for an unknown collection."""
    def shape(self, collection: str) -> tuple[str, ...] | None:
        """The collection's declared field names, or None (records kept as dicts)."""
    def count(self, collection: str, where: Where | None = None, *, between: Between | None = None) -> int:
        """How many records; with ``where``/``between``, how many match (as for ``scan``)."""
    def ids(self, collection: str) -> list[str]:
        """The ids, in order."""
    def scan(self, collection: str, where: Where | None = None, *, between: Between | None = None,
             order_by: OrderBy | None = None, reverse: bool = False,
             limit: int | None = None) -> list[tuple[str, Record]]:
        """``(id, record)`` pairs in id order, keeping records whose top-level
        fields equal every value of ``where`` and hold every field of
        ``between`` with ``lo <= value < hi`` (a record lacking a field is
        left out). ``order_by`` sorts the kept pairs by that field's value
        (a tuple of fields: by their values' tuple), stably, as
        ``list.sort(key=operator.itemgetter(*fields), reverse=reverse)`` of
        the records would (``KeyError`` if a kept record lacks one); then the
        first ``limit``."""
    def select(self, collection: str, where: Where | None = None, *, between: Between | None = None,
               order_by: OrderBy | None = None, reverse: bool = False, limit: int | None = None) -> list[Record]:
        """The records of ``scan`` with the same arguments, without their ids."""
    def select_json(self, collection: str, where: Where | None = None, *, between: Between | None = None,
                    order_by: OrderBy | None = None, reverse: bool = False,
                    limit: int | None = None) -> orjson.Fragment:
        """What ``select`` answers with the same arguments, as one
        ``orjson.Fragment`` whose bytes are exactly ``orjson.dumps`` of that
        list (compact, keys in each record's own order): for a tool that
        answers a listing as it is, which the engine's ``orjson.dumps`` then
        copies in. A row keeps its JSON once made (rows never change once
        stored) and builds no dict that it keeps; any other record is encoded
        each time."""
    def sum(self, collection: str, field: str, where: Where | None = None, *,
            between: Between | None = None) -> JSON:
        """``field`` added up (``+``, in id order, from 0) over the records
        ``scan`` would keep; ``KeyError`` if one of them lacks it."""

    def identity_of(self, collections: tuple[str, ...] | None) -> object:
        """A token for the records of ``collections``: for one, that
        collection's token (shared by a fork until either store writes to
        that collection; a write to another leaves it); for several, a tuple
        of theirs; for None, ``identity``."""

    # -- writes
    def insert(self, collection: str, rid: str, record: Record) -> None:
        """Add a record; ``KeyError`` if the id exists."""
    def put(self, collection: str, rid: str, record: Record) -> None:
        """Insert or replace a whole record."""
    def update(self, collection: str, rid: str, fields: Mapping[str, JSON]) -> Record:
        """Merge ``fields`` into the record (shallow) and return the new record;
        ``KeyError`` if it does not exist."""
    def remove(self, collection: str, rid: str) -> Record:
        """Delete and return the record; ``KeyError`` if it does not exist."""

    # -- forks, digests, dumps
    def fork(self) -> "Store":
        """An O(1) copy-on-write copy: both share every record until one writes."""
    @property
    def accumulator(self) -> int:
        """The sum of every record's hash, mod 2^256."""
    def digest(self) -> str:
        """``sha256:<64 hex>`` of the whole state, whatever the order of writes."""
    def recompute_digest(self) -> str:
        """The digest from scratch, ignoring cached hashes (to verify one)."""
    def to_dict(self, collections: Iterable[str] | None = None) -> dict[str, dict[str, Record]]: ...
    def diff(self, base: "Store") -> Diff:
        """The ids created, updated and removed going from ``base`` to this
        store, per changed collection; cheap when one descends from the other."""
