"""bench/bench_prompts.py still runs (one small chapter; figures only, no timing asserts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench_loader import load_bench


def test_bench_prompts_prints_sizes_and_shares(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_bench("bench_prompts")
    assert bench.main(["--at", "12", "--keep", str(tmp_path / "work")]) == 0
    out = capsys.readouterr().out
    assert "(a) prompt size per agent" in out and "(b) cache-read share per agent" in out
    for agent in ("writer", "reviser", "summarizer", "refiner", "judge"):
        assert f"    {agent}" in out
    assert "seed 002 budget" in out and "over chapters 3-10" in out
