"""Training episodes through the client: signals on steps and in /batch
results, fault profiles as data, and the training flag."""

from __future__ import annotations

from sandworld import BatchStepper, SandworldEnv
from sandworld.evaluation.agents import reference_setup

SIGNALS = {"schema_valid", "state_mutated", "progress", "progress_delta", "reference_progress",
           "reference_progress_delta", "collateral_violation", "fault"}


def test_signals_come_with_every_step_of_a_signals_episode(api):
    with SandworldEnv(api) as env:
        obs = env.reset("coinpurse", task_id="cp-12", seed=2, signals=True)
        setup = reference_setup("coinpurse", obs.environment_version, "cp-12", 2, obs.seed_digest)
        results = [env.step(tool, arguments) for tool, arguments in setup.solution]
        plain = SandworldEnv(client=env.client)
        plain.reset("coinpurse", task_id="cp-12", seed=2)
        untouched = plain.step("get_balance")
    assert obs.training is True
    assert all(set(r.signals) == SIGNALS for r in results)
    assert results[-1].signals["progress"] == 1.0 and results[-1].signals["reference_progress"] == 1.0
    assert sum(r.signals["reference_progress_delta"] for r in results) == 1.0
    assert untouched.signals is None and "signals" not in untouched


def test_signals_come_with_batch_results(api):
    with BatchStepper(base_url=api) as stepper:
        envs = stepper.group("coinpurse", 3, task_id="cp-04", seed=1, signals=True)
        results = stepper.step(envs, [("get_balance", {})] * 3)
    assert all(set(r.signals) == SIGNALS for r in results)
    assert all(e.observation.training for e in envs)


def test_a_fault_profile_fails_calls_as_data_and_deterministically(api):
    def run():
        with SandworldEnv(api) as env:
            obs = env.reset("coinpurse", task_id="cp-01", seed=11, fault_profile="server_error")
            return obs, [env.step("get_balance") for _ in range(16)]

    obs, first = run()
    _, again = run()
    faulted = [r.step for r in first if not r.ok]
    assert obs.training is True and obs.fault_profile == "server_error"
    assert faulted, "a profile hits about one call in four: 16 calls with none is a broken profile"
    assert {r.error["code"] for r in first if not r.ok} == {"server_error"}
    assert faulted == [r.step for r in again if not r.ok]
