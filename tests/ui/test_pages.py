"""The viewer's pages over HTTP (no browser): what each page holds, escaping, keys."""

from __future__ import annotations

import contextlib
import html

import httpx
import pytest

from sandworld.local import local_server

from .conftest import INJECTED, new_episode, root_of


def test_the_root_links_to_the_viewer_for_people_and_says_where_things_are_for_programs(viewer):
    root, _, _ = viewer
    page = httpx.get(root + "/", headers={"accept": "text/html"})
    assert page.status_code == 200 and 'href="/ui/"' in page.text
    assert httpx.get(root + "/").json()["ui"] == "/ui/"
    assert httpx.get(root + "/ui/", follow_redirects=True).url.path == "/ui/episodes"
    assert httpx.get(root + "/ui", follow_redirects=True).url.path == "/ui/episodes"


def test_the_list_is_newest_first_and_shows_each_episodes_score_and_pass(viewer):
    root, http, ids = viewer
    text = httpx.get(root + "/ui/episodes").text
    order = [ids["fork"], ids["live"], ids["failed"], ids["passed"]]
    assert [text.index(f'data-episode="{e}"') for e in order] == sorted(text.index(f'data-episode="{e}"')
                                                                         for e in order)
    row = text[text.index(f'data-episode="{ids["passed"]}"'):]
    row = row[:row.index("</tr>")]
    assert "alice" in row and ">pass<" in row and ">1.00<" in row


@pytest.mark.parametrize("query, wanted", [
    ("pass=pass", {"passed"}), ("pass=fail", {"failed"}), ("agent_name=carol", {"live", "fork"}),
    ("status=open&task_id=cp-01", {"live", "fork"}), ("ended_by=finished&environment=coinpurse", {"passed", "failed"}),
])
def test_filters_list_only_the_episodes_they_name(viewer, query, wanted):
    root, _, ids = viewer
    text = httpx.get(f"{root}/ui/episodes?{query}").text
    assert {name for name, eid in ids.items() if f'data-episode="{eid}"' in text} == wanted


def test_pages_follow_the_cursor_to_older_episodes_without_repeating_one(viewer):
    root, _, ids = viewer
    seen, url = [], f"{root}/ui/episodes?limit=1"
    while url:
        text = httpx.get(url).text
        seen += [eid for eid in ids.values() if f'data-episode="{eid}"' in text]
        nxt = text.split('rel="next" href="', 1)
        url = f"{root}/ui/episodes" + html.unescape(nxt[1].split('"', 1)[0]) if len(nxt) > 1 else None
    assert sorted(seen) == sorted(ids.values()) and len(seen) == len(set(seen))


def test_a_value_holding_markup_is_shown_as_text(viewer):
    root, _, ids = viewer
    page = httpx.get(f"{root}/ui/episodes/{ids['failed']}")
    assert "script-src 'self'" in page.headers["content-security-policy"]  # and no inline script would run
    text = page.text
    assert "<script>window.__pwned" not in text and "<img src=x" not in text
    assert html.escape("<script>window.__pwned = 1</script>") in text  # the tool argument, as text
    assert INJECTED not in text


def test_the_episode_page_names_its_fork_and_snapshot_and_the_fork_links_back(viewer):
    root, http, ids = viewer
    snap = http.post(f"/episodes/{ids['live']}/snapshots", json={}).json()["snapshot_id"]
    text = httpx.get(f"{root}/ui/episodes/{ids['live']}").text
    assert f'href="/ui/episodes/{ids["fork"]}"' in text and f"<code>{snap}</code>" in text
    assert f'class="fork-source" href="/ui/episodes/{ids["live"]}"' in httpx.get(
        f"{root}/ui/episodes/{ids['fork']}").text


def test_a_passed_episodes_changes_are_put_beside_the_step_that_made_them(viewer):
    root, http, ids = viewer
    body = http.get(f"/episodes/{ids['passed']}").json()
    diff = body["evaluation"]["state_diff"]
    writers = [e["seq"] for e in body["trace"] if e["mutated"]]
    assert diff and len(writers) == 1, "cp-02's reference solution makes one payment"
    text = httpx.get(f"{root}/ui/episodes/{ids['passed']}").text
    step = text[text.index(f'id="step-{writers[0]}"'):]
    step = step[:step.index("</li>")]
    for collection, kinds in diff.items():
        for kind, rids in kinds.items():
            for rid in rids:
                assert f'<span class="change {kind}">{kind} {collection}/{rid}</span>' in step
    assert 'data-world="coinpurse"' in text  # changes are grouped by world (one, until composite episodes)


def test_a_composite_episodes_changes_are_grouped_by_world(viewer):
    root, http, _ = viewer
    ep = http.post("/episodes", json={"environments": ["codehost", "offsite-planning"], "seed": 3}).json()
    eid = ep["episode_id"]
    http.post("/batch", json={"calls": [
        {"episode_id": eid, "tool": "pulls.list", "arguments": {"owner": "acme", "repo": "api"}},
        {"episode_id": eid, "tool": "slack.chat.postMessage",
         "arguments": {"channel": "C_ENGINEERING", "text": "The fix is merged"}}]})
    diff = http.post(f"/episodes/{eid}/submit", json={"output": "Told #engineering."}).json()["state_diff"]
    text = httpx.get(f"{root}/ui/episodes/{eid}").text
    assert set(diff) == {"offsite-planning"}
    assert 'data-world="offsite-planning"' in text and 'data-world="codehost"' not in text
    (rid,) = diff["offsite-planning"]["slack_messages"]["created"]
    assert f'<span class="change created">created offsite-planning.slack_messages/{rid}</span>' in text


def test_an_unknown_episode_is_a_404_page(viewer):
    root, _, _ = viewer
    r = httpx.get(f"{root}/ui/episodes/ep_0_nope_nope")
    assert r.status_code == 404 and "text/html" in r.headers["content-type"] and "not_found" in r.text


def test_the_server_page_lists_worlds_shards_and_open_episodes(viewer):
    root, _, ids = viewer
    text = httpx.get(f"{root}/ui/server").text
    for world in ("coinpurse", "quickbasket", "dummy"):
        assert f'data-world="{world}"' in text
    assert f'href="/ui/episodes/{ids["live"]}"' in text and f'href="/ui/episodes/{ids["passed"]}"' not in text
    assert '/api/v1</td>' in text  # the lone shard and its URL


def test_a_task_page_shows_the_check_sentences_of_that_seed(viewer):
    root, http, _ = viewer
    text = httpx.get(f"{root}/ui/worlds/coinpurse/tasks/cp-02?seed=1").text
    rendered = http.post("/checks/render", json={"environment": "coinpurse", "checks": [
        {"kind": "no_writes"}]}).json()["lines"][0]
    assert "<code>sent-to-friend</code>" in text and "<blockquote" in text
    assert rendered  # the same vocabulary /checks/render speaks
    assert httpx.get(f"{root}/ui/worlds/coinpurse/tasks/cp-99").status_code == 404


# -- under --auth keys ---------------------------------------------------------------------


@contextlib.contextmanager
def _login(root: str, key: str):
    with httpx.Client(base_url=root, timeout=30) as c:
        r = c.post("/ui/login", data={"key": key, "next": "/ui/episodes"})
        assert r.status_code == 303 and r.headers["location"] == "/ui/episodes", r.text
        yield c


def test_a_page_without_a_key_goes_to_the_login_form_and_comes_back(keyed_viewer):
    root = keyed_viewer["root"]
    r = httpx.get(f"{root}/ui/episodes?status=open")
    assert r.status_code == 303 and r.headers["location"] == "/ui/login?next=%2Fui%2Fepisodes%3Fstatus%3Dopen"
    assert httpx.get(f"{root}/ui/login").status_code == 200
    assert httpx.get(f"{root}/ui", follow_redirects=True).url.path == "/ui/login"


def test_the_login_cookie_is_httponly_strict_and_for_the_pages_only(keyed_viewer):
    root, key = keyed_viewer["root"], keyed_viewer["keys"]["alpha"]
    r = httpx.post(f"{root}/ui/login", data={"key": key, "next": "/ui/server"})
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "path=/ui" in cookie
    assert r.headers["location"] == "/ui/server"
    # The API never reads the cookie: a page elsewhere cannot drive the API through it.
    api = httpx.get(f"{keyed_viewer['api']}/episodes", cookies={"sw_ui_key": key})
    assert api.status_code == 401


def test_a_wrong_key_is_refused_and_a_login_never_sends_the_browser_to_another_site(keyed_viewer):
    root, key = keyed_viewer["root"], keyed_viewer["keys"]["alpha"]
    r = httpx.post(f"{root}/ui/login", data={"key": "sw_live_wrong", "next": "/ui/episodes"})
    assert r.status_code == 401 and "unknown or revoked" in r.text and "set-cookie" not in r.headers
    assert httpx.post(f"{root}/ui/login", data={"key": key, "next": "//evil.example/"}).headers[
        "location"] == "/ui/episodes"


def test_a_project_sees_its_own_episodes_and_another_projects_are_404(keyed_viewer):
    root, eps = keyed_viewer["root"], keyed_viewer["episodes"]
    with _login(root, keyed_viewer["keys"]["alpha"]) as c:
        listing = c.get("/ui/episodes").text
        assert eps["alpha"] in listing and eps["beta"] not in listing and "project <b>alpha</b>" in listing
        assert c.get(f"/ui/episodes/{eps['alpha']}").status_code == 200
        assert c.get(f"/ui/episodes/{eps['beta']}").status_code == 404
        assert eps["beta"] not in c.get("/ui/server").text


def test_the_pages_need_the_scopes_the_api_needs(keyed_viewer):
    root = keyed_viewer["root"]
    with _login(root, keyed_viewer["keys"]["hooks"]) as c:  # no episodes:read
        assert c.get("/ui/episodes").status_code == 403
        assert c.get("/ui/server").status_code == 200  # the catalogue is every key's


def test_logging_out_forgets_the_key(keyed_viewer):
    root = keyed_viewer["root"]
    with _login(root, keyed_viewer["keys"]["alpha"]) as c:
        r = c.post("/ui/logout")
        assert r.status_code == 303 and 'sw_ui_key=""' in r.headers["set-cookie"]
        assert c.get("/ui/episodes").status_code == 303


def test_a_trace_longer_than_a_window_is_shown_in_windows_of_500_steps():
    with local_server("--step-limit", "600") as api, httpx.Client(base_url=api, timeout=60) as http:
        ep = new_episode(http, "cp-01", 1, "long")
        calls = [{"episode_id": ep["episode_id"], "tool": "get_balance", "arguments": {}}] * 600
        assert http.post("/batch", json={"calls": calls}).is_success
        url = f"{root_of(api)}/ui/episodes/{ep['episode_id']}"
        first = httpx.get(url).text
        assert first.count('class="step ') == 500 and 'id="step-1"' in first and 'id="step-501"' not in first
        assert "steps 1–500 of 600" in first and 'href="?from=500#trace"' in first
        later = httpx.get(url, params={"from": "500"}).text
        assert later.count('class="step ') == 100 and 'id="step-501"' in later and 'id="step-600"' in later
        assert 'href="?from=0#trace"' in later and "later →" not in later
