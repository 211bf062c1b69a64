"""The viewer in a real browser (headless chromium through Playwright), on real servers.

Each test opens pages as a person would, clicks, fills forms, and reads what
the browser shows, checked against the API's JSON. They also take the
screenshots docs/VIEWER.md shows (``SW_VIEWER_SHOTS=docs/img``).
"""

from __future__ import annotations

import json

import httpx
import pytest

from .conftest import INJECTED, new_episode, shot

pytestmark = pytest.mark.slow


def test_a_click_from_the_list_opens_the_episode_and_its_trace_and_checks_are_the_apis(viewer, tab, tmp_path):
    root, http, ids = viewer
    tab.goto(f"{root}/ui/episodes")
    shot(tab, "episodes", tmp_path)
    tab.click(f'tr[data-episode="{ids["passed"]}"] a')
    tab.wait_for_url(f"**/ui/episodes/{ids['passed']}")
    body = http.get(f"/episodes/{ids['passed']}").json()
    assert tab.inner_text("#episode-id") == ids["passed"]
    steps = tab.locator("li.step")
    assert steps.count() == len(body["trace"])
    for i, entry in enumerate(body["trace"]):
        step = steps.nth(i)
        assert step.get_attribute("data-seq") == str(entry["seq"])
        assert step.locator("code.tool").inner_text() == entry["tool"]
        assert step.get_attribute("data-ok") == ("true" if entry["ok"] else "false")
        assert step.locator(".digest").inner_text() == entry["state_digest"]
        assert step.locator(".time").inner_text() == entry["at"]
    rows = tab.locator("#checks tbody tr")
    checks = body["evaluation"]["checks"]
    assert rows.count() == len(checks)
    for i, c in enumerate(checks):
        assert rows.nth(i).get_attribute("data-check") == c["id"]
        assert rows.nth(i).locator("td.verdict").inner_text() == ("pass" if c["pass"] else "fail")
    assert tab.inner_text("#score-value") == f"{body['evaluation']['score']:.2f}"
    shot(tab, "episode", tmp_path)


def test_a_filter_chosen_in_the_form_lists_only_matching_episodes(viewer, tab):
    root, http, ids = viewer
    tab.goto(f"{root}/ui/episodes")
    tab.select_option('select[name="pass"]', "fail")
    tab.click('#filters button[type="submit"]')
    tab.wait_for_url("**/ui/episodes?*pass=fail*")
    rows = tab.locator("#episodes tbody tr[data-episode]")
    shown = rows.evaluate_all("rows => rows.map(r => r.dataset.episode)")
    assert ids["failed"] in shown and ids["passed"] not in shown and ids["live"] not in shown
    assert set(rows.evaluate_all("rows => rows.map(r => r.cells[9].textContent.trim())")) == {"fail"}
    assert tab.locator('select[name="pass"]').input_value() == "fail"  # the form keeps what was chosen


def test_an_injected_script_in_a_tool_argument_shows_as_text_and_never_runs(viewer, tab, tmp_path):
    root, _, ids = viewer
    tab.goto(f"{root}/ui/episodes/{ids['failed']}")
    assert tab.evaluate("window.__pwned") is None
    shown = tab.locator("li.step .args pre").first.inner_text()  # the arguments as the page shows them
    assert json.loads(shown) == {"query": INJECTED}
    assert tab.locator("main script").count() == 0 and tab.locator("main img").count() == 0


def test_the_server_page_refreshes_its_rates_from_metrics(viewer, tab, tmp_path):
    root, http, _ = viewer
    tab.goto(f"{root}/ui/server")
    ep = new_episode(http, "cp-01", 9, "rates")
    tab.wait_for_function("document.querySelector('[data-rate=live]').textContent !== '…'")
    calls = [{"episode_id": ep["episode_id"], "tool": "get_balance", "arguments": {}}] * 5
    assert http.post("/batch", json={"calls": calls}).is_success
    # the next refresh sees the batch: steps per second above 0 and a latency over 1 batch
    tab.wait_for_function("/over 1 batch/.test(document.querySelector('[data-rate=batch]').textContent)",
                          timeout=10_000)
    assert float(tab.inner_text('[data-rate="steps"]')) > 0
    tab.click('details[data-world="coinpurse"] summary')
    shot(tab, "server", tmp_path)


def test_the_pages_run_under_their_content_security_policy(viewer, strict_tab):
    """The stylesheet and the script are the package's own files: the policy refuses none
    of it (a refusal is a console error, which fails the test), and the rates still refresh."""
    root, _, ids = viewer
    for path in ("/ui/episodes", f"/ui/episodes/{ids['live']}", f"/ui/episodes/{ids['failed']}"):
        strict_tab.goto(root + path)
        assert strict_tab.locator("header.top").evaluate("e => getComputedStyle(e).display") == "flex"
    strict_tab.goto(f"{root}/ui/server")
    strict_tab.wait_for_timeout(3500)  # (no wait_for_function: it evaluates a string, which the policy refuses)
    assert strict_tab.inner_text('[data-rate="live"]') != "…"


def test_logging_in_under_keys_shows_the_projects_episodes_only(keyed_viewer, tab, tmp_path):
    root, eps = keyed_viewer["root"], keyed_viewer["episodes"]
    tab.goto(f"{root}/ui/episodes")
    tab.wait_for_url("**/ui/login?next=*")
    tab.fill('input[name="key"]', "sw_live_not_a_key")
    tab.click('form.login button')
    assert "unknown or revoked" in tab.inner_text('[role="alert"]')
    tab.fill('input[name="key"]', keyed_viewer["keys"]["alpha"])
    shot(tab, "login", tmp_path)
    tab.click('form.login button')
    tab.wait_for_url("**/ui/episodes")
    assert tab.locator(f'tr[data-episode="{eps["alpha"]}"]').count() == 1
    assert tab.locator(f'tr[data-episode="{eps["beta"]}"]').count() == 0
    assert tab.evaluate("document.cookie") == ""  # HttpOnly: no script reads the key
    response = tab.goto(f"{root}/ui/episodes/{eps['beta']}")
    assert response.status == 404
    tab.click("text=Log out")
    tab.wait_for_url("**/ui/login*")


def test_a_run_its_trial_and_a_comparison_in_the_browser(eval_view, tab, tmp_path):
    root, noop, ref = eval_view
    tab.goto(f"{root}/ui/runs/{noop}")
    tab.wait_for_function("document.querySelector('img.chart').complete")
    assert tab.evaluate("document.querySelector('img.chart').naturalWidth") > 0  # the report's chart, as a picture
    assert tab.locator("#tasks thead th", has_text="pass^3").count() == 1
    shot(tab, "run", tmp_path)
    tab.click("#trials tbody tr >> nth=0 >> a")
    tab.wait_for_url("**/trials/**")
    assert tab.locator("#checks tbody tr").count() > 0
    tab.goto(f"{root}/ui/runs")
    tab.check(f'input[name="a"][value="{noop}"]')
    tab.check(f'input[name="b"][value="{ref}"]')
    tab.click('#compare-form button[type="submit"]')
    tab.wait_for_url("**/ui/compare?*")
    overall = tab.locator('#compare tr[data-task="all"] td')
    assert overall.nth(1).inner_text() == "0%" and overall.nth(2).inner_text() == "100%"
    shot(tab, "compare", tmp_path)


def test_a_200_step_episode_page_load_time(viewer, tab, record_property):
    """Measured, not asserted (the machine is shared): bench/README.md reports it."""
    root, http, _ = viewer
    ep = new_episode(http, "cp-03", 4, "long")
    calls = [{"episode_id": ep["episode_id"], "tool": "list_contacts", "arguments": {"query": f"q{i}"}}
             for i in range(200)]
    assert http.post("/batch", json={"calls": calls}).is_success
    http.post(f"/episodes/{ep['episode_id']}/submit", json={"output": "done"})
    url = f"{root}/ui/episodes/{ep['episode_id']}"
    httpx.get(url)  # warm: the first read of an episode from memory
    times = []
    for _ in range(3):
        tab.goto(url, wait_until="load")
        times.append(tab.evaluate("performance.getEntriesByType('navigation')[0].duration"))
    assert tab.locator("li.step").count() == 200
    record_property("episode_200_steps_load_ms", min(times))
    print(f"\n200-step episode page: load {min(times):.0f} ms (best of 3; {', '.join(f'{t:.0f}' for t in times)})")
