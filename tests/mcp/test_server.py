"""The MCP door against a real server, driven by the official SDK's own client
(``streamable_http_client`` + ``ClientSession``): list tools, call them, read
the trace; only tools/call counts."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from sw_runtime.mcp import mcp_name
from sw_runtime.worlds.offsite_planning.tasks import q4_quickstart
from tests.runs.conftest import new_run


async def _session(url: str, token: str | None, work):
    headers = {"authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(headers=headers, timeout=30) as http:
        async with streamable_http_client(url, http_client=http) as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await work(session)


def mcp(url: str, token: str | None, work):
    return asyncio.run(_session(url, token, work))


def test_mcp_url_lists_steps_tools_and_calls_count(v1, http):
    run = new_run(v1)
    definitions = {d["name"]: d for d in http.post("/environments/offsite-planning/episodes", json={}).json()["tools"]}

    async def work(s):
        listed = (await s.list_tools()).tools
        again = (await s.list_tools()).tools
        results = [await s.call_tool(name, args) for name, args in q4_quickstart()]
        missing = await s.call_tool("gmail.messages.get", {"id": "m_nope"})
        return listed, again, results, missing

    listed, again, results, missing = mcp(run["mcp_url"], run["token"], work)
    assert {t.name: (t.description, t.inputSchema) for t in listed} == {
        mcp_name(n): (d["description"], d["parameters"]) for n, d in definitions.items()}
    assert len(again) == len(listed)
    assert [r.isError for r in results] == [False] * 5
    assert results[0].structuredContent["resultSizeEstimate"] == 4
    assert json.loads(results[2].content[0].text)["channel"] == "C_LEADERSHIP"
    assert missing.isError and json.loads(missing.content[0].text)["code"] == "not_found"
    done = v1.post(f"/v1/runs/{run['id']}/finish", json={}).json()
    assert done["calls"] == 6  # five calls and the refused one; initialize and tools/list are not calls
    calls = done["trace"]["calls"]
    assert {c["surface"] for c in calls} == {"mcp"}
    assert [c["operation"] for c in calls] == [n for n, _ in q4_quickstart()] + ["gmail.messages.get"]
    assert [len(c["reactions"]) for c in calls[:5]] == [0, 0, 2, 0, 0]
    assert done["evaluation"]["passed"] is True


def test_per_provider_servers_serve_their_provider_only(v1):
    run = new_run(v1)

    async def names(s):
        return sorted(t.name for t in (await s.list_tools()).tools)

    gmail = mcp(run["tools_url"] + "/gmailmcp.googleapis.com/mcp/v1", run["token"], names)
    slack = mcp(run["tools_url"] + "/mcp.slack.com/mcp", run["token"], names)
    assert gmail and all(n.startswith("gmail_") for n in gmail)  # the tools whose alias is gmail.…
    assert slack and all(n.startswith("slack_") for n in slack)

    async def cross(s):
        return await s.call_tool("gmail.messages.list", {"q": "offsite"})

    refused = mcp(run["tools_url"] + "/mcp.slack.com/mcp", run["token"], cross)
    assert refused.isError and "no tool" in refused.content[0].text
    assert v1.get(f"/v1/runs/{run['id']}").json()["calls"] == 0


def test_mcp_needs_the_runs_own_token(v1, base):
    run, other = new_run(v1), new_run(v1)
    for headers in ({}, {"authorization": f"Bearer {other['token']}"}):
        r = httpx.post(run["mcp_url"], headers={**headers, "accept": "application/json, text/event-stream"},
                       json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert r.status_code == 401


def test_after_the_end_a_call_is_an_error_result_and_not_counted(v1):
    run = new_run(v1)
    v1.post(f"/v1/runs/{run['id']}/finish", json={})

    async def work(s):
        return await s.call_tool("gmail.messages.list", {"q": "offsite"})

    result = mcp(run["mcp_url"], run["token"], work)
    assert result.isError and json.loads(result.content[0].text)["code"] == "run_ended"
    assert v1.get(f"/v1/runs/{run['id']}").json()["calls"] == 0


@pytest.mark.parametrize("name", ["gmail.messages.list", "a b/c", "x" * 200])
def test_mcp_names_are_valid(name):
    out = mcp_name(name)
    assert len(out) <= 128 and all(c.isalnum() or c in "._-" for c in out)
    if name == "gmail.messages.list":
        assert out == name
