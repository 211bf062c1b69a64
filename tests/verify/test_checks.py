"""Every check kind, passing and failing, and the scoring rules."""

from __future__ import annotations

import msgspec
import pytest

from sw_core_ext import Store
from sw_runtime.verify import checks as C
from sw_runtime.verify.evaluate import Facts, run_check
from sw_runtime.verify.score import evaluate

START = {
    "events": {
        "ev-01": {"id": "ev-01", "summary": "Team lunch", "start": {"date": "2026-11-12"}, "tags": ["food"]},
    },
    "messages": {"m-01": {"id": "m-01", "subject": "Hello", "read": False}},
}


def facts(*, end_ops=(), calls=(), output=""):
    start = Store(START)
    end = start.fork()
    for op in end_ops:
        op(end)
    return Facts(start=start, end=end, calls=list(calls), output=output)


def add_offsite(s):
    s.insert("events", "ev-02", {"id": "ev-02", "summary": "Q4 offsite", "start": {"date": "2026-11-13"},
                                 "attendees": ["erik@nordlys.no", "mari@nordlys.no"]})


def mark_read(s):
    s.update("messages", "m-01", {"read": True})


CASES = [
    # (check, facts that pass, facts that fail)
    (C.RecordExists(collection="events", where={"summary": "q4 OFFSITE"}),
     dict(end_ops=[add_offsite]), dict()),
    (C.RecordAbsent(collection="events", where={"summary": "offsite"}),
     dict(), dict(end_ops=[add_offsite])),
    (C.FieldEquals(collection="events", field="start.date", value="2026-11-13", where={"summary": "offsite"}),
     dict(end_ops=[add_offsite]), dict()),
    (C.FieldEquals(collection="messages", field="read", value=True),
     dict(end_ops=[mark_read]), dict()),
    (C.FieldContains(collection="events", field="summary", value="OFFSITE"),
     dict(end_ops=[add_offsite]), dict()),
    (C.FieldContains(collection="events", field="attendees", value="mari@nordlys.no"),
     dict(end_ops=[add_offsite]), dict()),
    (C.WriteCount(collection="events", min=1, max=1),
     dict(end_ops=[add_offsite]), dict(end_ops=[add_offsite, lambda s: s.remove("events", "ev-01")])),
    (C.WriteCount(min=2),
     dict(end_ops=[add_offsite, mark_read]), dict(end_ops=[add_offsite])),
    (C.NoWrites(collection="messages"),
     dict(end_ops=[add_offsite]), dict(end_ops=[mark_read])),
    (C.NoWrites(),
     dict(), dict(end_ops=[mark_read])),
    (C.ActionCalled(action="calendar.events.insert"),
     dict(calls=[("calendar.events.insert", False, False)]), dict(calls=[("gmail.messages.send", True, True)])),
    (C.ActionNotCalled(action="gmail.messages.send"),
     dict(calls=[("calendar.events.insert", True, True)]), dict(calls=[("gmail.messages.send", False, False)])),
    (C.OutputContains(value="13 November"),
     dict(output="Booked for Friday 13 november."), dict(output="Booked.")),
    (C.OutputEquals(value="Done."),
     dict(output="Done."), dict(output="done.")),
    (C.NoCollateral(allow=[C.Allow(collection="events", ops=["created"], where={"summary": "offsite"})]),
     dict(end_ops=[add_offsite]), dict(end_ops=[add_offsite, mark_read])),
]


@pytest.mark.parametrize("check,good,bad", CASES, ids=[f"{c.__struct_config__.tag}-{i}" for i, (c, _g, _b) in enumerate(CASES)])
def test_check_kind_passes_and_fails(check, good, bad):
    passed, detail = run_check(check, facts(**good))
    assert passed is True, detail
    passed, detail = run_check(check, facts(**bad))
    assert passed is False, detail
    assert detail


def test_every_kind_is_covered():
    assert {c.__struct_config__.tag for c, _g, _b in CASES} | {"rubric"} == set(C.KINDS)


def test_rubric_without_a_judge_is_undecided():
    passed, detail = run_check(C.Rubric(text="Was it polite?"), facts())
    assert passed is None and detail.startswith("undecided:")


def test_rubric_with_a_judge_takes_its_verdict():
    f = facts()
    f.judge = lambda check, _f: (check.text == "yes?", "judge said so")
    assert run_check(C.Rubric(text="yes?"), f) == (True, "judge said so")
    assert run_check(C.Rubric(text="no?"), f) == (False, "judge said so")


def test_collateral_detail_names_the_records():
    check = C.NoCollateral(allow=[C.Allow(collection="events", ops=["created"])])
    passed, detail = run_check(check, facts(end_ops=[add_offsite, mark_read, lambda s: s.remove("events", "ev-01")]))
    assert passed is False
    assert detail == "unexpected: messages[~m-01]" or detail.startswith("unexpected: ")
    assert "messages[~m-01]" in detail and "events[-ev-01]" in detail and "ev-02" not in detail


def test_where_matches_substrings_case_insensitively_and_other_values_exactly():
    f = facts(end_ops=[add_offsite])
    assert run_check(C.RecordExists(collection="events", where={"summary": "Q4"}), f)[0] is True
    assert run_check(C.RecordExists(collection="messages", where={"read": 0}), f)[0] is False  # False is not 0
    assert run_check(C.RecordExists(collection="events", where={"start.date": "2026-11-13"}), f)[0] is True
    assert run_check(C.RecordExists(collection="events", where={"start.nope": "x"}), f)[0] is False


def test_informative_rule_leaves_checks_already_true_at_start_out_of_the_denominator():
    exists = C.RecordExists(id="exists", collection="events", where={"summary": "offsite"})
    untouched = C.NoWrites(id="untouched", collection="messages")
    # do nothing: the only scored check fails, the already-true one is not scored
    ev = evaluate([exists, untouched], facts(), rule="informative")
    assert ev["score"] == 0.0 and ev["pass"] is False and ev["scoring"] == "informative"
    assert ev["denominators"] == {"share": 2.0, "informative": 1.0} and ev["scores"] == {"share": 0.5, "informative": 0.0}
    row = next(r for r in ev["checks"] if r["id"] == "untouched")
    assert row["scored"] is False and "already true at the start" in row["detail"]
    # do the job: 1 of 1 scored
    ev = evaluate([exists, untouched], facts(end_ops=[add_offsite]), rule="informative")
    assert ev["score"] == 1.0 and ev["pass"] is True
    # break the already-true check: it comes back into the denominator
    ev = evaluate([exists, untouched], facts(end_ops=[add_offsite, mark_read]), rule="informative")
    assert ev["score"] == 0.5 and ev["pass"] is False


def test_share_rule_counts_every_weighted_check():
    exists = C.RecordExists(id="exists", collection="events", where={"summary": "offsite"})
    untouched = C.NoWrites(id="untouched", collection="messages")
    # do nothing: the already-true check earns its weight (partial credit), pass still fails
    ev = evaluate([exists, untouched], facts())
    assert ev["scoring"] == "share" and ev["score"] == 0.5 and ev["pass"] is False
    assert all(r["scored"] is True for r in ev["checks"])
    ev = evaluate([exists, untouched], facts(end_ops=[add_offsite, mark_read]))
    assert ev["score"] == 0.5 and ev["pass"] is False
    ev = evaluate([exists, untouched], facts(end_ops=[add_offsite]))
    assert ev["score"] == 1.0 and ev["pass"] is True


def test_always_scored_checks_stay_in_the_informative_denominator():
    untouched = C.NoWrites(id="untouched", collection="messages", always_scored=True)
    exists = C.RecordExists(id="exists", collection="events", where={"summary": "offsite"}, weight=3)
    ev = evaluate([exists, untouched], facts(), rule="informative")
    assert ev["score"] == 0.25 and ev["pass"] is False


def test_the_step_budget_gates_pass_but_not_score():
    exists = C.RecordExists(id="exists", collection="events", where={"summary": "offsite"})
    done = facts(end_ops=[add_offsite])
    ev = evaluate([exists], done, steps=4, budget=4)
    assert ev["pass"] is True and ev["checks"][-1]["id"] == "within-budget" and ev["checks"][-1]["pass"] is True
    ev = evaluate([exists], done, steps=5, budget=4)
    row = ev["checks"][-1]
    assert ev["pass"] is False and ev["score"] == 1.0
    assert row == {"id": "within-budget", "kind": "step_budget", "label": "Done within the task's step budget of 4 steps",
                   "source": "template", "weight": 0.0, "scored": False, "pass": False,
                   "detail": "5 steps of a budget of 4: 1 over (this gates pass, not score)"}


def test_weights_and_rounding():
    a = C.RecordExists(id="a", collection="events", where={"summary": "offsite"}, weight=2)
    b = C.OutputContains(id="b", value="zzz")
    c = C.OutputContains(id="c", value="yyy")
    ev = evaluate([a, b, c], facts(end_ops=[add_offsite], output="yyy"))
    assert ev["score"] == 0.75
    ev = evaluate([b, c, C.OutputContains(id="d", value="q")], facts(output="zzz"))
    assert ev["score"] == 0.33


def test_checks_are_typed_data():
    raw = {"kind": "field_equals", "collection": "events", "field": "start.date", "value": "2026-11-13",
           "where": {"summary": "Q4 offsite"}}
    check = msgspec.convert(raw, C.Check)
    assert isinstance(check, C.FieldEquals) and check.source == "template" and check.weight == 1.0
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({"kind": "record_exists", "collection": "events"}, C.Check)  # where is required
