"""The codehost world: GitHub's operations over acme/api, and seeds that replace it whole."""

from __future__ import annotations

import base64

from sw_core_ext import Store

from sw_runtime import schemas
from sw_runtime.engine.engine import Engine
from sw_runtime.worlds.codehost import WORLD

API = {"owner": "acme", "repo": "api"}
# A world of one's own: a single repository, nothing of the default acme world.
OWN = {"repos": {"octo/hello": {
    "id": 1, "name": "hello", "full_name": "octo/hello", "owner": {"login": "octo", "type": "User"},
    "private": False, "description": None, "default_branch": "main", "html_url": "https://github.com/octo/hello",
    "created_at": "2026-01-01T00:00:00Z", "topics": [], "has_issues": True, "allow_squash_merge": True,
    "allow_merge_commit": True, "allow_rebase_merge": True}}}


def test_tools_are_githubs_operations():
    names = {t.alias for t in WORLD.tools}  # GitHub's names, served as repos_get (tool.py)
    assert {"repos.get", "repos.getContent", "issues.listForRepo", "issues.create", "pulls.get", "pulls.listFiles",
            "pulls.createReview", "pulls.merge", "checks.listForRef"} <= names
    for t in WORLD.tools:
        props = t.schema["properties"]
        assert "owner" in props or "org" in props, t.name


def test_there_are_at_least_15_tasks_each_checked_for_collateral():
    # tests/worlds/test_checker.py runs every task's reference on seeds 0-49 and a do-nothing episode
    assert len(WORLD.tasks) >= 15
    store = Store(WORLD.generate(0), collections=WORLD.collections)
    for task in WORLD.tasks:
        assert any(c.id == "no-collateral" for c in task.setup(store.fork()).checks), task.id


def test_the_default_seed_serves_acme_api_with_githubs_shapes(http):
    ep = http.post("/environments/codehost/episodes", json={"seed": 4}).json()
    eid = ep["episode_id"]

    def call(tool, **args):
        return http.post(f"/episodes/{eid}/step", json={"tool": tool, "arguments": args}).json()

    repo = call("repos.get", **API)["result"]
    assert repo["full_name"] == "acme/api" and repo["default_branch"] == "main" and repo["owner"]["login"] == "acme"
    readme = call("repos.getContent", **API, path="README.md")["result"]
    assert readme["encoding"] == "base64" and base64.b64decode(readme["content"]).startswith(b"# acme/api")
    runs = call("checks.listForRef", **API, ref="main")["result"]
    assert runs["total_count"] == 1 and runs["check_runs"][0]["conclusion"] == "failure"
    pr = call("pulls.list", **API)["result"][0]
    files = call("pulls.listFiles", **API, pull_number=pr["number"])["result"]
    assert files and {"filename", "status", "additions", "deletions", "changes", "patch"} <= set(files[0])
    missing = call("issues.get", **API, issue_number=999)
    assert missing["ok"] is False and missing["error"]["message"] == "Not Found" and missing["error"]["status"] == "404"


def test_a_custom_seed_replaces_acme_api_whole(http):
    r = http.post("/environments/codehost/episodes", json={"state": OWN})
    assert r.status_code == 201, r.text
    eid = r.json()["episode_id"]
    gone = http.post(f"/episodes/{eid}/step", json={"tool": "repos.get", "arguments": API}).json()
    assert gone["ok"] is False
    assert gone["error"] == {"code": "not_found", "message": "Not Found", "status": "404",
                             "documentation_url": "https://docs.github.com/rest/repos/repos#get-a-repository"}
    mine = http.post(f"/episodes/{eid}/step", json={"tool": "repos.get",
                                                     "arguments": {"owner": "octo", "repo": "hello"}}).json()
    assert mine["ok"] is True and mine["result"]["full_name"] == "octo/hello"


def test_a_merged_pull_request_cannot_be_merged_again():
    engine = Engine()
    ep = engine.create("codehost", schemas.CreateEpisode(task_id="ch-04", seed=0))
    number = next(a for t, a in ep.setup.solution if t == "pulls.merge")["pull_number"]
    first = engine.step(ep.id, "pulls.merge", {**API, "pull_number": number, "merge_method": "squash"})
    again = engine.step(ep.id, "pulls.merge", {**API, "pull_number": number})
    assert first["ok"] and first["result"]["merged"] is True
    assert again["ok"] is False and again["error"]["status"] == "405"
    rebase = engine.step(ep.id, "pulls.merge", {**API, "pull_number": 1, "merge_method": "rebase"})
    assert rebase["ok"] is False

