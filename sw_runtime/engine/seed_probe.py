"""Why a task cannot be set up on a state: the seed paths it looked for and missed.

A task's ``setup`` is written against its world's generated states and reads
them freely (``store.get(...)["sha"]``). On a custom state or a snapshot that
lacks what the task is about, it fails with whatever Python raises: a
``TypeError`` about ``NoneType`` says nothing to the person who sent the
state. So when a setup fails, it is run once more on a fresh fork wrapped in
``Probe``, which notes every record it asked for and did not find and every
collection it scanned and found empty; those are the seed paths the answer
names. The probe is only ever used on that failing path: a setup that works
never sees it.
"""

from __future__ import annotations

import orjson

from ..worlds.state_schema import record_path


class Probe:
    """A store that notes what a reader missed; everything else is the store's."""

    def __init__(self, store):
        self._store = store
        self.missing: list = []  # seed paths, in the order they were missed

    def _miss(self, path: str) -> None:
        if path not in self.missing:
            self.missing.append(path)

    def get(self, collection, rid):
        got = self._store.get(collection, rid)
        if got is None:
            self._miss(record_path(collection, rid))
        return got

    def scan(self, collection, *args, **kwargs):
        got = self._store.scan(collection, *args, **kwargs)
        if not got:
            self._miss(f"$.{collection}")
        return got

    def select(self, collection, *args, **kwargs):
        got = self._store.select(collection, *args, **kwargs)
        if not got:
            self._miss(f"$.{collection}")
        return got

    def select_json(self, collection, *args, **kwargs):
        got = self._store.select_json(collection, *args, **kwargs)
        if orjson.dumps(got) == b"[]":
            self._miss(f"$.{collection}")
        return got

    def count(self, collection, *args, **kwargs) -> int:
        n = self._store.count(collection, *args, **kwargs)
        if not n:
            self._miss(f"$.{collection}")
        return n

    def __getattr__(self, name):
        return getattr(self._store, name)


def missing_paths(task, store) -> list:
    """The seed paths ``task.setup`` missed on ``store`` (a fork: never written),
    the last one first: the miss just before the failure is most often its cause."""
    probe = Probe(store)
    try:
        task.setup(probe)
    except Exception:  # the failure being explained; what it missed is the answer
        pass
    return probe.missing[::-1]


def issues(task, store, exc: Exception) -> list:
    """``[{path, message}]`` for a setup of ``task`` that raised ``exc``:
    one issue per missed seed path, or, when it missed nothing it asked
    for by name, one at ``$`` carrying the world's own words."""
    paths = missing_paths(task, store)
    why = str(exc) or type(exc).__name__
    if not paths:
        return [{"path": "$", "message": f"task {task.id} cannot find what it is about in this state: {why}"}]
    # A world's own refusal (a ValueError it raised on purpose) says what it
    # looked for; Python's own errors (TypeError on None, StopIteration) do not.
    said = f" ({why})" if type(exc) is ValueError else ""
    out = []
    for path in paths:
        what = "this record" if path.endswith("]") else "records in this collection"
        out.append({"path": path, "message": f"task {task.id} needs {what}, and the state has none{said}"})
    return out
