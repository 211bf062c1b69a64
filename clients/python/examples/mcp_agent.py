"""Drive an episode through MCP with the official SDK's client and a scripted policy.

Every episode of every world is also an MCP server (streamable HTTP) at
``/api/v1/episodes/{id}/mcp``, opened by the ``tools_token`` its create
answered. This script starts the offsite-planning quickstart task, connects
with ``mcp``'s own ``ClientSession``, lists the tools, and plays the task with
a scripted policy that reads the answers (it picks the day from the leaders'
free/busy), then submits the episode and prints its score.

    ./scripts/serve &                     # a server on 127.0.0.1:8787
    python clients/python/examples/mcp_agent.py

The server's address comes from SANDWORLD_API_URL (default
http://127.0.0.1:8787/api/v1). Needs the client with its ``mcp`` extra
(``pip install './clients/python[mcp]'``); runs on the SDK's 1.x and 2.x.
"""

from __future__ import annotations

import asyncio
import json
import os

import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

try:  # mcp 2.x's transport takes an httpx2 client
    import httpx2 as mcp_httpx
except ImportError:  # mcp 1.x's takes an httpx one
    mcp_httpx = httpx

API = os.environ.get("SANDWORLD_API_URL", "http://127.0.0.1:8787/api/v1").rstrip("/")
ROOT = API.removesuffix("/api/v1")
LEADERS = ["ingrid", "erik", "mari", "anders", "sofie", "jonas"]


async def call(session: ClientSession, tool: str, **arguments) -> dict:
    """One tools/call (one step of the episode); the tool's answer as a dict."""
    result = await session.call_tool(tool, arguments)
    answer = json.loads(result.content[0].text)
    if result.is_error if hasattr(result, "is_error") else result.isError:  # 2.x's name, else 1.x's
        raise RuntimeError(f"{tool} refused: {answer}")
    print(f"  {tool}")
    return answer


def free_day(freebusy: dict, days: list) -> str:
    """The first day on which no leader has anything busy."""
    for day in days:
        if all(not any(b["start"].startswith(day) for b in cal["busy"]) for cal in freebusy["calendars"].values()):
            return day
    raise RuntimeError("no day is free for everyone")


async def play(session: ClientSession) -> str:
    """The scripted policy: read, decide, act. Answers the final output."""
    emails = [f"{name}@nordlys.no" for name in LEADERS]
    await call(session, "gmail.messages.list", q="offsite")
    await call(session, "gmail.threads.get", id="t_q4offsite", format="minimal")
    busy = await call(session, "calendar.freebusy.query", timeMin="2026-11-12T00:00:00+01:00",
                      timeMax="2026-11-15T00:00:00+01:00", timeZone="Europe/Oslo", items=[{"id": e} for e in emails])
    day = free_day(busy, ["2026-11-12", "2026-11-13"])
    await call(session, "slack.chat.postMessage", channel="C_LEADERSHIP",
               text=f"Proposal for the Q4 offsite: {day}, all day. It is the only working day all six of you are free.")
    end = f"{day[:-2]}{int(day[-2:]) + 1:02d}"
    await call(session, "calendar.events.insert", calendarId="primary", summary="Q4 offsite", location="Oslo",
               start={"date": day}, end={"date": end}, attendees=[{"email": e} for e in emails])
    await call(session, "slack.chat.postMessage", channel="C_GENERAL",
               text=f"The leadership team's Q4 offsite is on {day}, all day in Oslo.")
    return f"Booked the Q4 offsite on {day} with the six leaders; told #leadership and #general."


async def main() -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        ep = (await http.post(f"{API}/environments/offsite-planning/episodes",
                              json={"task_id": "task_schedule_q4_offsite"})).raise_for_status().json()
        print(f"episode {ep['episode_id']}: {ep['instruction'][:70]}...")
        headers = {"authorization": f"Bearer {ep['tools_token']}"}
        async with mcp_httpx.AsyncClient(headers=headers, timeout=30) as mcp_http:
            # 1.x yields (read, write, session id getter), 2.x (read, write)
            async with streamable_http_client(ROOT + ep["mcp_url"], http_client=mcp_http) as streams:
                read, write = streams[0], streams[1]
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    tools = (await session.list_tools()).tools
                    print(f"MCP server lists {len(tools)} tools")
                    output = await play(session)
        ev = (await http.post(f"{API}/episodes/{ep['episode_id']}/submit", json={"output": output})).json()
        print(f"steps: {ev['steps']}  pass: {ev['pass']}  score: {ev['score']}")
        for check in ev["checks"]:
            print(f"  {'PASS' if check['pass'] else 'FAIL'}  {check['label']}")


if __name__ == "__main__":
    asyncio.run(main())
