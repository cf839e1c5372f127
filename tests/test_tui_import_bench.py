"""bench/bench_import_tui.py still runs, on a tiny manuscript (figures printed, no timing asserts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench_loader import load_bench


def test_bench_import_tui_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_bench("bench_import_tui")
    assert bench.p95([0.5]) == 0.5
    assert bench.main(["--chars", "20000", "--chapter-chars", "2000", "--keep", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "preview shown:" in out and "loop stall max:" in out
    assert "10 chapters" in out  # the preview really split the book
