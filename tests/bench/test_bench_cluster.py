"""bench_cluster.py runs with tiny parameters on a real local Ray and prints
its table (no timing is asserted; the figures live in bench/README.md)."""

from __future__ import annotations

import pytest

from tests.bench.test_bench_smoke import BENCH, run


@pytest.mark.slow
def test_bench_cluster_prints_its_table(tmp_path):
    out = run(BENCH / "bench_cluster.py", "--seconds", "2", "--rounds", "1", "--episodes", "40", "--seeds", "10",
              "--batch-size", "100", "--steps-per-episode", "20", "--data-dir", str(tmp_path), timeout=400)
    assert "sandworld bench_cluster" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shard-00", "shard-01"]  # the shards' logs went there
    for label in ("HTTP, 1 actor", "HTTP, 2 actors", "Ray, 1 actor", "Ray, 2 actors", "HTTP: 2 actors / 1 actor",
                  "Ray / HTTP per shard CPU, 1 actor", "Ray / HTTP per caller core, 1 actor",
                  "Ray / HTTP per shard CPU, 2 actors", "Ray / HTTP per caller core, 2 actors"):
        assert label in out, label
