"""The tools under tools_url, on the real APIs' addresses, against a real
server: real clients (slack_sdk, httpx on the REST docs' paths), the run
token, the real APIs' error statuses, and the same trace and digests as step."""

from __future__ import annotations

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from sw_runtime.worlds.offsite_planning.tasks import q4_quickstart
from tests.runs.conftest import new_run

GMAIL = "/gmail.googleapis.com/gmail/v1/users/me"
CAL = "/www.googleapis.com/calendar/v3"


def auth(run) -> dict:
    return {"authorization": f"Bearer {run['token']}"}


def finished(v1, run) -> dict:
    return v1.post(f"/v1/runs/{run['id']}/finish", json={}).json()


def rest_quickstart(v1, run) -> list:
    """The quickstart's five calls, each as the real API's method and path."""
    search, freebusy, leadership, event, general = (args for _, args in q4_quickstart())
    t, h = run["tools_url"], auth(run)
    event = dict(event)
    cal = event.pop("calendarId")
    return [
        v1.get(t + GMAIL + "/messages", params=search, headers=h),
        v1.post(t + CAL + "/freeBusy", json=freebusy, headers=h),
        v1.post(t + "/slack.com/api/chat.postMessage", json=leadership, headers=h),
        v1.post(t + CAL + f"/calendars/{cal}/events", json=event, headers=h),
        v1.post(t + "/slack.com/api/chat.postMessage", data={**general, "token": run["token"]}),  # a form body
    ]


def test_the_quickstart_through_the_real_addresses_has_steps_digests(v1, http):
    run = new_run(v1)
    answers = rest_quickstart(v1, run)
    assert [a.status_code for a in answers] == [200] * 5, [a.text for a in answers]
    assert answers[0].json()["resultSizeEstimate"] == 4 and answers[2].json()["ok"] is True
    rest = finished(v1, run)["trace"]["calls"]
    assert [c["surface"] for c in rest] == ["rest", "rest", "web-api", "rest", "web-api"]
    assert [c["provider"] for c in rest] == ["google.gmail", "google.calendar", "slack", "google.calendar", "slack"]

    ep = http.post("/environments/offsite-planning/episodes", json={"task_id": "task_schedule_q4_offsite"}).json()
    for name, args in q4_quickstart():
        assert http.post(f"/episodes/{ep['episode_id']}/step", json={"tool": name, "arguments": args}).json()["ok"]
    step = http.get(f"/episodes/{ep['episode_id']}").json()["trace"]
    assert [c["operation"] for c in rest] == [n for n, _ in q4_quickstart()]  # 001's: the real APIs' names
    assert [s["tool"] for s in step] == [n.replace(".", "_") for n, _ in q4_quickstart()]  # step's: served names
    assert [c["state_digest"] for c in rest] == [s["state_digest"] for s in step]
    assert [c["result"] for c in rest] == [s["result"] for s in step]
    assert [c["reactions"] for c in rest] == [s["reactions"] for s in step]


def test_a_tools_own_error_has_the_real_status_and_counts(v1):
    run = new_run(v1)
    r = v1.get(run["tools_url"] + GMAIL + "/messages/m_nope", headers=auth(run))
    assert r.status_code == 404
    err = r.json()["error"]
    assert err["code"] == 404 and err["status"] == "NOT_FOUND" and "m_nope" in err["message"]
    r = v1.post(run["tools_url"] + CAL + "/calendars/primary/events", headers=auth(run),
                json={"summary": "x", "start": {"date": "2026-11-13"}, "end": {"date": "2026-11-12"}})
    assert r.status_code == 400 and r.json()["error"]["status"] == "INVALID_ARGUMENT"
    slack = v1.post(run["tools_url"] + "/slack.com/api/chat.postMessage", headers=auth(run),
                    json={"channel": "C_NOPE", "text": "hi"})
    assert slack.status_code == 200 and slack.json()["ok"] is False and slack.json()["error"] == "channel_not_found"
    body = finished(v1, run)
    assert body["calls"] == 3
    assert [(c["status"], c["error"]["type"]) for c in body["trace"]["calls"]] == [
        ("error", "not_found"), ("error", "bad_request"), ("error", "channel_not_found")]


def test_refused_before_a_tool_is_not_a_call(v1, base):
    run, other = new_run(v1), new_run(v1)
    t = run["tools_url"]
    assert v1.get(t + GMAIL + "/messages").status_code == 401  # no token
    assert v1.get(t + GMAIL + "/messages", headers={"authorization": "Bearer tw_run_0"}).status_code == 401
    assert v1.get(t + GMAIL + "/messages", headers=auth(other)).status_code == 401  # another run's token
    assert v1.get(t + GMAIL + "/messages", headers={"authorization": "Bearer any-key"}).status_code == 401
    nope = v1.post(t + "/slack.com/api/chat.nothing", json={}, headers=auth(run))
    assert nope.status_code == 404 and nope.json() == {"ok": False, "error": "unknown_method"}
    assert v1.get(t + "/www.googleapis.com/calendar/v3/nothing", headers=auth(run)).status_code == 404
    bad_slack = v1.post(t + "/slack.com/api/chat.postMessage", json={"channel": "C_GENERAL", "text": "x"})
    assert bad_slack.status_code == 401 and bad_slack.json() == {"ok": False, "error": "invalid_auth"}
    assert v1.get(f"/v1/runs/{run['id']}").json()["calls"] == 0


def test_after_the_end_gmail_answers_001s_envelope_and_slack_its_own(v1):
    run = new_run(v1)
    finished(v1, run)
    g = v1.get(run["tools_url"] + GMAIL + "/messages", params={"q": "offsite"}, headers=auth(run))
    assert g.status_code == 409 and g.json()["error"]["type"] == "run_ended"
    assert g.json()["error"]["message"].startswith(f"Run {run['id']} ended (finish) at ")
    s = v1.post(run["tools_url"] + "/slack.com/api/chat.postMessage", headers=auth(run),
                json={"channel": "C_GENERAL", "text": "late"})
    assert s.status_code == 409 and s.json() == {"ok": False, "error": "run_ended"}
    assert v1.get(f"/v1/runs/{run['id']}").json()["calls"] == 0


def test_slack_sdk_web_client_works_against_the_twin(v1):
    run = new_run(v1)
    client = WebClient(token=run["token"], base_url=run["tools_url"] + "/slack.com/api/")
    posted = client.chat_postMessage(channel="C_LEADERSHIP", text=dict(q4_quickstart()[2][1])["text"])
    assert posted["ok"] and posted["channel"] == "C_LEADERSHIP"
    thread = client.conversations_replies(channel="C_LEADERSHIP", ts=posted["ts"], limit=10)
    assert [m["user"] for m in thread["messages"]] == ["U_ASSIST", "U_ERIK", "U_MARI"]
    channels = client.conversations_list(types="public_channel,private_channel")
    assert "C_LEADERSHIP" in {c["id"] for c in channels["channels"]}
    history = client.conversations_history(channel="C_GENERAL", limit=5)
    assert len(history["messages"]) == 5
    assert client.users_list()["members"]
    with pytest.raises(SlackApiError) as e:
        client.chat_postMessage(channel="C_NOPE", text="hi")
    assert e.value.response["error"] == "channel_not_found"
    calls = finished(v1, run)["trace"]["calls"]
    assert [c["operation"] for c in calls] == ["slack.chat.postMessage", "slack.conversations.replies",
                                               "slack.conversations.list", "slack.conversations.history",
                                               "slack.users.list", "slack.chat.postMessage"]
    assert calls[3]["arguments"] == {"channel": "C_GENERAL", "limit": 5}  # form text typed by the schema


def test_gmail_and_calendar_paths_as_the_rest_docs_write_them(v1):
    run = new_run(v1)
    t, h = run["tools_url"], auth(run)
    listed = v1.get(t + GMAIL + "/messages", params=[("q", "offsite"), ("maxResults", "2"), ("alt", "json")],
                    headers=h).json()
    assert len(listed["messages"]) == 2 and listed["nextPageToken"]
    msg = v1.get(t + GMAIL + "/messages/m_q4_1", params={"format": "metadata", "metadataHeaders": "Subject"},
                 headers=h).json()
    assert msg["payload"]["headers"] == [{"name": "Subject", "value": "Q4 offsite"}]
    thread = v1.get(t + GMAIL + "/threads/t_q4offsite", headers=h).json()
    assert [m["id"] for m in thread["messages"]] == ["m_q4_1", "m_q4_2", "m_q4_3"]
    labels = v1.get(t + GMAIL + "/labels", headers=h).json()["labels"]
    unread = v1.get(t + GMAIL + "/messages", params=[("labelIds", "INBOX"), ("labelIds", "UNREAD")], headers=h)
    assert unread.status_code == 200 and labels
    mods = v1.post(t + GMAIL + "/messages/m_q4_1/modify", json={"removeLabelIds": ["UNREAD"]}, headers=h)
    assert mods.status_code == 200 and "UNREAD" not in mods.json()["labelIds"]
    cals = v1.get(t + CAL + "/users/me/calendarList", headers=h).json()
    assert "erik@nordlys.no" in {c["id"] for c in cals["items"]}
    events = v1.get(t + CAL + "/calendars/erik%40nordlys.no/events",
                    params={"timeMin": "2026-11-12T00:00:00+01:00", "timeMax": "2026-11-13T00:00:00+01:00",
                            "singleEvents": "true", "orderBy": "startTime"}, headers=h).json()
    assert events["kind"] == "calendar#events" and events["items"]
    made = v1.post(t + CAL + "/calendars/primary/events", params={"sendUpdates": "none"}, headers=h,
                   json={"summary": "Prep", "start": {"dateTime": "2026-11-02T10:00:00+01:00"},
                         "end": {"dateTime": "2026-11-02T11:00:00+01:00"}}).json()
    got = v1.get(t + CAL + f"/calendars/primary/events/{made['id']}", headers=h).json()
    assert got["summary"] == "Prep"
    patched = v1.patch(t + CAL + f"/calendars/primary/events/{made['id']}", json={"summary": "Prep v2"}, headers=h)
    assert patched.json()["summary"] == "Prep v2"
    assert v1.delete(t + CAL + f"/calendars/primary/events/{made['id']}", headers=h).status_code == 200
    gone = v1.get(t + CAL + f"/calendars/primary/events/{made['id']}", headers=h)
    assert gone.status_code == 404
    calls = finished(v1, run)["trace"]["calls"]
    assert calls[0]["arguments"] == {"userId": "me", "q": "offsite", "maxResults": 2}  # alt= is the transport's
    assert calls[4]["arguments"]["labelIds"] == ["INBOX", "UNREAD"]


def test_a_calls_operation_is_the_real_apis_name_whichever_name_it_used(v1, http):
    run = new_run(v1)
    step = f"/episodes/{run['episode_id']}/step"
    for name, args in (("gmail_messages_list", {"q": "offsite"}), ("slack.conversations.list", {})):
        assert http.post(step, json={"tool": name, "arguments": args}).json()["ok"]
    calls = finished(v1, run)["trace"]["calls"]
    # 001's trace names the operation as the real API does; step's names the served tool
    assert [c["operation"] for c in calls] == ["gmail.messages.list", "slack.conversations.list"]
    assert [c["provider"] for c in calls] == ["google.gmail", "slack"]
    assert [t["tool"] for t in http.get(f"/episodes/{run['episode_id']}").json()["trace"]] == \
        ["gmail_messages_list", "slack_conversations_list"]
