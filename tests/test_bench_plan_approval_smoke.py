"""bench/bench_plan_approval.py still runs (a tiny plan, a few presses; no timing asserts)."""

from __future__ import annotations

from tests.bench_loader import load_bench


async def test_bench_plan_approval_runs() -> None:
    bench = load_bench("bench_plan_approval")
    figures = await bench.measure(5, 5, (80, 24))
    assert len(figures["open"]) == 3
    assert all(figures[key] for key in bench.KEYS)
    assert bench.p95([1.0, 2.0]) == 2.0
