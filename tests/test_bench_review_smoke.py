"""bench/bench_review.py still runs (a small volume; figures only, no timing asserts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench_loader import load_bench


def test_bench_review_prints_both_sections(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_bench("bench_review")
    assert bench.main(["--chapters", "6", "--repeat", "1", "--keep", str(tmp_path / "work")]) == 0
    out = capsys.readouterr().out
    assert "(a) deterministic part" in out and "(6 chapters" in out and "build_review" in out
    assert "(b) the review call" in out and "upper bound $" in out
