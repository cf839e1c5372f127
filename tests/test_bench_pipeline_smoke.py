"""bench/bench_pipeline.py and bench/rate_provider.py still run: every section on tiny sizes (no timing asserts)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import ModuleType

import pytest

from pipeline.providers.base import ModelRequest, SystemBlock, user_message
from tests.bench_loader import load_bench


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_bench("bench_pipeline")


def test_union_length(bench: ModuleType) -> None:
    assert bench.union_length([]) == 0.0
    assert bench.union_length([(0.0, 1.0), (0.5, 2.0), (3.0, 4.0)]) == pytest.approx(3.0)
    assert bench.union_length([(0.0, 5.0), (1.0, 2.0)]) == pytest.approx(5.0)


def test_rate_provider_streams_the_offline_reply() -> None:
    rate = load_bench("rate_provider")
    provider = rate.RateProvider(60.0, 1.5, speed=10_000.0, chunk_chars=7)
    request = ModelRequest(
        agent="unknown-agent",
        model="claude-sonnet-5-5",
        system=[SystemBlock("系统")],
        messages=[user_message(["你好"])],
        max_tokens=100,
    )
    pieces: list[str] = []
    result = asyncio.run(provider.run(request, pieces.append))
    assert "".join(pieces) == result.text == "好的。"
    assert result.model == "claude-sonnet-5-5"
    assert result.usage.estimated and (result.usage.output_tokens or 0) > 0
    assert provider.effective_rate == 600_000.0


def test_every_section_runs_on_a_tiny_project(
    bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = bench.main(
        ["--at", "3,5", "--runs", "1", "--speed", "5000", "--chars", "300", "--keep", str(tmp_path / "work")]
    )
    assert code == 0
    out = capsys.readouterr().out
    for header in ("(a) local overhead", "(b) ChapterWriter prompt", "(c) fixed-rate fake API", "(d) tokens and cost"):
        assert header in out, out
    assert "gate path: draft" in out
    assert "side by side saves" in out
    assert "ch 12 [draft" in out  # the revision path of (c)


def test_figures(bench: ModuleType, tmp_path: Path) -> None:
    lines: list[str] = []
    opts = bench.Options(at=(4,), runs=1, speed=5000.0, chars=300)
    figures = bench.run_benchmark(tmp_path, opts, out=lines.append)
    assert set(figures["overhead"]) == {4}
    assert 0 < figures["writer_tokens"][4] < bench.WRITER_TARGET_TOKENS
    assert set(figures["rate"]) == {bench.PASS_CHAPTER, bench.REVISE_CHAPTER}
    wall, total, busy = figures["rate"][bench.PASS_CHAPTER]
    assert busy <= total + 1e-9
    assert figures["cost"][4] > 0
