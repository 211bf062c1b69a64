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


class Trace:
    __slots__ = ("rows", "inherited")

    def __init__(self, rows=None, inherited: int = 0):
        self.rows = [] if rows is None else rows
        self.inherited = inherited  # the first `inherited` rows came from a fork's source

    def __len__(self) -> int:
        return len(self.rows)

    def append(self, row: tuple) -> None:
        self.rows.append(row)

    def copy(self, inherited: bool) -> "Trace":
        """A copy for a fork (``inherited``: every row so far is marked inherited)
        or for a throwaway twin (the marks stay as they are)."""
        rows = list(self.rows)
        return Trace(rows, len(rows) if inherited else self.inherited)

    def calls(self):
        """``(tool, args_json, ok, payload_json)`` of every row: what action
        checks with argument or result filters read (verify.evaluate)."""
        for row in self.rows:
            yield row[TOOL], row[ARGS], row[OK], row[PAYLOAD]

    def entries(self, start: int = 0, stop: int | None = None, raw: bool = False) -> list:
        """The rows as the API shows them. ``raw``: results, reactions and
        signals stay the JSON the server answered, as ``orjson.Fragment``s, for
        a caller that encodes the entries with orjson at once (the results
        store: decoding them only to encode them again was most of its cost)."""
        load = orjson.Fragment if raw else _loads
        out = []
        for row in self.rows[start:stop]:
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
            if row[SEQ] <= self.inherited:
                e["inherited"] = True
            out.append(e)
        return out
