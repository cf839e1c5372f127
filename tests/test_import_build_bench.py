"""bench/bench_import.py still runs (a tiny book; figures only, no timing asserts)."""

from __future__ import annotations

import pytest

from tests.bench_loader import load_bench


def test_bench_import_prints_every_step(capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_bench("bench_import")
    assert bench.main(["--chars", "20000", "--encoding", "gb18030"]) == 0
    out = capsys.readouterr().out
    for step in ("1. read_source", "2. split_manuscript", "3. write_project", "4. overview", "import (1-4)",
                 "5. check_book"):
        assert step in out
