"""The full extraction of an imported book in the studio (issue 10 items 3-5): the main screen says the book is
not fully extracted (a note that stays under the chapter's title), `x` (or the command palette) asks with the
estimate first, the extraction runs with per-chapter progress, a stop keeps what was done, and `x` goes on.

Real functions only: `pipeline.importing.extract` with the offline provider; the project is the one the
deterministic import leaves (`tests.import_extract_helpers.imported_project`)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.pilot import Pilot

from pipeline.decisions import QuestionKind
from pipeline.providers.base import ModelRequest, ModelResult, TextCallback
from pipeline.providers.offline import OfflineProvider
from screens.decision_dialog import DecisionDialog
from screens.import_progress import ExtractionScreen
from screens.main_screen import MainScreen
from screens.prompt_dialogs import ConfirmDialog
from studio.models.import_record import ImportRecord
from studio.paths import ProjectPaths
from studio.tui.app import NovelStudioApp, StudioCommands
from studio.tui.import_flow import extraction_status
from tests.import_extract_helpers import chapter_bytes, imported_project
from tests.tui_helpers import RecordingStudio, main_screen, make_app, notes, wait_for

CHAPTERS = 5


def _marks_text(screen: MainScreen) -> str:
    n = screen.selected
    return "\n".join(screen.marks.lines(n, screen.lang)) if n is not None else ""


class GatedProvider(OfflineProvider):
    """The offline provider that holds its `hold_at`-th call until `gate` is set (a stop in the middle of the
    extraction, at a known place, with no timing involved)."""

    def __init__(self, hold_at: int) -> None:
        super().__init__(delay_s=0)
        self.hold_at = hold_at
        self.calls = 0
        self.holding = False
        self.gate = asyncio.Event()

    async def run(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelResult:
        self.calls += 1
        if self.calls == self.hold_at and not self.gate.is_set():
            self.holding = True
            try:
                await self.gate.wait()
            finally:
                self.holding = False
        return await super().run(request, on_text)


def _gated_app(root: Path, provider: GatedProvider) -> NovelStudioApp:
    return RecordingStudio(root, lang="zh", offline=True, provider_factory=lambda s: provider)


async def _start_extraction(app: NovelStudioApp, pilot: Pilot[None]) -> ExtractionScreen:
    await pilot.press("x")
    assert await wait_for(pilot, lambda: isinstance(app.screen, DecisionDialog))
    dialog = app.screen
    assert isinstance(dialog, DecisionDialog)
    assert dialog.question.kind is QuestionKind.IMPORT_EXTRACT  # the estimate first
    assert f"第 1-{CHAPTERS} 章" in dialog.question.title_zh or "第 " in dialog.question.title_zh
    await pilot.press("enter")  # start (recommended)
    assert await wait_for(pilot, lambda: isinstance(app.screen, ExtractionScreen))
    screen = app.screen
    assert isinstance(screen, ExtractionScreen)
    return screen


async def test_extraction_from_the_main_screen(tmp_path: Path) -> None:
    root = imported_project(tmp_path / "book", CHAPTERS)
    before = chapter_bytes(root, CHAPTERS)
    app = make_app(root)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        assert await wait_for(pilot, lambda: "还没有全量提取" in _marks_text(screen))
        assert f"0/{CHAPTERS}" in _marks_text(screen) and "按 x 继续" in _marks_text(screen)
        extraction = await _start_extraction(app, pilot)
        assert await wait_for(pilot, lambda: extraction.result is not None, limit=3000)
        assert extraction.result is not None and extraction.result.status == "done", extraction.error
        status_line = str(extraction.query_one("#work-status").render())
        assert f"已提取到第{CHAPTERS}章" in status_line
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        assert await wait_for(pilot, lambda: "还没有全量提取" not in _marks_text(screen))
        assert "全量提取完成" in notes(app)
    status = extraction_status(root)
    assert status is not None and status.finished
    paths = ProjectPaths(root)
    assert all(paths.summary(n).is_file() for n in range(1, CHAPTERS + 1))
    assert chapter_bytes(root, CHAPTERS) == before  # the author's text is never modified


async def test_stop_during_extraction_keeps_the_progress_and_x_resumes(tmp_path: Path) -> None:
    root = imported_project(tmp_path / "book", CHAPTERS)
    before = chapter_bytes(root, CHAPTERS)
    provider = GatedProvider(hold_at=5)  # cast pass, style pass, chapters 1-2; held on chapter 3
    app = _gated_app(root, provider)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        extraction = await _start_extraction(app, pilot)
        assert await wait_for(pilot, lambda: provider.holding, limit=3000)
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: extraction.result is not None, limit=3000)
        assert extraction.result is not None and extraction.result.status == "stopped"
        done = ImportRecord.load(ProjectPaths(root).import_record).extracted_through
        assert 1 <= done < CHAPTERS
        assert extraction.error is not None and f"已提取到第{done}章" in extraction.error  # said where it stays
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        assert await wait_for(pilot, lambda: f"{done}/{CHAPTERS}" in _marks_text(screen))
        assert "进度保留" in notes(app)
        provider.gate.set()
        calls = provider.calls
        extraction = await _start_extraction(app, pilot)
        assert await wait_for(pilot, lambda: extraction.result is not None, limit=3000)
        assert extraction.result is not None and extraction.result.status == "done", extraction.error
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        assert await wait_for(pilot, lambda: "还没有全量提取" not in _marks_text(screen))
    assert ImportRecord.load(ProjectPaths(root).import_record).extracted_through == CHAPTERS
    # nothing extracted twice: the resumed run asked only for the chapters not yet done (the held call again)
    assert provider.calls - calls == CHAPTERS - done
    assert chapter_bytes(root, CHAPTERS) == before


async def test_a_stopped_extraction_goes_on_after_the_studio_is_reopened(tmp_path: Path) -> None:
    root = imported_project(tmp_path / "book", CHAPTERS)
    held = GatedProvider(hold_at=4)  # cast pass, style pass, chapter 1; held on chapter 2
    app = _gated_app(root, held)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        extraction = await _start_extraction(app, pilot)
        assert await wait_for(pilot, lambda: held.holding, limit=3000)
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: extraction.result is not None, limit=3000)
    done = ImportRecord.load(ProjectPaths(root).import_record).extracted_through
    assert 1 <= done < CHAPTERS
    assert not (root / ".novel.lock").exists()  # the stop released the lock
    counting = GatedProvider(hold_at=0)  # never holds: counts the calls of the resumed run
    app = _gated_app(root, counting)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        assert await wait_for(pilot, lambda: f"{done}/{CHAPTERS}" in _marks_text(screen))
        extraction = await _start_extraction(app, pilot)
        assert await wait_for(pilot, lambda: extraction.result is not None, limit=3000)
        assert extraction.result is not None and extraction.result.status == "done", extraction.error
    assert counting.calls == CHAPTERS - done  # the cast and style passes and the chapters done are not paid again


async def test_the_command_palette_offers_the_extraction(tmp_path: Path) -> None:
    root = imported_project(tmp_path / "book", 2)
    app = make_app(root)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        commands = dict(StudioCommands(app.screen)._commands())
        assert commands.get("全量提取导入的书稿") == "extract"
        await main_screen(app).run_action("extract")  # what the palette entry runs
        assert await wait_for(pilot, lambda: isinstance(app.screen, DecisionDialog) and app.screen.is_mounted)


async def test_x_on_a_project_that_was_not_imported(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert "不是导入的书稿" in notes(app)
