"""bench/bench_import_cost.py still runs (figures only, no timing asserts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench_loader import load_bench


def test_bench_import_cost_prints_the_estimate_per_100_chapters(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_bench("bench_import_cost")
    assert bench.main(["--chapters", "4", "--chars", "800", "--keep", str(tmp_path / "work")]) == 0
    out = capsys.readouterr().out
    assert "imported 4 chapters" in out and "per 100 chapters" in out
    assert "cast pass" in out and "without the prompt cache" in out and "$" in out
