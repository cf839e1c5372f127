"""bench/bench_tui.py still runs: every section on a tiny project (no timing asserts)."""

from __future__ import annotations

import asyncio
import math
import sys
from pathlib import Path
from types import ModuleType

import pytest

from pipeline.providers.base import ModelRequest, SystemBlock, user_message
from tests.bench_loader import load_bench


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_bench("bench_tui")


def test_p95(bench: ModuleType) -> None:
    assert bench.p95([0.5]) == 0.5
    assert bench.p95(list(range(1, 101))) == pytest.approx(95.05)
    assert math.isnan(bench.p95([]))


def test_delta_rate_provider_paces_the_writer_only(bench: ModuleType) -> None:
    provider = bench.DeltaRateProvider(deltas_per_s=1000.0, stream_s=0.05)
    writer = ModelRequest(
        agent="chapter_writer", model="m", system=[SystemBlock("系统")], messages=[user_message(["写"])],
        max_tokens=100, context={"chapter": 3, "title": "测试"},
    )
    pieces: list[str] = []
    result = asyncio.run(provider.run(writer, pieces.append))
    assert "".join(pieces) == result.text and len(pieces) == provider.deltas > 1
    other = ModelRequest(agent="unknown", model="m", system=[SystemBlock("系统")], messages=[user_message(["你好"])],
                         max_tokens=10)
    before = provider.deltas
    asyncio.run(provider.run(other, None))
    assert provider.deltas == before


def test_every_section_runs_on_a_tiny_project(
    bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = bench.main([
        "--chapters", "6", "--runs", "1", "--presses", "4", "--stream-s", "4", "--no-pty", "--no-fresh",
        "--keep", str(tmp_path / "work"),
    ])
    assert code == 0
    out = capsys.readouterr().out
    for needle in ("(a) time to first paint", "in-process, headless: median", "(b) key-press latency",
                   "idle (nothing running): median", "while streaming", "ChapterView flushed", "peak RSS",
                   "(c) what selecting a chapter computes", "state diff, chapter after chapter",
                   "(e) what one key repaints", "selection, streaming", "draft flush"):
        assert needle in out, out


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_fresh_interpreter_and_pty(bench: ModuleType, tmp_path: Path) -> None:
    root = tmp_path / "novel"
    bench.generate_project(root, 4, chars_per_chapter=300)
    child = bench.fresh_interpreter_paint(root)
    assert child["construct_to_paint"] > 0 and child["maxrss_mb"] > 0
    measured = bench.pty_paint(root, timeout_s=60)
    assert measured is not None, "the CLI on a pty never showed both pane titles"
    assert measured[0] > 0


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
@pytest.mark.serial  # a studio that does not quit is killed in `PtyTerm.close`
@pytest.mark.xdist_group("serial")
def test_pty_key_latency_idle_and_while_streaming(bench: ModuleType, tmp_path: Path) -> None:
    """(d) still runs: idle keys with the studio's CPU per key, and keys while a chapter streams."""
    root, stream_root = tmp_path / "novel", tmp_path / "stream"
    bench.generate_project(root, 4, chars_per_chapter=300)
    bench.generate_project(stream_root, 3, chars_per_chapter=300)
    lines: list[str] = []
    figures = bench.pty_key_latency(root, stream_root, 6, lines.append, offline_delay=0.2)
    assert figures is not None, lines
    assert {key for key, _, _ in figures["idle"]} >= {"1", "2"}, figures
    assert all(len(row) == 2 for row in figures["cpu"])
    bench.print_pty_latency(figures, lines.append)
    assert any("idle, pane switching" in line for line in lines), lines
    assert any("while streaming" in line for line in lines), lines
