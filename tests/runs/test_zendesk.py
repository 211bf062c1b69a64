"""Helpdesk's tools at Zendesk's own REST paths
(``{tools_url}/brightwater.zendesk.com/api/v2/…``), against a real server:
every task's reference solution sent as Zendesk's methods and paths passes with
the same trace and digests as ``step``; the answers, statuses and errors are
Zendesk's; and zenpy, Zendesk's Python SDK, works against them unchanged and
leaves the same digests as the same calls through ``step``."""

from __future__ import annotations

import re

import pytest
import requests
from sw_core_ext import Store
from zenpy import Zenpy
from zenpy.lib.api_objects import Comment, Ticket
from zenpy.lib.exception import APIException, RecordNotFoundException

from sw_runtime.runs.addresses import ADDRESSES, route
from sw_runtime.worlds.helpdesk import WORLD
from tests.runs.conftest import new_run

HOST = "brightwater.zendesk.com"
ZD = f"/{HOST}/api/v2"
ZENDESK = [a for a in ADDRESSES if a.provider == "zendesk"]
QUERY_IN_WRITES = {"ids"}  # Update Many Tickets takes its ids in the query string


def zendesk_request(tool: str, args: dict) -> tuple:
    """``(method, path, query, body)`` of a tool call as Zendesk's reference writes it."""
    address = next(a for a in ZENDESK if a.tool == tool)
    names = re.findall(r"\{([a-z_]+)\}", address.template)
    path = ZD + re.sub(r"\{([a-z_]+)\}", lambda m: str(args[m.group(1)]), address.template)
    rest = {k: v for k, v in args.items() if k not in names}
    if address.methods[0] == "GET":
        return "GET", path, {k: str(v).lower() if isinstance(v, bool) else v for k, v in rest.items()}, None
    query = {k: v for k, v in rest.items() if k in QUERY_IN_WRITES}
    return address.methods[0], path, query, {k: v for k, v in rest.items() if k not in QUERY_IN_WRITES}


def auth(run) -> dict:
    return {"authorization": f"Bearer {run['token']}"}


def send(v1, run, tool, args):
    method, path, query, body = zendesk_request(tool, args)
    return v1.request(method, run["tools_url"] + path, params=query, json=body, headers=auth(run))


def setup(task):
    return task.setup(Store(WORLD.generate(0), collections=WORLD.collections))


def step_digests(http, calls, task_id=None) -> tuple:
    body = {"seed": 0} if task_id is None else {"task_id": task_id, "seed": 0}
    ep = http.post("/environments/helpdesk/episodes", json=body).json()
    for tool, args in calls:
        assert http.post(f"/episodes/{ep['episode_id']}/step", json={"tool": tool, "arguments": args}).json()["ok"]
    trace = http.get(f"/episodes/{ep['episode_id']}").json()["trace"]
    return ep, trace


def test_every_zendesk_tool_has_its_path():
    assert {a.tool for a in ZENDESK} == {t.alias for t in WORLD.tools}  # the real API's names


@pytest.mark.parametrize("method,path,tool,args", [
    ("GET", f"{HOST}/api/v2/tickets/1042.json", "zendesk.tickets.show", {"ticket_id": "1042"}),
    ("GET", f"{HOST}/api/v2/tickets/1042", "zendesk.tickets.show", {"ticket_id": "1042"}),  # .json is optional
    ("PUT", "acme.zendesk.com/api/v2/tickets/7.json", "zendesk.tickets.update", {"ticket_id": "7"}),
    ("PUT", f"{HOST}/api/v2/tickets/update_many.json", "zendesk.tickets.update_many", {}),
    ("GET", f"{HOST}/api/v2/tickets/7/macros/36400001/apply.json", "zendesk.macros.apply",
     {"ticket_id": "7", "macro_id": "36400001"}),
    ("GET", f"{HOST}/api/v2/users/36100001/tickets/requested.json", "zendesk.users.tickets.requested",
     {"user_id": "36100001"}),
])
def test_zendesk_requests_name_their_tool(method, path, tool, args):
    routed = route(method, path)
    assert routed is not None and (routed.tool, routed.path_args) == (tool, args)


@pytest.mark.parametrize("method,path", [
    ("GET", f"{HOST}/api/v2/tickets/abc.json"), ("DELETE", f"{HOST}/api/v2/tickets/7.json"),
    ("GET", f"{HOST}/api/v1/tickets.json"), ("GET", "zendesk.com/api/v2/tickets.json"),
])
def test_other_zendesk_requests_name_none(method, path):
    assert route(method, path) is None


@pytest.mark.parametrize("task", WORLD.tasks, ids=lambda t: t.id)
def test_every_reference_solution_through_zendesks_paths_passes_as_step_does(v1, http, task):
    run = new_run(v1, environment="helpdesk", task=task.title)
    assert {"provider": "zendesk", "surface": "rest", "url": run["tools_url"] + ZD} in run["tools"]
    s = setup(task)
    calls = [(tool, args) for tool, args in s.solution if tool != "ask_user"]
    answers = [send(v1, run, tool, args) for tool, args in calls]
    created = [201 if tool == "zendesk.tickets.create" else 200 for tool, _ in calls]
    assert [a.status_code for a in answers] == created, [a.text for a in answers]
    finished = v1.post(f"/v1/runs/{run['id']}/finish", json={"output": s.output}).json()
    rest = finished["trace"]["calls"]
    assert {(c["provider"], c["surface"]) for c in rest} == {("zendesk", "rest")}

    ep, step = step_digests(http, calls, task.id)
    assert [WORLD.served(c["operation"]) for c in rest] == [s_["tool"] for s_ in step]  # 001 shows the alias (the real API's name), step the served name
    assert [c["arguments"] for c in rest] == [s_["arguments"] for s_ in step]  # path and query typed as step's
    assert [c["state_digest"] for c in rest] == [s_["state_digest"] for s_ in step]
    submitted = http.post(f"/episodes/{ep['episode_id']}/submit", json={"output": s.output}).json()
    assert finished["evaluation"]["digest"] == submitted["digest"]


def test_zendesks_bodies_and_errors(v1):
    run = new_run(v1, environment="helpdesk", task="Escalate with a macro")
    t, h = run["tools_url"] + ZD, auth(run)
    one = v1.get(t + "/tickets/1001.json", headers=h)
    assert one.status_code == 200 and one.json()["ticket"]["id"] == 1001
    listed = v1.get(t + "/tickets.json", params={"per_page": "5", "page": "2"}, headers=h).json()
    assert [x["id"] for x in listed["tickets"]] == [1006, 1007, 1008, 1009, 1010]
    assert listed["count"] > 200 and listed["next_page"].endswith("page=3&per_page=5")
    assert listed["previous_page"].endswith("page=1&per_page=5")
    gone = v1.get(t + "/tickets/9999.json", headers=h)
    assert gone.status_code == 404 and gone.json() == {"error": "RecordNotFound", "description": "Not found"}
    blank = v1.post(t + "/tickets.json", json={"ticket": {"subject": "x", "requester_id": 36100001}}, headers=h)
    assert blank.status_code == 422 and blank.json()["error"] == "RecordInvalid"
    assert blank.json()["details"]["description"][0]["description"] == "Description: cannot be blank"
    typed = v1.put(t + "/tickets/1001.json", json={"ticket": {"status": "later"}}, headers=h)
    assert typed.status_code == 422 and typed.json()["error"] == "RecordInvalid" and typed.json()["details"]["base"]
    found = v1.get(t + "/search.json", params={"query": "type:ticket status:new", "page[size]": "100"}, headers=h)
    assert found.status_code == 200 and found.json()["count"] == 5  # a parameter no tool takes is ignored
    assert {r["result_type"] for r in found.json()["results"]} == {"ticket"}
    no_such = v1.get(t + "/tickets/1001/nothing.json", headers=h)
    assert no_such.status_code == 404 and no_such.json() == {"error": "InvalidEndpoint", "description": "Not found"}
    calls = v1.post(f"/v1/runs/{run['id']}/finish", json={"output": "x"}).json()["trace"]["calls"]
    assert [c["status"] for c in calls] == ["ok", "ok", "error", "error", "error", "ok"]  # no route: not a call


def test_a_closed_ticket_cannot_be_updated(v1):
    run = new_run(v1, environment="helpdesk", task="Follow up a closed ticket")
    closed = next(t for t in WORLD.generate(0)["tickets"].values() if t["status"] == "closed")
    r = v1.put(run["tools_url"] + ZD + f"/tickets/{closed['id']}.json", json={"ticket": {"status": "open"}},
               headers=auth(run))
    assert r.status_code == 422
    assert r.json()["details"]["status"][0]["description"] == "Status: closed prevents ticket update"


def test_refused_before_a_tool_is_zendesks_shape_and_not_a_call(v1):
    run = new_run(v1, environment="helpdesk", task="Escalate with a macro")
    t = run["tools_url"] + ZD
    anon = v1.get(t + "/tickets.json")
    assert anon.status_code == 401 and anon.json() == {"error": "Couldn't authenticate you"}
    basic = v1.get(t + "/tickets/1001.json", auth=("agent@example.com/token", run["token"]))
    assert basic.status_code == 200  # Zendesk's email/token basic auth, as zenpy sends it
    wrong = v1.get(t + "/tickets/1001.json", auth=("agent@example.com", run["token"]))
    assert wrong.status_code == 401  # a password is not an API token
    assert v1.get(f"/v1/runs/{run['id']}").json()["calls"] == 1
    v1.post(f"/v1/runs/{run['id']}/finish", json={"output": "x"})
    late = v1.get(t + "/tickets/1001.json", headers=auth(run))
    assert late.status_code == 409 and late.json()["error"] == "Conflict"


class _ToolsUrl(requests.adapters.HTTPAdapter):
    """Sends zenpy's ``https://brightwater.zendesk.com/...`` to the run's tools URL."""

    def __init__(self, tools_url: str):
        super().__init__()
        self.tools_url = tools_url

    def send(self, request, **kwargs):
        request.url = request.url.replace(f"https://{HOST}", f"{self.tools_url}/{HOST}", 1)
        return super().send(request, **kwargs)


def zenpy_client(run) -> Zenpy:
    session = requests.Session()
    session.mount(f"https://{HOST}/", _ToolsUrl(run["tools_url"]))
    return Zenpy(subdomain="brightwater", email="assistant@brightwater-outfitters.com", token=run["token"],
                 session=session, disable_cache=True)


def test_zenpy_drives_the_tools_and_leaves_steps_digests(v1, http):
    run = new_run(v1, environment="helpdesk", task="Merge a customer's duplicate tickets", seed=0)
    s = setup(next(t for t in WORLD.tasks if t.id == "hd-02"))
    target, copy = s.solution[-1][1]["ticket_id"], s.solution[-1][1]["ids"][0]
    zd = zenpy_client(run)

    ticket = zd.tickets(id=target)
    assert ticket.id == target and ticket.status == "open"
    found = list(zd.search(type="ticket", status="new"))
    assert len(found) == 5 and all(t.status == "new" for t in found)
    unsolved = list(zd.search(type="ticket", status_less_than="solved"))  # two pages: zenpy follows next_page
    state = WORLD.generate(0)["tickets"].values()
    assert len(unsolved) == sum(t["status"] in ("new", "open", "pending", "hold") for t in state) > 100
    assert [c.public for c in zd.tickets.comments(ticket=target)][0] is True
    requested = list(zd.users.requested(ticket.requester_id))
    assert {target, copy} <= {t.id for t in requested}
    ticket.comment = Comment(body="Internal: same order as the copy.", public=False)
    ticket.priority = "normal"
    audit = zd.tickets.update(ticket)
    assert audit.ticket.priority == "normal"
    made = zd.tickets.create(Ticket(subject="Lost parcel", description="Where is my parcel?",
                                    requester_id=ticket.requester_id, priority="low"))
    assert made.ticket.status == "new" and made.ticket.subject == "Lost parcel"
    job = zd.tickets.merge(target, [copy])
    assert job.status == "completed"
    assert zd.tickets(id=copy).status == "closed"
    with pytest.raises(RecordNotFoundException):
        zd.tickets(id=9999)
    closed = next(t for t in WORLD.generate(0)["tickets"].values() if t["status"] == "closed")
    shut = zd.tickets(id=closed["id"])
    shut.status = "open"
    with pytest.raises(APIException) as refused:
        zd.tickets.update(shut)
    assert refused.value.response.status_code == 422

    finished = v1.post(f"/v1/runs/{run['id']}/finish", json={"output": "done"}).json()
    rest = [c for c in finished["trace"]["calls"] if c["status"] == "ok"]
    _, step = step_digests(http, [(c["operation"], c["arguments"]) for c in rest], "hd-02")
    assert [WORLD.served(c["operation"]) for c in rest] == [x["tool"] for x in step]  # 001 shows the alias (the real API's name), step the served name
    assert [c["state_digest"] for c in rest] == [x["state_digest"] for x in step]


def test_zenpy_waits_out_a_rate_limit_and_retries(http, base):
    """Under the rate_limited fault profile a refused call answers Zendesk's 429 with
    Retry-After; zenpy sleeps that long and sends it again, which then runs."""
    from sw_runtime.engine import faults

    seed = next(s for s in range(200) if faults.hits("rate_limited", s, 1) and not faults.hits("rate_limited", s, 2))
    ep = http.post("/environments/helpdesk/episodes", json={"seed": seed, "fault_profile": "rate_limited"}).json()
    zd = zenpy_client({"tools_url": base + ep["tools_url"], "token": ep["tools_token"]})  # an episode's own address
    assert zd.tickets(id=1001).id == 1001
    trace = http.get(f"/episodes/{ep['episode_id']}").json()["trace"]
    assert [(c["tool"], c["ok"]) for c in trace] == [("zendesk_tickets_show", False), ("zendesk_tickets_show", True)]
    assert trace[0]["error"]["code"] == "rate_limited"
