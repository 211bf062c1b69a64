"""Reference 000's Claude loop, as written, on the worlds whose tools copy
real APIs (issue 34, item 9), over a real server and the official SDK.

The loop hands the episode's tool listing to ``messages.create`` unchanged.
The stand-in Messages API here refuses a tool name outside the pattern the
real one enforces, ``^[a-zA-Z0-9_-]{1,64}$``, with its 400, and otherwise
plays the task's reference solution as ``tool_use`` blocks naming listed
tools. A call by a tool's alias (its real API's dotted name) is the same call:
same answers, trace and digests.
"""

from __future__ import annotations

import contextlib
import json
import re
from http.server import BaseHTTPRequestHandler

import anthropic
import pytest
import requests

from sw_runtime import worlds
from sw_runtime.verify import checks as C
from tests.fakes import serving

MODEL_API_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
Q4 = "task_schedule_q4_offsite"


def claude_loop(API: str, client, environment: str, task_id: str, seed: int) -> dict:
    """Reference 000's "Use Claude as the agent" loop, as written (the world and
    task as arguments; answers submit's answer instead of printing ``pass``)."""
    ep = requests.post(f"{API}/environments/{environment}/episodes", json={"task_id": task_id, "seed": seed}).json()
    # The episode's own tool list: it includes ask_user on tasks with a simulated user.
    tools = [{"name": t["name"], "description": t["description"], "input_schema": t["parameters"]} for t in ep["tools"]]

    messages = [{"role": "user", "content": ep["instruction"]}]
    while True:
        response = client.messages.create(
            model="claude-opus-5-5",
            max_tokens=16000,
            system=ep["policy"],
            tools=tools,
            messages=messages,
        )
        messages.append({"role": "assistant", "content": response.content})
        calls = [b for b in response.content if b.type == "tool_use"]
        if response.stop_reason != "tool_use" or not calls:
            break
        results = []
        for call in calls:
            obs = requests.post(f"{API}/episodes/{ep['episode_id']}/step",
                                json={"tool": call.name, "arguments": call.input}).json()
            results.append({"type": "tool_result", "tool_use_id": call.id, "content": str(obs)})
        messages.append({"role": "user", "content": results})

    return requests.post(f"{API}/episodes/{ep['episode_id']}/submit").json()


@contextlib.contextmanager
def messages_api(script: list):
    """A stand-in Messages API on 127.0.0.1 that answers the calls of
    ``script`` (``[(tool, arguments)]``, by the name the model picks from the
    listing) one per turn, then ends its turn. Yields the requests it saw."""
    seen: list = []

    class Handler(BaseHTTPRequestHandler):
        def _send(self, status: int, body: dict):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):  # noqa: N802 - http.server's naming
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            seen.append(body)
            listed = [t["name"] for t in body.get("tools", [])]
            for i, name in enumerate(listed):
                if not MODEL_API_NAME.match(name):  # the real API's refusal
                    self._send(400, {"type": "error", "error": {
                        "type": "invalid_request_error",
                        "message": f"tools.{i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'"}})
                    return
            turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
            usage = {"input_tokens": 1, "output_tokens": 1}
            if turn < len(script):
                name, arguments = script[turn]
                assert name in listed, f"the model can only call a listed tool; {name} is not one of {listed}"
                content = [{"type": "tool_use", "id": f"toolu_{turn:02d}", "name": name, "input": arguments}]
                stop = "tool_use"
            else:
                content, stop = [{"type": "text", "text": "Done."}], "end_turn"
            self._send(200, {"id": f"msg_{turn}", "type": "message", "role": "assistant", "model": body["model"],
                             "content": content, "stop_reason": stop, "stop_sequence": None, "usage": usage})

        def log_message(self, *args):
            pass

    with serving(Handler) as root:
        yield anthropic.Anthropic(base_url=root, api_key="sk-ant-test", max_retries=0), seen


def _silent_task(world):
    """A task of ``world`` an agent passes without a final answer or a user
    (000's loop submits no output): its reference solution for seed 0."""
    for task in world.tasks:
        setup = task.setup(world.seed_store(0))
        if not task.refusal and not any(isinstance(c, (C.OutputContains, C.OutputEquals, C.Rubric))
                                        for c in setup.checks) \
                and all(name != "ask_user" for name, _ in setup.solution) and not setup.hidden_facts:
            return task.id, setup.solution
    raise AssertionError(f"{world.name} has no task to play without output")


def _task(environment: str):
    world = worlds.get_world(environment)
    if environment == "offsite-planning":
        return world, Q4, world.tasks_by_id[Q4].setup(world.seed_store(0)).solution
    return (world, *_silent_task(world))


@pytest.mark.parametrize("environment", ["offsite-planning", "codehost"])
def test_reference_000s_claude_loop_as_written_passes(api, environment):
    world, task_id, solution = _task(environment)
    # the model names each call by a name it read in the listing: the world's served name
    script = [(world.served(name), args) for name, args in solution]
    with messages_api(script) as (client, seen):
        ev = claude_loop(api, client, environment, task_id, 0)
    assert ev["pass"] is True, ev
    listed = [t["name"] for t in seen[0]["tools"]]
    assert listed and all(MODEL_API_NAME.match(n) for n in listed)
    assert len(seen) == len(solution) + 1  # one turn per call, and the last one ends


def _play(http, task_id, calls, by_batch: bool) -> tuple:
    ep = http.post("/environments/offsite-planning/episodes", json={"task_id": task_id, "seed": 1}).json()
    eid = ep["episode_id"]
    answers = []
    for name, args in calls:
        if by_batch:
            r = http.post("/batch", json={"calls": [{"episode_id": eid, "tool": name, "arguments": args}]})
            assert r.status_code == 200, r.text
            answer = r.json()["results"][0]
            answer.pop("episode_id")
        else:
            r = http.post(f"/episodes/{eid}/step", json={"tool": name, "arguments": args})
            assert r.status_code == 200, r.text
            answer = r.json()
        answers.append(answer)
    trace = http.get(f"/episodes/{eid}").json()["trace"]
    ev = http.post(f"/episodes/{eid}/submit", json={}).json()
    return answers, trace, ev


def _same(ev: dict) -> dict:
    return {k: v for k, v in ev.items() if k not in ("episode_id", "submitted_at", "created_at")}


@pytest.mark.parametrize("by_batch", [False, True], ids=["step", "batch"])
def test_a_call_by_alias_is_the_call_by_served_name(http, by_batch):
    world = worlds.get_world("offsite-planning")
    solution = world.tasks_by_id[Q4].setup(world.seed_store(1)).solution
    assert all("." in name for name, _ in solution)  # the aliases: the real APIs' names
    served = [(world.served(name), args) for name, args in solution]
    assert all(MODEL_API_NAME.match(name) for name, _ in served)
    by_alias = _play(http, Q4, solution, by_batch)
    by_name = _play(http, Q4, served, by_batch)
    assert by_alias[0] == by_name[0]  # every answer, its "tool" and digests included
    assert [t["tool"] for t in by_alias[1]] == [n for n, _ in served]  # traced by the served name
    assert [{k: v for k, v in t.items() if k != "id"} for t in by_alias[1]] == \
        [{k: v for k, v in t.items() if k != "id"} for t in by_name[1]]
    assert by_alias[2]["pass"] is True and _same(by_alias[2]) == _same(by_name[2])


def test_an_unknown_tool_lists_the_served_names(http):
    eid = http.post("/environments/codehost/episodes", json={}).json()["episode_id"]
    answer = http.post(f"/episodes/{eid}/step", json={"tool": "pulls.nope", "arguments": {}}).json()
    assert answer["error"]["code"] == "unknown_tool"
    assert "pulls_merge" in answer["error"]["message"] and "pulls.merge" not in answer["error"]["message"]


def test_a_check_may_name_a_tool_by_either_name(http):
    body = {"task_id": Q4, "seed": 0, "checks": [
        {"kind": "action_called", "action": "slack.chat.postMessage"},
        {"kind": "action_not_called", "action": "gmail_messages_send"}]}
    ep = http.post("/environments/offsite-planning/episodes", json=body).json()
    http.post(f"/episodes/{ep['episode_id']}/step", json={"tool": "slack_chat_postMessage",
                                                          "arguments": {"channel": "C_GENERAL", "text": "Hello"}})
    checks = {c["id"]: c["pass"] for c in http.post(f"/episodes/{ep['episode_id']}/submit", json={}).json()["checks"]}
    assert checks["custom-1"] is True and checks["custom-2"] is True


def test_the_listing_gives_each_tools_alias(http):
    tools = http.post("/environments/codehost/episodes", json={}).json()["tools"]
    merge = next(t for t in tools if t["name"] == "pulls_merge")
    assert merge["alias"] == "pulls.merge"
    assert set(merge) == {"name", "description", "parameters", "class", "alias"}


def test_a_tasks_check_naming_the_alias_counts_calls_by_the_served_name(http):
    # hd-13's "no-merge" is action_not_called zendesk.tickets.merge, as the task declares it
    ep = http.post("/environments/helpdesk/episodes", json={"task_id": "hd-13", "seed": 0, "signals": True}).json()
    answer = http.post(f"/episodes/{ep['episode_id']}/step", json={"tool": "zendesk_tickets_merge", "arguments": {}})
    assert answer.json()["tool"] == "zendesk_tickets_merge"
    checks = {c["id"]: c for c in http.post(f"/episodes/{ep['episode_id']}/submit", json={}).json()["checks"]}
    assert checks["no-merge"]["pass"] is False, checks["no-merge"]
