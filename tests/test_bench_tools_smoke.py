"""bench/bench_tools.py still runs (tiny project; figures only, no timing asserts)."""

from __future__ import annotations

import pytest

from tests.bench_loader import load_bench


def test_bench_tools_prints_both_sections(capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_bench("bench_tools")
    assert bench.main(["--chapters", "3", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert "(a) character add" in out and "(b) character rename" in out
    assert "estimate shown first" in out
