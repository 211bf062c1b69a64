"""What a tool declares: which collections a pure read reads."""

from __future__ import annotations

import dataclasses

import msgspec
import pytest

from sw_core_ext import Store
from sw_runtime.worlds import registry
from sw_runtime.worlds.tool import ReadContext, Refused, tool


def _noop(ctx, args):
    """Does nothing."""
    return {}


@pytest.mark.parametrize("flags", [{"writes": True, "pure": True}, {"writes": False, "pure": False}])
def test_only_a_pure_read_declares_what_it_reads(flags):
    with pytest.raises(ValueError):
        tool(reads=("items",), **flags)(_noop)


def test_a_pure_read_declares_at_least_one_collection():
    with pytest.raises(ValueError):
        tool(writes=False, pure=True, reads=())(_noop)
    assert tool(writes=False, pure=True, reads=["items"])(_noop).reads == ("items",)
    assert tool(writes=False, pure=True)(_noop).reads is None  # undeclared: keyed on the whole state


def test_a_world_refuses_a_tool_that_reads_a_collection_it_does_not_have():
    base = registry()["dummy"]
    reader = tool(writes=False, pure=True, reads=("items", "nope"), name="reader")(_noop)
    with pytest.raises(ValueError, match="nope"):
        dataclasses.replace(base, tools=[*base.tools, reader])


def test_the_pure_reads_of_the_bundled_worlds_declare_what_they_read():
    for world in registry().values():
        for t in world.tools:
            if t.pure and not t.writes:
                assert t.reads and set(t.reads) <= set(world.collections), (world.name, t.name)
    coinpurse = registry()["coinpurse"].tools_by_name
    assert {name: coinpurse[name].reads for name in ("get_balance", "list_contacts", "list_requests",
                                                     "list_outgoing_requests", "list_transactions")} == {
        "get_balance": ("account",), "list_contacts": ("contacts",), "list_requests": ("requests",),
        "list_outgoing_requests": ("outgoing",), "list_transactions": ("transactions",)}


def _first(store, collection: str) -> dict:
    return store.scan(collection)[0][1]


# Calls that take the branches a call with no arguments does not: each helper
# a read may reach, with ids taken from the seeded state.
CALLS = {
    "quickbasket": lambda s: [
        ("check_promo", {"code": _first(s, "promos")["code"]}),
        ("check_promo", {"code": _first(s, "promos")["code"], "slot_id": _first(s, "slots")["id"]}),
        ("get_product", {"product_id": _first(s, "products")["id"]}),
        ("get_order", {"order_id": _first(s, "orders")["id"]}),
        ("list_refunds", {"order_id": _first(s, "orders")["id"]}),
        ("search_products", {"query": "milk", "in_stock_only": True}),
    ],
    "airline": lambda s: [
        ("search_direct_flights", {"origin": "ORD", "destination": "DEN", "date": "2026-06-18"}),
        ("search_onestop_flights", {"origin": "BOS", "destination": "SEA", "date": "2026-06-18"}),
        ("search_direct_flights", {"origin": "XXX", "destination": "DEN", "date": "2026-06-18"}),
        ("get_flight_status", {"flight_number": _first(s, "flights")["number"], "date": "2026-06-18"}),
        ("get_member", {"member_id": _first(s, "members")["id"]}),
        ("get_reservation", {"reservation_id": _first(s, "reservations")["id"]}),
        ("list_fares", {}),
        ("list_airports", {}),
    ],
    "offsite-planning": lambda s: [
        ("calendar.events.list", {"calendarId": "primary", "q": "offsite"}),
        ("calendar.events.get", {"calendarId": _first(s, "events")["calendarId"],
                                 "eventId": _first(s, "events")["id"]}),
        ("calendar.freebusy.query", {"timeMin": "2026-11-01T00:00:00Z", "timeMax": "2026-12-01T00:00:00Z",
                                     "items": [{"id": "primary"}, {"id": "nobody@example.com"}]}),
        ("gmail.messages.list", {"q": "offsite", "labelIds": ["INBOX"]}),
        ("gmail.messages.get", {"id": _first(s, "messages")["id"]}),
        ("gmail.threads.get", {"id": _first(s, "messages")["threadId"]}),
        ("slack.conversations.history", {"channel": _first(s, "channels")["id"]}),
        ("slack.conversations.replies", {"channel": _first(s, "slack_messages")["channelId"],
                                         "ts": _first(s, "slack_messages")["ts"]}),
    ],
    "tracker": lambda s: [
        *(("jira.getIssue", {"issueIdOrKey": key}) for key, i in s.scan("issues") if i["parent"] or i["sprint"]),
        ("jira.getTransitions", {"issueIdOrKey": _first(s, "issues")["key"], "expand": "transitions.fields"}),
        ("jira.getComments", {"issueIdOrKey": _first(s, "comments")["issue"]}),
        ("jira.getIssueWorklog", {"issueIdOrKey": _first(s, "worklogs")["issue"]}),
        ("jira.getProject", {"projectIdOrKey": "API"}),
        ("jira.getAllSprints", {"boardId": 11, "state": "active"}),
        ("jira.getAllBoards", {"projectKeyOrId": "WEB"}),
    ],
}


@pytest.mark.parametrize("world_name", sorted(CALLS))
def test_reads_with_arguments_touch_only_the_collections_they_declare(world_name):
    """On a store that refuses the others (UndeclaredRead would escape)."""
    world = registry()[world_name]
    for seed in (0, 1):
        store = Store(world.generate(seed), collections=world.collections)
        for name, args in CALLS[world_name](store):
            t = world.tools_by_name[name]
            try:
                t.fn(ReadContext(store), msgspec.convert(args, t.params))
            except Refused:
                pass  # an answer too (not_found...): it read only what it declares
