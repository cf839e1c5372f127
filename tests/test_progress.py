"""Progress on long work (issue 12, item 6): the header shows every running stage (the summarizer and the refiner
side by side, a rebuild's stages) and the CLI prints each chapter's line as it commits."""

from __future__ import annotations

from pathlib import Path

from pipeline.events import StageFinished, StageStarted
from studio.init_project import init_project
from studio.tui.messages import PipelineEventPosted, RebuildFinished, RebuildStage, RebuildStarted
from tests.tui_helpers import main_screen, make_app
from widgets.studio_header import HeaderInfo, render_header, stages_label


def test_stages_label() -> None:
    assert stages_label("summarize,refine", "zh") == "摘要+润色"
    assert stages_label("rebuild:summarize", "zh") == "重建·摘要"
    assert stages_label("summarize,refine", "en") == "summarize+refine"
    text = render_header(HeaderInfo(title="雾港", state="running", stage="summarize,refine"), "zh", 3.0).plain
    assert "阶段：摘要+润色 0:03" in text


async def test_header_keeps_the_summarizer_when_the_refiner_finishes(tmp_path: Path) -> None:
    root = tmp_path / "novel"
    init_project(root, sample=True)
    app = make_app(root)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        header = screen.header
        for event in (StageStarted(3, "summarize", "m"), StageStarted(3, "refine", "m")):
            screen.post_message(PipelineEventPosted(event))
        await pilot.pause()
        assert "摘要+润色" in header.plain()
        screen.post_message(PipelineEventPosted(StageFinished(3, "refine", "m", 10)))
        await pilot.pause()
        assert "阶段：摘要" in header.plain() and "—" not in header.plain()  # not "stage: —" while it runs
        assert header.ticking
        screen.post_message(PipelineEventPosted(StageFinished(3, "summarize", "m", 10)))
        await pilot.pause()
        assert "阶段：—" in header.plain() and not header.ticking


async def test_header_shows_a_rebuilds_stage(tmp_path: Path) -> None:
    root = tmp_path / "novel"
    init_project(root, sample=True)
    app = make_app(root)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        screen.post_message(RebuildStarted(2))
        await pilot.pause()
        assert "阶段：重建" in screen.header.plain()
        screen.post_message(RebuildStage(2, "summarize", True))
        await pilot.pause()
        assert "阶段：重建·摘要" in screen.header.plain()
        screen.post_message(RebuildStage(2, "summarize", False))
        screen.post_message(RebuildFinished(2, error="boom"))
        await pilot.pause()
        await pilot.pause()
        assert "阶段：—" in screen.header.plain()
