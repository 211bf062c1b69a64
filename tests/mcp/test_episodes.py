"""Every /api/v1 episode of every world is an MCP server and has the real
addresses, opened by the token its create answered."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest

from sw_runtime.mcp import mcp_name
from tests.mcp.test_server import mcp

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "clients" / "python" / "examples" / "mcp_agent.py"


def test_create_answers_the_tools_token_and_addresses(http):
    ep = http.post("/environments/offsite-planning/episodes", json={}).json()
    eid = ep["episode_id"]
    assert ep["tools_token"].startswith("tw_run_")
    assert ep["tools_url"] == f"/api/v1/episodes/{eid}/tools" and ep["mcp_url"] == f"/api/v1/episodes/{eid}/mcp"


@pytest.mark.parametrize("world", ["coinpurse", "quickbasket", "offsite-planning", "tracker", "airline", "billing",
                                   "dummy"])
def test_every_world_serves_its_episode_over_mcp(http, base, world):
    ep = http.post(f"/environments/{world}/episodes", json={}).json()
    tools = {t["name"]: t for t in ep["tools"]}
    first = sorted(tools)[0]

    async def work(s):
        listed = (await s.list_tools()).tools
        return listed, await s.call_tool(mcp_name(first), {})

    listed, result = mcp(base + ep["mcp_url"], ep["tools_token"], work)
    assert {t.name: t.inputSchema for t in listed} == {mcp_name(n): t["parameters"] for n, t in tools.items()}
    trace = http.get(f"/episodes/{ep['episode_id']}").json()["trace"]
    assert [t["tool"] for t in trace] == [first]  # the call, whether the tool took it or refused it
    assert result.isError is (not trace[0]["ok"])


@pytest.mark.parametrize("world", ["offsite-planning", "codehost", "helpdesk", "tracker", "billing"])
def test_mcp_lists_names_model_apis_accept_and_calls_take_the_alias(http, base, world):
    ep = http.post(f"/environments/{world}/episodes", json={}).json()
    read = next(t for t in ep["tools"] if t["class"] == "safe" and "alias" in t)

    async def work(s):
        listed = (await s.list_tools()).tools
        return listed, [await s.call_tool(name, {}) for name in (read["alias"], read["name"])]

    listed, (by_alias, by_name) = mcp(base + ep["mcp_url"], ep["tools_token"], work)
    # an MCP client that hands tools/list to a model (Claude's mcp__server__tool) needs these names
    assert listed and all(re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", t.name) for t in listed)
    assert by_alias.isError == by_name.isError and by_alias.content[0].text == by_name.content[0].text
    trace = http.get(f"/episodes/{ep['episode_id']}").json()["trace"]
    assert [t["tool"] for t in trace] == [read["name"]] * 2  # traced by the served name either way


def test_an_episodes_token_opens_its_real_addresses_only(http, base):
    import httpx

    a, b = (http.post("/environments/offsite-planning/episodes", json={}).json() for _ in range(2))
    url = base + a["tools_url"] + "/gmail.googleapis.com/gmail/v1/users/me/messages"
    ok = httpx.get(url, params={"q": "offsite"}, headers={"authorization": f"Bearer {a['tools_token']}"})
    assert ok.status_code == 200 and ok.json()["resultSizeEstimate"] == 4
    assert httpx.get(url, headers={"authorization": f"Bearer {b['tools_token']}"}).status_code == 401
    trace = http.get(f"/episodes/{a['episode_id']}").json()["trace"]
    assert [(t["tool"], t["arguments"]) for t in trace] == [("gmail_messages_list", {"userId": "me", "q": "offsite"})]


@pytest.mark.slow
def test_the_mcp_agent_example_plays_the_quickstart(api):
    r = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "SANDWORLD_API_URL": api})
    assert r.returncode == 0, r.stderr
    assert "MCP server lists 22 tools" in r.stdout
    assert "steps: 6  pass: True  score: 1.0" in r.stdout
    assert r.stdout.count("PASS") >= 5 and "FAIL" not in r.stdout
