"""How a run ends (reference 001): finish, idle_timeout, timeout and max_calls,
each scored; reading ends a run that is due; the sweeper ends the rest.

In-process, through the service's run operations, on a clock the test moves
(the real windows are 30 s at least).
"""

from __future__ import annotations

import asyncio

import orjson
import pytest

from sw_runtime import errors
from sw_runtime.engine.engine import Engine
from sw_runtime.engine.runs import RunBook
from sw_runtime.service.runs import RunOps, RunRequest


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


class Service(RunOps):
    def __init__(self, clock):
        self.engine = Engine()
        self.init_runs()
        self.book = RunBook(clock=clock)


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def svc(clock):
    return Service(clock)


def run_now(coro):
    return asyncio.run(coro)


def create(svc, **fields):
    req = RunRequest(environment="offsite-planning", task="Schedule the Q4 offsite", **fields)
    return run_now(svc.create_run(req))


def call(svc, run, tool="gmail.messages.list", args=None):
    return run_now(svc.tool_call(run.ep.id, run.token, tool, orjson.dumps(args or {"q": "offsite"}), "rest"))


def test_idle_timeout_is_counted_from_the_last_call_and_reading_ends_it(svc, clock):
    run = create(svc, idle_timeout_seconds=30)
    clock.t += 29
    call(svc, run)
    clock.t += 29  # 58 s after creation, 29 s after the call: still open
    assert run_now(svc.read_run(run.id)).ended_by is None
    clock.t += 1
    read = run_now(svc.read_run(run.id))
    assert read.ended_by == "idle_timeout" and read.status == "done"
    assert read.ep.evaluation["pass"] is False and read.facts()["evaluation"] is not None


def test_timeout_ends_a_busy_run(svc, clock):
    run = create(svc, timeout_seconds=60, idle_timeout_seconds=3600)
    for _ in range(5):
        clock.t += 10
        call(svc, run)
    clock.t += 10
    with pytest.raises(errors.RunEnded):
        call(svc, run)
    assert run.ended_by == "timeout" and run.ep.steps == 5 and run.status == "done"


def test_the_sweeper_ends_due_runs_only(svc, clock):
    idle, busy = create(svc, idle_timeout_seconds=30), create(svc, idle_timeout_seconds=600)
    clock.t += 31
    assert run_now(svc.sweep_runs()) == 1
    assert idle.ended_by == "idle_timeout" and busy.ended_by is None
    assert run_now(svc.sweep_runs()) == 0


def test_max_calls_answers_the_last_call_then_ends(svc):
    run = create(svc, max_calls=1)
    assert call(svc, run)["ok"] is True
    assert run.ended_by == "max_calls" and run.status == "done"
    with pytest.raises(errors.RunEnded):
        call(svc, run)


def test_every_ending_is_scored_even_without_calls(svc, clock):
    run = create(svc, timeout_seconds=60)
    clock.t += 60
    run_now(svc.sweep_runs())
    f = run.facts()
    assert f["ended_by"] == "timeout" and f["status"] == "done" and f["scored_at"] and f["trace"] == []
    assert [c["pass"] for c in f["evaluation"]["checks"]][:5] == [False, False, False, False, True]


def test_finishing_a_due_run_is_run_ended(svc, clock):
    run = create(svc, idle_timeout_seconds=30)
    clock.t += 30
    with pytest.raises(errors.RunEnded):
        run_now(svc.finish_run(run.id, "late"))
    assert run.ended_by == "idle_timeout"


def test_a_run_outlives_the_engine_forgetting_its_episode(svc, clock):
    run = create(svc, idle_timeout_seconds=30)
    assert run.ep.idle_timeout > 30  # the engine waits for the run's own ending
    clock.t += 30
    run_now(svc.sweep_runs())
    svc.engine.episodes.pop(run.ep.id)  # evicted
    assert run_now(svc.read_run(run.id)).facts()["evaluation"]["digest"] == run.ep.digest


def test_past_its_cap_the_book_forgets_the_oldest_ended_runs(svc):
    svc.book.max_runs = 3
    first, second = create(svc), create(svc)
    run_now(svc.finish_run(first.id, ""))
    open_run = create(svc)
    create(svc)  # the book is full: the oldest ended run goes, open ones stay
    with pytest.raises(errors.NotFound):
        run_now(svc.read_run(first.id))
    assert run_now(svc.read_run(second.id)) is second and run_now(svc.read_run(open_run.id)) is open_run
