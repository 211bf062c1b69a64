"""Codehost's tools at GitHub's own REST paths (``{tools_url}/api.github.com/…``),
against a real server: every task's reference solution sent as GitHub's methods
and paths passes with the same trace and digests as ``step``, and the answers
and refusals are GitHub's (bodies, statuses, auth schemes)."""

from __future__ import annotations

import re

import pytest
from sw_core_ext import Store

from sw_runtime.runs.addresses import ADDRESSES
from sw_runtime.worlds.codehost import WORLD
from tests.runs.conftest import new_run

GH = "/api.github.com"
REPO = GH + "/repos/acme/api"
GITHUB = [a for a in ADDRESSES if a.provider == "github"]


def github_request(tool: str, args: dict) -> tuple:
    """``(method, path, rest)``: the tool's REST method and path as GitHub's docs write
    them, and the arguments left for the query or the body."""
    address = max((a for a in GITHUB if a.tool == tool and set(re.findall(r"\{([a-z_]+)", a.template)) <= set(args)),
                  key=lambda a: len(a.template))
    names = re.findall(r"\{([a-z_]+)", address.template)
    path = re.sub(r"\{([a-z_]+)\+?\}", lambda m: str(args[m.group(1)]), address.template)
    return address.methods[0], GH + path, {k: v for k, v in args.items() if k not in names}


def auth(run, scheme="Bearer") -> dict:
    return {"authorization": f"{scheme} {run['token']}", "accept": "application/vnd.github+json",
            "x-github-api-version": "2022-11-28"}


def send(v1, run, tool, args):
    method, path, rest = github_request(tool, args)
    url = run["tools_url"] + path
    if method == "GET":
        params = {k: str(v).lower() if isinstance(v, bool) else v for k, v in rest.items()}
        return v1.request(method, url, params=params, headers=auth(run))
    return v1.request(method, url, json=rest, headers=auth(run))


def solution(task) -> list:
    return task.setup(Store(WORLD.generate(0), collections=WORLD.collections)).solution


@pytest.mark.parametrize("task", WORLD.tasks, ids=lambda t: t.id)
def test_every_reference_solution_through_githubs_paths_passes_as_step_does(v1, http, task):
    run = new_run(v1, environment="codehost", task=task.title)
    assert {"provider": "github", "surface": "rest", "url": run["tools_url"] + GH} in run["tools"]
    calls = solution(task)
    answers = [send(v1, run, tool, args) for tool, args in calls]
    assert [a.status_code for a in answers] == [200] * len(calls), [a.text for a in answers]
    finished = v1.post(f"/v1/runs/{run['id']}/finish", json={"output": "done"}).json()
    rest = finished["trace"]["calls"]
    assert {(c["provider"], c["surface"]) for c in rest} == {("github", "rest")}

    ep = http.post("/environments/codehost/episodes", json={"task_id": task.id, "seed": 0}).json()
    for tool, args in calls:
        assert http.post(f"/episodes/{ep['episode_id']}/step", json={"tool": tool, "arguments": args}).json()["ok"]
    step = http.get(f"/episodes/{ep['episode_id']}").json()["trace"]
    assert [WORLD.served(c["operation"]) for c in rest] == [s["tool"] for s in step]  # 001 shows the alias (the real API's name), step the served name
    assert [c["arguments"] for c in rest] == [s["arguments"] for s in step]  # path and query typed as step's
    assert [c["state_digest"] for c in rest] == [s["state_digest"] for s in step]
    submitted = http.post(f"/episodes/{ep['episode_id']}/submit", json={"output": "done"}).json()
    assert finished["evaluation"]["digest"] == submitted["digest"]


def test_githubs_refusals_and_statuses(v1):
    run = new_run(v1, environment="codehost", task="Squash-merge a ready PR")
    t, h = run["tools_url"], auth(run)
    gone = v1.get(t + GH + "/repos/acme/nope", headers=h)
    assert gone.status_code == 404
    assert gone.json() == {"message": "Not Found", "status": "404",
                           "documentation_url": "https://docs.github.com/rest/repos/repos#get-a-repository"}
    bad = v1.post(t + REPO + "/issues", json={"title": ""}, headers=h)
    assert bad.status_code == 422 and bad.json()["status"] == "422" and "$.title" in bad.json()["message"]
    typed = v1.get(t + REPO + "/pulls", params={"per_page": "1", "direction": "asc"}, headers=h)  # unknown: ignored
    assert typed.status_code == 200 and len(typed.json()) == 1
    token = v1.get(t + REPO, headers=auth(run, "token"))  # GitHub's older scheme works too
    assert token.status_code == 200 and token.json()["full_name"] == "acme/api"
    calls = v1.post(f"/v1/runs/{run['id']}/finish", json={"output": "x"}).json()["trace"]["calls"]
    assert [c["status"] for c in calls] == ["error", "error", "ok", "ok"]
    assert calls[2]["arguments"] == {"owner": "acme", "repo": "api", "per_page": 1}


def test_refused_before_a_tool_is_githubs_shape_and_not_a_call(v1):
    run = new_run(v1, environment="codehost", task="Squash-merge a ready PR")
    t = run["tools_url"]
    anon = v1.get(t + REPO)
    assert anon.status_code == 401 and anon.json()["message"] == "Bad credentials" and anon.json()["status"] == "401"
    nowhere = v1.get(t + REPO + "/issues/x", headers=auth(run))  # /issues/{issue_number} takes digits
    assert nowhere.status_code == 404 and nowhere.json()["message"] == "Not Found"
    assert v1.delete(t + REPO, headers=auth(run)).status_code == 404
    assert v1.get(f"/v1/runs/{run['id']}").json()["calls"] == 0
    v1.post(f"/v1/runs/{run['id']}/finish", json={"output": "x"})
    late = v1.get(t + REPO, headers=auth(run))
    assert late.status_code == 409 and late.json()["status"] == "409"
