"""bench/bench_import_split.py still runs (a small book; figures only, no timing asserts)."""

from __future__ import annotations

import pytest

from tests.bench_loader import load_bench


def test_bench_import_split_prints_each_source(capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_bench("bench_import_split")
    assert bench.main(["--chars", "30000", "--chapter-chars", "3000", "--runs", "1"]) == 0
    out = capsys.readouterr().out
    for label in ("TXT utf-8", "TXT gb18030", "TXT big5", "TXT utf-16 bare", "folder utf-8"):
        assert label in out
    assert out.count("   10 ch") == 5 and "[utf-16, 1 volumes" in out and "[gb18030, 1 volumes" in out and "[big5, 1 volumes" in out
