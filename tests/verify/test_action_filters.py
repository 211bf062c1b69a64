"""action_called / action_not_called with argument and result filters (a preview in sandbox mode)."""

from __future__ import annotations

from sw_runtime import schemas
from sw_runtime.engine.engine import Engine


def _checks(*checks):
    return [dict(c, label=f"check {i}") for i, c in enumerate(checks)]


def test_filters_match_arguments_and_results_and_lists_by_item():
    engine = Engine()
    ep = engine.create("coinpurse", schemas.CreateEpisode(task_id="cp-12", seed=2, mode="sandbox", checks=_checks(
        {"kind": "action_called", "action": "pay_request", "arguments": {"request_id": "rq-16"}},
        {"kind": "action_called", "action": "pay_request", "result": {"would_change.requests.updated": "rq-16"}},
        {"kind": "action_not_called", "action": "pay_request", "arguments": {"request_id": "rq-17"}},
        {"kind": "action_called", "action": "pay_request", "arguments": {"request_id": "rq-17"}},
        {"kind": "action_called", "action": "pay_request", "result": {"sandbox": False}},
    ), replace_template_checks=True))
    engine.step(ep.id, "pay_request", {"request_id": "rq-16"})
    engine.step(ep.id, "pay_request", {"request_id": "rq-nope"})  # refused: it has no result to match
    ev = engine.submit(ep.id, "")
    assert [c["pass"] for c in ev["checks"]] == [True, True, True, False, False]
    assert 'with {"arguments":{"request_id":"rq-16"}}' in ev["checks"][0]["detail"]


def test_a_check_without_filters_still_counts_every_call():
    engine = Engine()
    ep = engine.create("dummy", schemas.CreateEpisode(checks=_checks({"kind": "action_called", "action": "noop"})))
    engine.step(ep.id, "noop", {})
    assert engine.submit(ep.id, "")["checks"][0]["pass"] is True


def test_signals_follow_a_filtered_check_step_by_step():
    engine = Engine()
    ep = engine.create("dummy", schemas.CreateEpisode(signals=True, replace_template_checks=True, checks=_checks(
        {"kind": "action_called", "action": "set", "arguments": {"value": 7}})))
    other = engine.step(ep.id, "set", {"key": "it-01", "value": 6})
    assert other["signals"]["progress"] == 0.0  # a set, but not the one the check asks for
    right = engine.step(ep.id, "set", {"key": "it-02", "value": 7})
    assert right["signals"]["progress"] == 1.0 and right["signals"]["progress_delta"] == 1.0
