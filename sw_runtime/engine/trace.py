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
_dumps = orjson.dumps
# orjson reads JSON nested at most this deep; arguments with fewer brackets
# than that are read back for sure, so they can be copied as they are.
_SAFE_BRACKETS = 1000


def _arguments(data: bytes):
    """A call's arguments as sent; ones that cannot be read back (nested past
    the decoder's depth) are shown as their text."""
    try:
        return _loads(data)
    except (orjson.JSONDecodeError, RecursionError):
        return {"unreadable_arguments": data[:200].decode(errors="replace")}


def _unreadable(data: bytes) -> bool:
    try:
        _loads(data)
    except (orjson.JSONDecodeError, RecursionError):
        return True
    return False


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

    def entries(self, start: int = 0, stop: int | None = None) -> list:
        """The rows as the API shows them."""
        out = []
        for row in self.rows[start:stop]:
            e = {
                "seq": row[SEQ],
                "at": row[AT],
                "tool": row[TOOL],
                "arguments": _arguments(row[ARGS]),
                "ok": row[OK],
                ("result" if row[OK] else "error"): _loads(row[PAYLOAD]),
                "mutated": row[MUTATED],
                "state_digest": row[DIGEST],
                "reactions": _loads(row[REACTIONS]) if row[REACTIONS] is not None else [],
            }
            if row[SIGNALS] is not None:
                e["signals"] = _loads(row[SIGNALS])
            if row[FAULT] is not None:
                e["fault"] = row[FAULT]
            if row[SEQ] <= self.inherited:
                e["inherited"] = True
            out.append(e)
        return out

    def entries_json(self) -> bytes:
        """``entries()`` encoded as JSON, built from the rows' bytes as they
        are: nothing is decoded and encoded again (storing a result did that
        for every row, ~20 µs per step of a 2 KB listing)."""
        out = [b"["]
        inherited = self.inherited
        for row in self.rows:
            if len(out) > 1:
                out.append(b",")
            args = row[ARGS]
            if args.count(b"[") + args.count(b"{") >= _SAFE_BRACKETS and _unreadable(args):
                args = _dumps({"unreadable_arguments": args[:200].decode(errors="replace")})
            ok = row[OK]
            out += (b'{"seq":%d,"at":' % row[SEQ], _dumps(row[AT]), b',"tool":', _dumps(row[TOOL]),
                    b',"arguments":', args, b',"ok":true,"result":' if ok else b',"ok":false,"error":', row[PAYLOAD],
                    b',"mutated":true,"state_digest":' if row[MUTATED] else b',"mutated":false,"state_digest":',
                    _dumps(row[DIGEST]), b',"reactions":', row[REACTIONS] if row[REACTIONS] is not None else b"[]")
            if row[SIGNALS] is not None:
                out += (b',"signals":', row[SIGNALS])
            if row[FAULT] is not None:
                out += (b',"fault":', _dumps(row[FAULT]))
            out.append(b',"inherited":true}' if row[SEQ] <= inherited else b"}")
        out.append(b"]")
        return b"".join(out)
