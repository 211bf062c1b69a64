"""A composite run through reference 001's /v1/runs: both worlds' real-API
paths side by side under its tools_url, every world's tools over MCP with the
official SDK's client, and a finish that scores it."""

from __future__ import annotations

from slack_sdk import WebClient

from sw_runtime.mcp import mcp_name
from tests.mcp.test_server import mcp


def test_a_composite_run_serves_both_worlds_paths_and_mcp_and_is_scored(v1, http):
    r = v1.post("/v1/runs", json={"environments": ["codehost", "offsite-planning"], "task": "Tell #general about acme/api",
                                  "checks": [{"kind": "action_called", "action": "repos.get"},
                                             {"kind": "record_exists", "collection": "offsite-planning.slack_messages",
                                              "where": {"text": "acme/api is live"}}]})
    assert r.status_code == 201, r.text
    run = r.json()
    assert run["environment"]["slug"] == "codehost+offsite-planning"
    providers = {t["provider"] for t in run["tools"]}
    assert {"github", "slack", "google.gmail", "google.calendar"} <= providers
    t, h = run["tools_url"], {"authorization": f"Bearer {run['token']}"}
    repo = v1.get(t + "/api.github.com/repos/acme/api", headers=h)
    assert repo.status_code == 200 and repo.json()["full_name"] == "acme/api"
    slack = WebClient(token=run["token"], base_url=t + "/slack.com/api/")
    assert slack.chat_postMessage(channel="C_GENERAL", text="acme/api is live")["ok"]

    async def work(s):
        return (await s.list_tools()).tools

    listed = {tool.name for tool in mcp(run["mcp_url"], run["token"], work)}
    defs = http.post("/episodes", json={"environments": ["offsite-planning", "codehost"]}).json()["tools"]
    assert listed == {mcp_name(d["name"]) for d in defs}
    assert {"pulls_merge", "slack_chat_postMessage"} <= listed  # names model APIs accept
    done = v1.post(f"/v1/runs/{run['id']}/finish", json={}).json()
    assert done["status"] == "done", done
    assert done["evaluation"]["score"] == 1.0
    assert [c["operation"] for c in done["trace"]["calls"]] == ["repos.get", "slack.chat.postMessage"]
    # one bad world is a 400 naming it
    r = v1.post("/v1/runs", json={"environments": ["codehost", "nowhere"], "task": "x"})
    assert r.status_code == 400 and "nowhere" in r.text
