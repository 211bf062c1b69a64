"""Cursor pagination: stable order, no repeats, new items land after the pages read."""

from __future__ import annotations

import pytest

from sw_runtime import errors
from sw_runtime.pagination import MAX_LIMIT, decode_cursor, encode_cursor, page_request, paginate


def pages(items, key, limit):
    out, cursor = [], None
    while True:
        page = paginate(items, key, page_request(limit, cursor))
        out.append(page["items"])
        cursor = page["next_cursor"]
        if cursor is None:
            return out


def test_pages_cover_every_item_once_in_key_order():
    items = [{"id": f"x{i:03d}", "seq": i} for i in (5, 3, 9, 1, 7, 2, 8)]
    got = pages(items, key=lambda i: (i["seq"],), limit=3)
    assert [len(p) for p in got] == [3, 3, 1]
    assert [i["seq"] for p in got for i in p] == [1, 2, 3, 5, 7, 8, 9]


def test_items_added_while_paging_come_after_and_none_repeats():
    items = [(i,) for i in range(5)]
    first = paginate(items, key=lambda i: i, page=page_request(2))
    items += [(i,) for i in range(5, 9)]  # created while the client reads
    rest = pages_from(items, first["next_cursor"])
    assert first["items"] + rest == [(i,) for i in range(9)]


def pages_from(items, cursor):
    out = []
    while cursor:
        page = paginate(items, key=lambda i: i, page=page_request(2, cursor))
        out += page["items"]
        cursor = page["next_cursor"]
    return out


def test_the_cursor_round_trips_and_hostile_cursors_are_invalid_requests():
    assert decode_cursor(encode_cursor((3, "ep_x"))) == (3, "ep_x")
    for bad in ("%%%", "bm90IGpzb24", encode_cursor(("a",))[:-2] + "!!", "W10"):  # "[]" is empty
        with pytest.raises(errors.InvalidRequest):
            decode_cursor(bad)
    with pytest.raises(errors.InvalidRequest, match="another list"):
        paginate([(1,)], key=lambda i: i, page=page_request(2, encode_cursor(("a", "b"))))


def test_limit_is_checked():
    assert page_request(None).limit == 50
    for bad in ("0", str(MAX_LIMIT + 1), "ten", "-1"):
        with pytest.raises(errors.InvalidRequest, match="limit"):
            page_request(bad)
