"""bench/bench_plan_apply.py still runs (figures only, no timing asserts)."""

from __future__ import annotations

import pytest

from tests.bench_loader import load_bench


def test_bench_plan_apply_prints_a_row_per_length(capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_bench("bench_plan_apply")
    assert bench.main(["--lengths", "2,3", "--repeat", "1"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].split() == ["chapters", "check", "ms", "stage", "ms", "apply", "ms", "writes"]
    assert [r.split()[0] for r in rows[1:]] == ["2", "3"]
