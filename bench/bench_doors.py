"""What a call costs through each door, as a ratio to ``step``, in one run.

The same call (offsite-planning's ``gmail.messages.list`` with ``q=offsite``)
is made N times, one after the other, through ``POST /api/v1/.../step``, the
Gmail address under a run's ``tools_url``, and MCP ``tools/call`` (the SDK's
own client), against a local server. Sequential calls measure the per-call
overhead of each door, not throughput (``bench_batch.py`` measures that).

    .venv/bin/python bench/bench_doors.py --calls 300
"""

from __future__ import annotations

import argparse
import asyncio
import time

import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from sandworld.local import local_server

ARGS = {"q": "offsite"}


def per_call(fn, n: int) -> float:
    t = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t) / n


async def mcp_per_call(url: str, token: str, n: int) -> float:
    async with httpx.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=30) as http:
        async with streamable_http_client(url, http_client=http) as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()
                t = time.perf_counter()
                for _ in range(n):
                    await session.call_tool("gmail.messages.list", ARGS)
                return (time.perf_counter() - t) / n


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--calls", type=int, default=300, help="calls per door (default 300)")
    n = p.parse_args().calls
    with local_server() as api, httpx.Client(timeout=30) as c:
        root = api.removesuffix("/api/v1")
        ep = c.post(f"{api}/environments/offsite-planning/episodes", json={}).json()
        step_url = f"{api}/episodes/{ep['episode_id']}/step"
        step = per_call(lambda: c.post(step_url, json={"tool": "gmail.messages.list", "arguments": ARGS}), n)
        run = c.post(f"{root}/v1/runs", json={"environment": "offsite-planning", "task": "free play",
                                              "max_calls": 500}).json()
        gmail = run["tools_url"] + "/gmail.googleapis.com/gmail/v1/users/me/messages"
        h = {"authorization": f"Bearer {run['token']}"}
        rest = per_call(lambda: c.get(gmail, params=ARGS, headers=h), min(n, 250))
        mcp = asyncio.run(mcp_per_call(root + ep["mcp_url"], ep["tools_token"], n))
    print(f"calls per door: {n}")
    for name, t in (("step", step), ("real address (Gmail REST)", rest), ("MCP tools/call", mcp)):
        print(f"{name:28s} {t * 1000:7.2f} ms/call   {t / step:5.2f}x step")


if __name__ == "__main__":
    main()
