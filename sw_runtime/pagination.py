"""Cursor pagination, shared by every list route (episodes, snapshots,
webhooks, deliveries, keys).

A list is read in a stable order: each item has a sort key that never
changes and never repeats (a creation sequence number, or a creation time
with the id to break ties). A page is the first ``limit`` items whose key
comes after the cursor's, and ``next_cursor`` holds the key of the page's
last item. Items created while a client pages through therefore never shift
the pages it has not read yet, and an item never appears twice: new items
land at the end (their keys are larger).

The cursor is opaque to clients (URL-safe base64 of a small JSON array) so
the sort key can change without breaking the contract; a cursor that does not
decode is ``invalid_request``, never a 500.
"""

from __future__ import annotations

import base64
import binascii
import heapq
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import orjson

from . import errors

DEFAULT_LIMIT = 50
MAX_LIMIT = 500


@dataclass(frozen=True, slots=True)
class PageRequest:
    """What a client asked for: at most ``limit`` items after ``after`` (a sort key, or None)."""

    limit: int = DEFAULT_LIMIT
    after: tuple | None = None


def encode_cursor(key: tuple) -> str:
    return base64.urlsafe_b64encode(orjson.dumps(list(key))).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        key = orjson.loads(raw)
    except (binascii.Error, ValueError, orjson.JSONDecodeError):
        raise errors.InvalidRequest("cursor is not one this server handed out; pass next_cursor unchanged") from None
    if not isinstance(key, list) or not key or not all(isinstance(k, (str, int)) and not isinstance(k, bool)
                                                        for k in key):
        raise errors.InvalidRequest("cursor is not one this server handed out; pass next_cursor unchanged")
    return tuple(key)


def page_request(limit: str | int | None = None, cursor: str | None = None) -> PageRequest:
    """Read ``limit`` and ``cursor`` as a door receives them (query strings)."""
    if limit is None or limit == "":
        n = DEFAULT_LIMIT
    else:
        try:
            n = int(limit)
        except (TypeError, ValueError):
            raise errors.InvalidRequest(f"limit must be an integer from 1 to {MAX_LIMIT}") from None
        if not 1 <= n <= MAX_LIMIT:
            raise errors.InvalidRequest(f"limit must be an integer from 1 to {MAX_LIMIT}")
    return PageRequest(n, decode_cursor(cursor) if cursor else None)


def list_query(params, filters: tuple = ()) -> tuple:
    """A list route's query string read the same way on every list: ``limit``,
    ``cursor`` and the route's ``filters``; any other parameter is refused
    naming it (a misspelt filter silently ignored answers the wrong list).
    Answers ``(PageRequest, {filter: value or None})``."""
    known = ("limit", "cursor", *filters)
    for name in params:
        if name not in known:
            allowed = ", ".join(known[:-1]) + " and " + known[-1]
            raise errors.InvalidRequest(f"unknown query parameter {name!r}; this list takes {allowed}")
    return page_request(params.get("limit"), params.get("cursor")), {f: params.get(f) for f in filters}


def paginate(items: Iterable, key: Callable, page: PageRequest, render: Callable = lambda x: x) -> dict:
    """One page of ``items`` in ``key`` order: ``{"items": [...], "next_cursor"}``.

    ``next_cursor`` is null on the last page. ``key(item)`` returns a tuple of
    str/int that is unique and fixed for the item's life.
    """
    keyed = [(key(i), i) for i in items]
    if page.after is not None:
        try:
            keyed = [(k, i) for k, i in keyed if k > page.after]
        except TypeError:  # a cursor from another list: its key does not compare with these
            raise errors.InvalidRequest("cursor belongs to another list; pass this list's next_cursor") from None
    # The first limit+1 in key order, without sorting the whole list.
    chosen = heapq.nsmallest(page.limit + 1, keyed, key=lambda ki: ki[0])
    more = len(chosen) > page.limit
    chosen = chosen[: page.limit]
    return {
        "items": [render(item) for _k, item in chosen],
        "next_cursor": encode_cursor(chosen[-1][0]) if more else None,
    }


def paginate_sqlite(db, table: str, columns: str, page: PageRequest, render: Callable,
                    project: str | None = None) -> dict:
    """``paginate`` for a SQLite table with an ``INTEGER PRIMARY KEY
    AUTOINCREMENT`` column ``seq`` (first of ``columns``) and a ``project``
    column: one page in ``seq`` order, optionally only one project's rows.
    ``render(row)`` makes an item of a row."""
    after = page.after[0] if page.after and isinstance(page.after[0], int) else 0
    where, args = "seq > ?", [after]
    if project is not None:
        where += " AND project = ?"
        args.append(project)
    rows = db.execute(f"SELECT {columns} FROM {table} WHERE {where} ORDER BY seq LIMIT ?",
                      (*args, page.limit + 1)).fetchall()
    more = len(rows) > page.limit
    rows = rows[: page.limit]
    return {"items": [render(r) for r in rows], "next_cursor": encode_cursor((rows[-1][0],)) if more else None}
