"""The statistics runs are reported with: pass^k, Wilson and bootstrap intervals, Newcombe differences."""

from __future__ import annotations

from math import comb

import pytest

from sandworld.evaluation.stats import bootstrap, bootstrap_diff, newcombe, pass_hat_k, pass_hat_ks, wilson
from sandworld.evaluation.summary import summarize


def test_pass_hat_k_is_tau2_benchs_unbiased_estimator_for_every_k():
    # 5 trials, 3 passed: pass^k = C(3, k) / C(5, k)
    assert pass_hat_ks([(5, 3)]) == {k: comb(3, k) / comb(5, k) for k in range(1, 6)}
    assert pass_hat_ks([(5, 3)])[1] == 0.6 and pass_hat_ks([(5, 3)])[4] == 0.0
    # averaged over (task, seed) groups; groups with fewer than k trials do not count for that k
    assert pass_hat_k([(2, 1), (3, 3)], 2) == pytest.approx((0 + 1) / 2)
    assert pass_hat_k([(2, 1), (3, 3)], 3) == 1.0


def test_wilson_interval_matches_the_textbook_and_stays_in_0_1():
    lo, hi = wilson(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-4) and hi == pytest.approx(0.9433, abs=1e-4)
    assert wilson(0, 4)[0] == 0.0 and wilson(0, 4)[1] == pytest.approx(0.4899, abs=1e-4)
    assert wilson(4, 4)[1] == 1.0 and wilson(0, 0) is None


def test_bootstrap_interval_is_reproducible_and_brackets_the_mean():
    scores = [0.0, 0.25, 0.5, 0.5, 0.75, 1.0, 1.0, 0.2]
    ci = bootstrap(scores)
    assert ci == bootstrap(scores)  # a fixed seed: the same trials give the same interval
    assert ci[0] < sum(scores) / len(scores) < ci[1] and 0.0 <= ci[0] and ci[1] <= 1.0
    assert bootstrap([0.5, 0.5]) == (0.5, 0.5) and bootstrap([]) is None
    d = bootstrap_diff([0.0, 0.1, 0.2, 0.1], [0.9, 1.0, 0.8, 1.0])
    assert 0.6 < d[0] < d[1] < 1.0


def test_newcombe_difference_excludes_zero_only_when_the_trials_support_it():
    assert newcombe(0, 10, 10, 10)[0] > 0.5  # 0/10 vs 10/10
    lo, hi = newcombe(5, 10, 6, 10)
    assert lo < 0 < hi  # 50 % vs 60 % on 10 trials each: not a supported difference
    assert newcombe(1, 0, 1, 1) is None


def test_summary_carries_intervals_and_pass_hat_k_per_task_and_overall():
    def trial(task, seed, k, ok, score):
        return {"task_id": task, "seed": seed, "trial": k, "status": "scored", "training": False, "pass": ok,
                "score": score, "steps": 3, "tool_errors": 0, "world": "coinpurse"}

    trials = [trial("cp-01", 0, 0, True, 1.0), trial("cp-01", 0, 1, True, 1.0), trial("cp-01", 0, 2, False, 0.5),
              trial("cp-02", 0, 0, False, 0.0), trial("cp-02", 0, 1, False, 0.2), trial("cp-02", 0, 2, False, 0.0)]
    per_task, overall = summarize(trials, 3)
    one = per_task[0]
    assert one.pass_hat == {1: pytest.approx(2 / 3), 2: pytest.approx(1 / 3), 3: 0.0}
    assert one.pass_ci == wilson(2, 3) and one.score_ci == bootstrap([1.0, 1.0, 0.5])
    assert overall.pass_hat[1] == pytest.approx(1 / 3) and overall.pass_ci == wilson(2, 6)
    # several worlds: tasks are named world/task
    per_task, _ = summarize(trials + [{**trials[0], "world": "quickbasket"}], 3)
    assert [s.task_id for s in per_task] == ["coinpurse/cp-01", "coinpurse/cp-02", "quickbasket/cp-01"]
