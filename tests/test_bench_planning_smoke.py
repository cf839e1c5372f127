"""bench/bench_planning.py still runs (tiny volume; figures only, no timing asserts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench_loader import load_bench


def test_bench_planning_prints_the_three_sections(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_bench("bench_planning")
    assert bench.main(["--volume-length", "2", "--keep", str(tmp_path / "work")]) == 0
    out = capsys.readouterr().out
    for section in ("(a) planning agents", "(b) quick start", "(c) volume plan: 2 chapters"):
        assert section in out
    assert "plot-architect (2 ch)" in out and "3 trial chapters" in out
