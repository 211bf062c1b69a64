"""bench_log.py and soak.py run with tiny parameters and print their tables
(no timing asserted: the figures live in bench/README.md)."""

from __future__ import annotations

import pytest

from tests.bench.test_bench_smoke import BENCH, run

pytestmark = pytest.mark.slow


def test_bench_log_prints_its_table():
    out = run(BENCH / "bench_log.py", "--seconds", "1", "--rounds", "2", "--episodes", "200", "--seeds", "20",
              "--steps-per-episode", "10", "--batch-size", "100", timeout=300)
    assert "sandworld bench_log" in out and "with / without" in out


def test_soak_prints_its_table():
    out = run(BENCH / "soak.py", "--minutes", "0.2", "--clients", "2", "--steps", "5", timeout=300)
    assert "sandworld soak" in out and "429 answers" in out and "RSS slope" in out
