"""The statistics a run is reported with: pass^k, and 95 % intervals.

- ``pass_hat_k``: tau-bench's reliability measure, the chance that k trials of
  the same (task, seed) all pass. With n trials of which c passed, C(c, k) /
  C(n, k) estimates it without bias (tau2-bench's estimator); it is averaged
  over the (task, seed) groups that have at least k trials. pass^1 is the
  pass rate.
- ``wilson``: the Wilson score interval of a pass rate. Unlike the normal
  approximation it stays inside [0, 1] and is honest at 0 of n and n of n,
  which small evals hit all the time.
- ``bootstrap``: a percentile bootstrap interval of a mean score, from a
  fixed seed, so the same trials always give the same interval.
- ``newcombe``: the interval of a difference of two pass rates (Newcombe's
  hybrid score method, from the two Wilson intervals), for ``compare``.
"""

from __future__ import annotations

import random
from math import comb, sqrt

Z95 = 1.959963984540054
BOOTSTRAP_SAMPLES = 2000
BOOTSTRAP_SEED = 20260305


def pass_hat_k(groups: list, k: int) -> float | None:
    """``groups``: ``(n, c)`` per (task, seed). Groups with fewer than k trials are skipped."""
    vals = [comb(c, k) / comb(n, k) for n, c in groups if n >= k]
    return sum(vals) / len(vals) if vals else None


def pass_hat_ks(groups: list) -> dict:
    """``{k: pass^k}`` for k = 1 .. the most trials any group has."""
    most = max((n for n, _c in groups), default=0)
    return {k: pass_hat_k(groups, k) for k in range(1, most + 1)}


def wilson(passed: int, n: int, z: float = Z95) -> tuple | None:
    """The Wilson score interval ``(low, high)`` of ``passed`` out of ``n``."""
    if n <= 0:
        return None
    p = passed / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def _resampled_means(values: list, rng: random.Random, samples: int) -> list:
    n = len(values)
    return [sum(values[rng.randrange(n)] for _ in range(n)) / n for _ in range(samples)]


def _percentiles(draws: list, level: float = 0.95) -> tuple:
    draws = sorted(draws)
    lo = draws[int((1 - level) / 2 * (len(draws) - 1))]
    hi = draws[int((1 + level) / 2 * (len(draws) - 1) + 0.5)]
    return lo, hi


def bootstrap(values: list, samples: int = BOOTSTRAP_SAMPLES, seed: int = BOOTSTRAP_SEED) -> tuple | None:
    """A 95 % percentile bootstrap interval ``(low, high)`` of the mean of ``values``."""
    if not values:
        return None
    if len(set(values)) == 1:
        return values[0], values[0]
    return _percentiles(_resampled_means(list(values), random.Random(seed), samples))


def bootstrap_diff(a: list, b: list, samples: int = BOOTSTRAP_SAMPLES, seed: int = BOOTSTRAP_SEED) -> tuple | None:
    """A 95 % bootstrap interval of ``mean(b) - mean(a)``, each resampled on its own."""
    if not a or not b:
        return None
    rng = random.Random(seed)
    ma, mb = _resampled_means(list(a), rng, samples), _resampled_means(list(b), rng, samples)
    return _percentiles([y - x for x, y in zip(ma, mb)])


def newcombe(passed_a: int, n_a: int, passed_b: int, n_b: int) -> tuple | None:
    """A 95 % interval of ``rate_b - rate_a`` (Newcombe 1998, method 10)."""
    if n_a <= 0 or n_b <= 0:
        return None
    pa, pb = passed_a / n_a, passed_b / n_b
    la, ua = wilson(passed_a, n_a)
    lb, ub = wilson(passed_b, n_b)
    d = pb - pa
    low = d - sqrt((pb - lb) ** 2 + (ua - pa) ** 2)
    high = d + sqrt((ub - pb) ** 2 + (pa - la) ** 2)
    return max(-1.0, low), min(1.0, high)
