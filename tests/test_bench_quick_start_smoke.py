"""bench/bench_quick_start.py still runs (figures only, no timing asserts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench_loader import load_bench


def test_bench_quick_start_prints_every_call_and_the_total(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_bench("bench_quick_start")
    assert bench.main(["--style", "preset", "--keep", str(tmp_path / "work")]) == 0
    out = capsys.readouterr().out
    for agent in ("world_builder", "character_weaver", "style_analyzer", "plot_architect", "chapter_writer"):
        assert agent in out
    assert "per step" in out and "total" in out and "$" in out
