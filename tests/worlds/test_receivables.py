"""The receivables world: 004's tools and classes, sandbox previews, triggers, tasks."""

from __future__ import annotations

import json

import pytest
from sw_core_ext import Store

from sw_runtime import schemas
from sw_runtime.engine.engine import Engine
from sw_runtime.worlds.receivables import WORLD
from sw_runtime.worlds.receivables.cast import cast

SAFE = {"read_entity", "classify_entity", "list_slack_channels", "list_slack_users", "prepare_email"}
GUARDED = {"send_email", "reply_to_email", "send_slack_message", "create_task", "update_entity", "trigger_webhook",
           "save_draft"}
# Reference 004's preview shapes, field for field.
PREVIEWS = {
    "would_send": ["uid", "status", "to", "subject", "body_preview", "draft_uid", "reply_to_message_uid",
                   "context_type", "context_id"],
    "would_reply": ["uid", "status", "reply_to_message_uid", "subject", "body_preview", "tool_uid"],
    "would_send_slack": ["message_ts", "channel", "text_preview", "thread_ts"],
    "would_create_task": ["uid", "title", "description_preview", "due_date", "priority", "status",
                          "context_entities", "instructions_preview", "tool_uid"],
    "would_update": ["entity_type", "uid", "updates"],
    "would_trigger_webhook": ["url", "method", "headers", "body_preview"],
    "would_save_draft": ["uid", "status", "subject", "to", "body_preview", "context_type", "context_id"],
}


def test_tools_have_004s_names_and_classes():
    classes = {t.name: t.definition()["class"] for t in WORLD.tools}
    assert classes == {**{n: "safe" for n in SAFE}, **{n: "guarded" for n in GUARDED}}
    assert {t.preview for t in WORLD.tools if t.cls == "guarded"} == set(PREVIEWS)


def test_there_are_at_least_15_tasks_each_checked_for_collateral():
    # tests/worlds/test_checker.py runs every task's reference on seeds 0-49 and a do-nothing episode
    assert len(WORLD.tasks) >= 15
    store = Store(WORLD.generate(0), collections=WORLD.collections)
    for task in WORLD.tasks:
        assert any(c.id == "no-collateral" for c in task.setup(store.fork()).checks), task.id


def _seed_calls(store) -> list:
    """One call to every guarded tool, valid on this seed."""
    c = cast(store)
    inv = c.firm
    email = c.billing(inv)["email"]
    return [
        ("send_email", {"to": [email], "subject": f"Second notice: Invoice {inv['number']}", "body": "Please pay.",
                        "context_type": "invoice", "context_id": inv["id"]}),
        ("reply_to_email", {"message_uid": c.question["id"], "body": "Thank you for your inquiry."}),
        ("send_slack_message", {"channel": "#ar-escalations", "text": f"{inv['number']} is overdue"}),
        ("create_task", {"title": "Review overdue invoice", "description": "Past due", "due_date": "2026-04-20",
                         "priority": "high", "context_entities": [{"entity_type": "invoice", "entity_uid": inv["id"]}]}),
        ("update_entity", {"entity_type": "invoice", "uid": inv["id"], "updates": {"status": "in_review"}}),
        ("trigger_webhook", {"webhook_uid": c.webhooks["invoice_overdue"]["id"],
                             "payload": {"event": "invoice_overdue", "invoice_uid": inv["id"]}}),
        ("save_draft", {"to": [email], "subject": "Follow-up", "body": "Dear team...", "context_type": "invoice",
                        "context_id": inv["id"]}),
    ]


def test_a_sandbox_episode_answers_the_seven_previews_changes_nothing_and_scores_a_would_send(http):
    store = Store(WORLD.generate(3), collections=WORLD.collections)
    calls = _seed_calls(store)
    subject = calls[0][1]["subject"]
    ep = http.post("/environments/receivables/episodes", json={
        "seed": 3, "mode": "sandbox",
        "checks": [{"kind": "action_called", "action": "send_email", "label": "Would have sent the second notice",
                    "result": {"sandbox": True, "would_send.subject": subject, "would_send.to": calls[0][1]["to"][0]}},
                   {"kind": "action_called", "action": "send_email", "label": "Would have sent a final notice",
                    "result": {"would_send.subject": "Final notice"}}]}).json()
    assert ep["tools"] and {t["name"]: t["class"] for t in ep["tools"]}["send_email"] == "guarded"
    eid = ep["episode_id"]
    safe = http.post(f"/episodes/{eid}/step", json={"tool": "read_entity",
                                                    "arguments": {"entity_type": "invoice", "status": "overdue"}}).json()
    assert safe["ok"] and "sandbox" not in safe["result"] and safe["result"]["count"] >= 5
    for (tool, args), (key, fields) in zip(calls, PREVIEWS.items()):
        step = http.post(f"/episodes/{eid}/step", json={"tool": tool, "arguments": args}).json()
        assert step["ok"] is True, step
        assert list(step["result"]) == ["sandbox", key] and step["result"]["sandbox"] is True
        assert list(step["result"][key]) == fields, (tool, list(step["result"][key]))
    shown = http.get(f"/episodes/{eid}").json()
    assert shown["digest"] == shown["seed_digest"] and shown["mode"] == "sandbox"
    assert all(not e["mutated"] and e["state_digest"] == shown["seed_digest"] for e in shown["trace"])
    assert shown["trace"][1]["result"]["would_send"]["subject"] == subject  # the preview is in the trace
    ev = http.post(f"/episodes/{eid}/submit", json={}).json()
    verdicts = {c["label"]: c["pass"] for c in ev["checks"]}
    assert verdicts == {"Would have sent the second notice": True, "Would have sent a final notice": False}
    assert ev["state_diff"] == {} and ev["digest"] == ev["seed_digest"]


def test_a_guarded_call_refused_in_live_mode_is_refused_in_sandbox_mode(http):
    ep = http.post("/environments/receivables/episodes", json={"mode": "sandbox"}).json()
    step = http.post(f"/episodes/{ep['episode_id']}/step", json={
        "tool": "update_entity", "arguments": {"entity_type": "invoice", "uid": "nope", "updates": {"status": "paid"}}})
    assert step.json()["ok"] is False and step.json()["error"]["code"] == "not_found"


def test_live_mode_makes_the_change_a_preview_showed():
    engine = Engine()
    store = Store(WORLD.generate(5), collections=WORLD.collections)
    tool, args = _seed_calls(store)[0]
    previews = engine.create("receivables", schemas.CreateEpisode(seed=5, mode="sandbox"))
    live = engine.create("receivables", schemas.CreateEpisode(seed=5))
    would = engine.step(previews.id, tool, args)["result"]["would_send"]
    did = engine.step(live.id, tool, args)["result"]
    assert would == did and live.store.get("emails", did["uid"])["status"] == "sent"
    assert previews.store.get("emails", would["uid"]) is None


@pytest.mark.parametrize("kind", ["invoice", "email_received", "cron"])
def test_an_episode_starts_from_a_trigger_whose_payload_is_the_instruction(http, kind):
    body = http.post("/environments/receivables/episodes", json={"seed": 2, "trigger": {"kind": kind}}).json()
    payload = json.loads(body["instruction"])
    assert payload["trigger_type"] == kind
    shown = http.get(f"/episodes/{body['episode_id']}").json()
    assert shown["trigger"] == {"kind": kind, "entity_id": payload["entity_uid"]}
    if kind == "invoice":
        assert payload["invoice"]["status"] == "overdue" and payload["invoice"]["id"] == payload["entity_uid"]
        again = http.post("/environments/receivables/episodes", json={
            "seed": 2, "task_id": "ar-01", "trigger": {"kind": "invoice", "entity_id": payload["entity_uid"]}}).json()
        assert json.loads(again["instruction"])["entity_uid"] == payload["entity_uid"] and again["task_id"] == "ar-01"
    if kind == "email_received":
        assert payload["email"]["direction"] == "inbound"
