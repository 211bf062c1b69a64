"""Query and form text typed by a tool's JSON Schema."""

from __future__ import annotations

from sw_runtime.runs.coerce import typed
from sw_runtime.worlds.offsite_planning import WORLD


def schema(tool):
    return WORLD.tools_by_name[tool].schema


def test_integers_booleans_and_repeated_lists():
    got = typed(schema("gmail.messages.list"), [("q", "offsite"), ("maxResults", "10"), ("includeSpamTrash", "true"),
                                                ("labelIds", "INBOX"), ("labelIds", "UNREAD")])
    assert got == {"q": "offsite", "maxResults": 10, "includeSpamTrash": True, "labelIds": ["INBOX", "UNREAD"]}


def test_json_in_a_field_and_comma_lists():
    got = typed(schema("calendar.freebusy.query"), [("items", '[{"id": "erik@nordlys.no"}]')])
    assert got == {"items": [{"id": "erik@nordlys.no"}]}
    assert typed(schema("gmail.messages.list"), [("labelIds", "INBOX,UNREAD")]) == {"labelIds": ["INBOX", "UNREAD"]}


def test_text_that_does_not_fit_stays_text_for_the_tool_to_refuse():
    assert typed(schema("gmail.messages.list"), [("maxResults", "ten"), ("nope", "1")]) == {
        "maxResults": "ten", "nope": "1"}
    assert typed(schema("slack.chat.postMessage"), [("reply_broadcast", "maybe"), ("text", "123")]) == {
        "reply_broadcast": "maybe", "text": "123"}
