"""An episode's trace, kept compactly.

Every answered call is one tuple of atoms and JSON bytes (the arguments and
the result are stored as the JSON they were sent and answered as). Keeping
decoded objects alive per call is what slows a rollout server down: the
garbage collector walks them all, again and again. Dicts are built only when
someone reads the trace.
"""

from __future__ import annotations

import orjson

# A row: (seq, at, tool, args_json, ok, payload_json, mutated, state_digest,
#         reactions_json | None, signals_json | None, fault | None)
SEQ, AT, TOOL, ARGS, OK, PAYLOAD, MUTATED, DIGEST, REACTIONS, SIGNALS, FAULT = range(11)

_loads = orjson.loads


def _arguments(data: bytes):
    """A call's arguments as sent; ones that cannot be read back (nested past
    the decoder's depth) are shown as their text."""
    try:
        return _loads(data)
    except (orjson.JSONDecodeError, RecursionError):
        return {"unreadable_arguments": data[:200].decode(errors="replace")}


RESTORED = None  # the tool of a ``restored`` row (``restored``): no tool was called


def restored_row(seq: int, at: str, snapshot_id: str, from_step: int, digest: str, mutated: bool) -> tuple:
    """The row a restore leaves: which snapshot, from which step, the digest it gives back."""
    payload = orjson.dumps({"snapshot_id": snapshot_id, "from_step": from_step})
    return (seq, at, RESTORED, b"{}", True, payload, mutated, digest, None, None, None)


class Trace:
    __slots__ = ("rows", "inherited", "undone")

    def __init__(self, rows=None, inherited: int = 0, undone: frozenset = frozenset()):
        self.rows = [] if rows is None else rows
        self.inherited = inherited  # the first `inherited` rows came from a fork's source
        # Indexes of rows a restore took back (engine/restore.py): still shown,
        # marked "undone", and no longer what the checks read.
        self.undone = undone

    def __len__(self) -> int:
        return len(self.rows)

    def append(self, row: tuple) -> None:
        self.rows.append(row)

    def copy(self, inherited: bool) -> "Trace":
        """A copy for a fork (``inherited``: every row so far is marked inherited)
        or for a throwaway twin (the marks stay as they are)."""
        rows = list(self.rows)
        return Trace(rows, len(rows) if inherited else self.inherited, self.undone)

    def restore(self, rows: int, undone: frozenset, row: tuple) -> None:
        """Take back every row from index ``rows`` on (what came after a
        snapshot that had ``rows`` rows and ``undone`` taken back), and add
        the ``restored`` row."""
        self.undone = undone | frozenset(range(rows, len(self.rows)))
        self.rows.append(row)

    def calls(self):
        """``(tool, args_json, ok, payload_json)`` of every call still in the
        episode's history: what action checks with argument or result filters
        read (verify.evaluate). Rows a restore took back are not."""
        undone = self.undone
        for i, row in enumerate(self.rows):
            if row[TOOL] is not RESTORED and (not undone or i not in undone):
                yield row[TOOL], row[ARGS], row[OK], row[PAYLOAD]

    def entries(self, start: int = 0, stop: int | None = None, raw: bool = False) -> list:
        """The rows as the API shows them. ``raw``: results, reactions and
        signals stay the JSON the server answered, as ``orjson.Fragment``s, for
        a caller that encodes the entries with orjson at once (the results
        store: decoding them only to encode them again was most of its cost)."""
        load = orjson.Fragment if raw else _loads
        out = []
        undone = self.undone
        for i, row in enumerate(self.rows[start:stop], start):
            if row[TOOL] is RESTORED:
                e = {"seq": row[SEQ], "at": row[AT], "restored": load(row[PAYLOAD]), "mutated": row[MUTATED],
                     "state_digest": row[DIGEST]}
                if undone and i in undone:
                    e["undone"] = True
                out.append(e)
                continue
            e = {
                "seq": row[SEQ],
                "at": row[AT],
                "tool": row[TOOL],
                "arguments": _arguments(row[ARGS]),
                "ok": row[OK],
                ("result" if row[OK] else "error"): load(row[PAYLOAD]),
                "mutated": row[MUTATED],
                "state_digest": row[DIGEST],
                "reactions": load(row[REACTIONS]) if row[REACTIONS] is not None else [],
            }
            if row[SIGNALS] is not None:
                e["signals"] = load(row[SIGNALS])
            if row[FAULT] is not None:
                e["fault"] = row[FAULT]
            if i < self.inherited:
                e["inherited"] = True
            if undone and i in undone:
                e["undone"] = True
            out.append(e)
        return out
