"""Compaction: the log keeps only what a replay still needs.

An ended episode's result is in the results store, so its records can go,
unless something still live descends from it: a fork of it, a snapshot of
it, or an episode started from such a snapshot. The records kept are those
of every live episode and live snapshot and of everything they descend from
(a fork record brings all its children, so none comes back without its own
ending), plus the idempotency keys that have not expired.
"""

from __future__ import annotations

import time

import msgspec

_dec = msgspec.json.decode


class _Head(msgspec.Struct, array_like=True):
    """The first fields of a record: its kind and the id it is about."""

    kind: str
    subject: object = None


_head = msgspec.json.Decoder(_Head).decode


def keep(lines: list, now: float | None = None) -> list:
    """``lines`` (lists of raw records) with only the records still needed."""
    return list(filtered(lines, needed(lines), now))


def needed(lines, roots: set | None = None) -> set:
    """The ids (episodes, snapshots) whose records a replay still needs.
    ``lines`` is read once, a line at a time: the log is never held whole.
    ``roots``: the ids wanted (with what they descend from), in place of
    every live one (``undo`` rebuilds a few episodes)."""
    ended, deleted = set(), set()
    parent: dict = {}  # episode or snapshot id -> what it descends from
    families: list = []  # (source, children) of each fork
    live = set()
    for records in lines:
        for raw in records:
            h = _head(raw)
            if h.kind == "c":
                live.add(h.subject)
                snap = _dec(raw, type=tuple)[3].get("snapshot_id")
                if snap is not None:
                    parent[h.subject] = snap
            elif h.kind == "f":
                children = _dec(raw, type=tuple)[2]
                live.update(children)
                families.append((h.subject, children))
                for c in children:
                    parent[c] = h.subject
            elif h.kind == "p":
                sid = _dec(raw, type=tuple)[2]
                live.add(sid)
                parent[sid] = h.subject
            elif h.kind == "pd":
                deleted.add(h.subject)

            elif h.kind == "e":
                ended.add(h.subject)
    needed = live - ended - deleted if roots is None else set(roots)
    todo = list(needed)
    changed = True
    while changed:  # close over ancestry and fork families until nothing is added
        _add_ancestors(needed, todo, parent)
        changed = False
        for src, children in families:
            if src in needed or any(c in needed for c in children):
                for y in (src, *children):
                    if y not in needed:
                        needed.add(y)
                        todo.append(y)
                        changed = True
    # A snapshot's record goes with its episode's ("p" is about the episode):
    # a kept episode keeps its deletions too, or a replay would bring back a
    # snapshot deleted long ago (and a restore ("r") finds the one it used).
    needed.update(sid for sid in deleted if parent.get(sid) in needed)
    return needed


def filtered(lines, needed: set, now: float | None = None, keys: bool = True):
    """Yield each line of ``lines`` with only the records of ``needed`` ids
    and (``keys``) unexpired idempotency keys (a line left empty is dropped)."""
    now = time.time() if now is None else now
    for records in lines:
        kept = []
        for raw in records:
            h = _head(raw)
            if h.kind == "k":
                if keys and _dec(raw, type=tuple)[8] > now:
                    kept.append(raw)
            elif h.kind == "kb":  # a keyed batch's progress, while its key lives
                if keys and _dec(raw, type=tuple)[6] > now:
                    kept.append(raw)
            elif h.subject in needed:
                kept.append(raw)
        if kept:
            yield kept


def _add_ancestors(needed: set, todo: list, parent: dict) -> None:
    """Add what each id in ``todo`` descends from, transitively."""
    while todo:
        up = parent.get(todo.pop())
        if up is not None and up not in needed:
            needed.add(up)
            todo.append(up)
