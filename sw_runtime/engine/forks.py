"""Forks: K new episodes branching from a live one.

Each fork holds a copy-on-write fork of the source's store, so forking costs
the same for 100 records as for 100,000: nothing is copied until a branch
writes, and then only what it writes. A fork carries everything else the
source has at that moment: step count and clock, task, setup, checks and
start state (so it is scored against the episode's true start), signals,
fault profile, agent name, and the trace so far, whose entries are marked
``"inherited": true``. It records ``forked_from``. The source is not
modified.

``clone`` copies an episode generically, so that whatever an episode keeps
is carried without this module knowing it: the attributes fixed for an
episode's whole life are shared; a ``Store`` is forked; a list, dict or set
is copied (its items shared: records and trace entries are never mutated in
place); any other object is copied with ``copy.copy`` and then the same rule
is applied to its own attributes, one level down, with references to the
source episode and its store pointed at the clone's. An attribute that keeps
mutable state deeper than that must say so here. Dry runs (``dry_run.py``)
clone too.
"""

from __future__ import annotations

import copy
import time

from sw_core_ext import Store

from .episode import Episode
from .read_cache import SHARED
from .snapshots import _wall_now

MAX_FORKS = 1024

# Read-only for an episode's whole life: shared between an episode and its forks.
_SHARED = ("world", "task", "setup", "checks", "start_passes", "start", "clock", "meter")
# Set by ``clone`` itself.
_OWN = ("id", "id_tail", "store", "trace", "born", "touched", "created_at", "forked_from", "nbytes")


def _slots(obj) -> list:
    names = list(getattr(obj, "__dict__", ()))
    for cls in type(obj).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if name not in ("__weakref__", "__dict__") and name not in names:
                names.append(name)
    return names


_ATOMS = (str, int, float, bool, bytes, type(None), tuple, frozenset)
_CONTAINERS = (list, dict, set)


def _copy(value, swap: dict, deep: bool):
    """``value`` for the clone (see the module docstring)."""
    got = swap.get(id(value))
    if got is not None:
        return got
    if isinstance(value, _ATOMS):
        return value
    if isinstance(value, Store):
        return value.fork()
    if isinstance(value, _CONTAINERS):
        return copy.copy(value)
    if not deep:
        return value
    obj = copy.copy(value)
    for name in _slots(obj):
        if hasattr(obj, name):
            inner = getattr(obj, name)
            new = _copy(inner, swap, deep=False)
            if new is not inner:
                setattr(obj, name, new)
    return obj


def clone(src: Episode, new_id: str, *, inherited: bool) -> Episode:
    """A copy of ``src`` under ``new_id`` with a copy-on-write store. With
    ``inherited`` its trace entries are marked ``"inherited": true`` and it
    records ``forked_from``; without, it is a throwaway twin (a dry run)."""
    child = Episode.__new__(Episode)
    store = src.store.fork()
    if src.store.journal is not None:  # signals read a step's writes from it
        store.journal = []
    swap = {id(src): child, id(src.store): store}
    for name in _SHARED:
        if hasattr(src, name):
            value = getattr(src, name)
            setattr(child, name, value)
            swap[id(value)] = value
    now = time.monotonic()
    child.id = new_id
    child.id_tail = b',"episode_id":"' + new_id.encode() + b'"}'
    child.store = store
    child.nbytes = 0  # the rows it inherits are the source's bytes, shared
    if inherited:
        child.trace = src.trace.copy(inherited=True)
        child.forked_from = src.id
        child.born = child.touched = now
        child.created_at = _wall_now()
    else:
        child.trace = src.trace.copy(inherited=False)
        child.forked_from = getattr(src, "forked_from", None)
        child.born, child.touched, child.created_at = src.born, now, src.created_at
    for name in _slots(src):
        if name in _SHARED or name in _OWN or not hasattr(src, name):
            continue
        setattr(child, name, _copy(getattr(src, name), swap, deep=True))
    src.state_shared = child.state_shared = SHARED  # both hold the state now (read_cache.SHARED)
    return child
