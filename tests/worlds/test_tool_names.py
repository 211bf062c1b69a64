"""Every tool every world serves has a name model APIs accept (issue 34, item 9).

The Anthropic Messages and OpenAI Chat Completions APIs take tool names
matching ``^[a-zA-Z0-9_-]{1,64}$``; a listing handed to them unchanged (as
reference 000's Claude loop does) must hold no other name. A world may declare
a tool under its real API's dotted name: that name stays the tool's alias.
"""

from __future__ import annotations

import dataclasses
import re
from itertools import combinations

import pytest

from sw_runtime import worlds
from sw_runtime.engine.users import ASK_USER_DEFINITION
from sw_runtime.worlds import composite
from sw_runtime.worlds.tool import NoArgs, tool

MODEL_API_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # as the Messages and Chat Completions APIs state it

REGISTERED = sorted(worlds.registry())
EVERY_COMPOSITE = [list(c) for k in (2, 3) for c in combinations(REGISTERED, k)]


def _served(world) -> list:
    return [t.definition()["name"] for t in world.tools]


def _assert_servable(world) -> None:
    names = _served(world)
    bad = [n for n in names if not MODEL_API_NAME.match(n)]
    assert not bad, f"{world.name} serves tool names model APIs refuse: {bad}"
    assert len(set(names)) == len(names), world.name
    for t in world.tools:
        assert world.tools_by_name[t.name] is t
        if t.alias is not None:  # the declared name still calls the same tool
            assert world.tools_by_name[t.alias] is t and t.definition()["alias"] == t.alias


@pytest.mark.parametrize("name", REGISTERED)
def test_every_world_serves_names_model_apis_accept(name):
    _assert_servable(worlds.get_world(name))


def test_every_composite_serves_names_model_apis_accept():
    # every set of two or three registered worlds, not only the ones with cross-app tasks
    for names in EVERY_COMPOSITE:
        _assert_servable(worlds.get_composite(names))
    assert MODEL_API_NAME.match(ASK_USER_DEFINITION["name"])  # the engine's own tool, in episodes with a user


def test_the_dotted_worlds_keep_their_real_api_names_as_aliases():
    office = worlds.get_world("offsite-planning")
    t = office.tools_by_name["gmail.messages.list"]
    assert (t.name, t.alias) == ("gmail_messages_list", "gmail.messages.list")
    assert office.served("slack.chat.postMessage") == "slack_chat_postMessage"
    assert worlds.get_world("codehost").tools_by_name["pulls.merge"].name == "pulls_merge"
    # a reaction declared on the alias fires on the served name
    assert set(office.reactions_by_tool) == {"slack_chat_postMessage"}


def test_a_declared_name_is_served_with_every_refused_character_written_underscore():
    @tool(writes=False, params=NoArgs, name="Invoice.void invoice/v2")
    def odd(ctx, args):
        """A tool with a name no model API takes."""

    assert (odd.name, odd.alias) == ("Invoice_void_invoice_v2", "Invoice.void invoice/v2")
    assert odd.definition()["name"] == "Invoice_void_invoice_v2"

    @tool(writes=False, params=NoArgs, name="plain_name-2")
    def plain(ctx, args):
        """A tool whose name is servable as it is."""

    assert plain.alias is None and "alias" not in plain.definition()


def test_a_name_longer_than_model_apis_take_is_refused_at_declaration():
    with pytest.raises(ValueError, match="1 to 64 characters"):
        @tool(writes=False, params=NoArgs, name="x." * 40)
        def long(ctx, args):
            """Too long a name."""


def test_a_name_two_parts_share_is_served_prefixed_by_world_with_an_alias():
    office = worlds.get_world("offsite-planning")
    twin = dataclasses.replace(office, name="office-twin")  # every tool name shared
    both = composite.compose([office, twin])
    _assert_servable(both)
    t = both.tools_by_name["offsite-planning_slack_chat_postMessage"]
    assert t.alias == "offsite-planning.slack.chat.postMessage"
    assert both.tools_by_name["office-twin.slack.chat.postMessage"].name == "office-twin_slack_chat_postMessage"
    assert both.tool_name("office-twin", "slack.chat.postMessage") == "office-twin_slack_chat_postMessage"
    assert set(both.reactions_by_tool) == {"offsite-planning_slack_chat_postMessage",
                                           "office-twin_slack_chat_postMessage"}
