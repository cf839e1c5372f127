"""The studio's first paint computes each figure once: the outline rows (with their 字数 and scores) are built
once, and the header takes the spend figures alone instead of a whole status report (which would count the
words, read the scores and run the cold-start checks a second time)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import screens.main_screen as main_screen_module
import studio.status as status_module
import studio.views.outline_rows as rows_module
from studio.project import Project
from studio.status import build_status, spend_figures
from tests.bench_loader import load_bench
from tests.tui_helpers import main_screen, make_app, wait_for


@pytest.fixture
def novel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    root = tmp_path / "novel"
    load_bench("synth").generate_project(root, 12, chars_per_chapter=400)
    return root


def test_spend_figures_are_the_reports(novel: Path) -> None:
    project = Project.open(novel)
    report = build_status(project)
    figures = spend_figures(project)
    assert (figures.cost_usd, figures.input_tokens, figures.output_tokens, figures.chapters_without_cost) == (
        report.cost_usd, report.input_tokens, report.output_tokens, report.chapters_without_cost
    )
    assert figures.cache == report.cache
    assert (figures.prompts_pinned, figures.prompt_updates) == (report.prompts_pinned, report.prompt_updates)
    assert report.input_tokens > 0  # the synthetic novel has a spend ledger: the figures are not all zero


def _spy(monkeypatch: pytest.MonkeyPatch, counts: Counter[str], module: object, name: str, label: str) -> None:
    real: Callable[..., Any] = getattr(module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        counts[label] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)


async def test_first_paint_computes_rows_words_and_scores_once(novel: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counts: Counter[str] = Counter()
    _spy(monkeypatch, counts, main_screen_module, "build_outline_rows", "rows")
    _spy(monkeypatch, counts, rows_module, "total_word_count", "word counts")
    _spy(monkeypatch, counts, rows_module, "chapter_scores", "scores")
    _spy(monkeypatch, counts, status_module, "total_word_count", "word counts (status)")
    _spy(monkeypatch, counts, status_module, "cold_start_notes", "status cold-start notes")
    _spy(monkeypatch, counts, status_module, "_scores", "status scores")
    app = make_app(novel)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = main_screen(app)
        assert await wait_for(pilot, lambda: len(screen.outline.chapter_numbers) >= 12)
        await app.workers.wait_for_complete()  # the start-up checks have run
        await pilot.pause()
        assert counts["rows"] == 1
        assert counts["word counts"] == 1
        assert counts["scores"] == 1
        # the header's figures come without a second word count, score read or cold-start check
        assert counts["word counts (status)"] == 0
        assert counts["status cold-start notes"] == 0
        assert counts["status scores"] == 0
        assert screen.header.info.project_tokens > 0


def test_status_parses_the_changelog_once(novel: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cold-start check reads the changelog; the notices only look for other tools' lines, without a
    second validating pass over every entry."""
    import studio.coldstart as coldstart_module
    import studio.state_engine as engine

    counts: Counter[str] = Counter()
    _spy(monkeypatch, counts, coldstart_module, "parse_changelog", "parse")
    _spy(monkeypatch, counts, engine, "parse_changelog", "parse")
    report = build_status(Project.open(novel))
    assert counts["parse"] == 1
    assert report.notices == []


def test_notices_still_name_other_tools_lines(novel: Path) -> None:
    changelog = novel / "state" / "changelog.jsonl"
    foreign = '{"chapter": 3, "delta": {"林枫": "受伤"}}\n'
    changelog.write_text(foreign + changelog.read_text(encoding="utf-8"), encoding="utf-8")
    notices = [str(p) for p in Project.open(novel).notices(lang="en")]
    assert len(notices) == 1 and "lines 1-1 (1 lines)" in notices[0]
