"""The studio's whole import path, offline, with the real functions (issue 10 item 1): welcome -> the form ->
the preview (read and split in a worker; split by size, change the size, back to the headings) -> confirm ->
the project written -> the names ticked -> the main screen, which offers the full extraction with its estimate
-> the extraction of a small book -> the main screen showing the chapters. Also: a source that is not text
stays on the preview with its reason; a preview cancelled writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from pipeline.decisions import QuestionKind
from screens.decision_dialog import DecisionDialog
from screens.import_names import ImportNamesScreen
from screens.import_preview import MESSAGES as PREVIEW_MESSAGES
from screens.import_preview import ImportPreviewScreen
from screens.import_progress import ExtractionScreen, ImportWorkScreen
from screens.import_source import ImportSourceForm
from screens.main_screen import MainScreen
from screens.prompt_dialogs import NumberDialog
from screens.welcome_screen import WelcomeScreen
from studio.i18n import tr
from studio.models.import_record import ImportRecord
from studio.models.names import NamesFile
from studio.paths import ProjectPaths
from studio.tui.app import NovelStudioApp
from tests.import_extract_helpers import TITLES, book_text
from tests.tui_helpers import main_screen, make_app, notes, wait_for

CHAPTERS = 6


def _source(tmp_path: Path, encoding: str = "gb18030") -> Path:
    folder = tmp_path / "downloads"
    folder.mkdir()
    path = folder / "青云旧事.txt"
    path.write_bytes(book_text(CHAPTERS, chars=900).encode(encoding))
    return path


async def _to_preview(app: NovelStudioApp, pilot: Pilot[None], source: Path, target: Path | None = None) -> ImportPreviewScreen:
    await pilot.pause()
    assert isinstance(app.screen, WelcomeScreen)
    await pilot.press("2")
    assert await wait_for(pilot, lambda: isinstance(app.screen, ImportSourceForm))
    form = app.screen
    assert isinstance(form, ImportSourceForm)
    form.query_one("#import-source", Input).value = str(source)
    await pilot.press("enter")
    await pilot.pause()
    assert form.error is None, form.error
    if target is not None:
        form.target_input.value = str(target)
    await pilot.press("enter")
    assert await wait_for(pilot, lambda: isinstance(app.screen, ImportPreviewScreen))
    preview = app.screen
    assert isinstance(preview, ImportPreviewScreen)
    return preview


def _split_done(preview: ImportPreviewScreen) -> bool:
    return not preview.busy and (preview.manuscript is not None or preview.error is not None)


async def test_the_whole_import_path_offline(tmp_path: Path) -> None:
    studio = tmp_path / "studio"
    studio.mkdir()
    source = _source(tmp_path)
    original = source.read_bytes()
    app = make_app(studio, welcome=True)
    async with app.run_test(size=(80, 24)) as pilot:
        preview = await _to_preview(app, pilot, source)
        assert preview.target.target == studio  # the studio's folder is empty: the book goes there
        assert await wait_for(pilot, lambda: _split_done(preview), limit=1500)
        assert preview.manuscript is not None and len(preview.manuscript.chapters) == CHAPTERS
        body = preview.body_text
        assert f"找到 {CHAPTERS} 章" in body and "GB18030" in body  # the encoding and its conversion
        assert TITLES[0] in body and TITLES[CHAPTERS - 1] in body  # first and last titles
        # adjust: by size, then another size, then back to the headings
        await pilot.press("s")
        assert await wait_for(pilot, lambda: _split_done(preview) and preview.mode == "size", limit=1500)
        assert preview.manuscript is not None and preview.manuscript.mode == "size"
        sized = len(preview.manuscript.chapters)
        await pilot.press("t")
        assert await wait_for(pilot, lambda: isinstance(app.screen, NumberDialog))
        app.screen.query_one(Input).value = "600"
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: app.screen is preview)
        assert await wait_for(pilot, lambda: _split_done(preview) and preview.target_chars == 600, limit=1500)
        assert preview.manuscript is not None and len(preview.manuscript.chapters) > sized
        await pilot.press("h")
        assert await wait_for(pilot, lambda: _split_done(preview) and preview.mode == "headings", limit=1500)
        assert preview.manuscript is not None and len(preview.manuscript.chapters) == CHAPTERS
        await pilot.press("y")
        # writing, then the names
        assert await wait_for(pilot, lambda: isinstance(app.screen, ImportNamesScreen), limit=3000)
        names = app.screen
        assert isinstance(names, ImportNamesScreen)
        listed = [row.name for row in names.rows]
        assert "林枫" in listed and "苏晚晴" in listed
        assert len(names.names.selected) == len(listed)  # all ticked to begin with
        await pilot.press("a")  # none
        assert names.names.selected == []
        await pilot.press("space")  # tick the highlighted one (the most frequent)
        assert len(names.names.selected) == 1
        await pilot.press("a")  # all again
        assert len(names.names.selected) == len(listed)
        await pilot.press("enter")
        # the main screen on the new project offers the full extraction, the estimate first
        assert await wait_for(pilot, lambda: isinstance(app.screen, DecisionDialog), limit=3000)
        dialog = app.screen
        assert isinstance(dialog, DecisionDialog)
        assert dialog.question.kind is QuestionKind.IMPORT_EXTRACT
        assert any("离线" in fact for fact in dialog.question.facts)
        assert app.project_root == studio
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ExtractionScreen))
        extraction = app.screen
        assert isinstance(extraction, ExtractionScreen)
        assert await wait_for(pilot, lambda: extraction.result is not None, limit=3000)
        assert extraction.result is not None and extraction.result.status == "done", extraction.error
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        screen = main_screen(app)
        assert screen.outline.chapter_numbers == list(range(1, CHAPTERS + 1)) or set(
            screen.outline.chapter_numbers) >= set(range(1, CHAPTERS + 1))
        assert screen.selected == CHAPTERS
        assert "林枫" in screen.chapter_view.text or "苏晚晴" in screen.chapter_view.text
        assert "全量提取完成" in notes(app)
    paths = ProjectPaths(studio)
    record = ImportRecord.load(paths.import_record)
    assert record.extracted_through == CHAPTERS
    assert {e.name for e in NamesFile.load(paths.names).entities} >= {"林枫", "苏晚晴"}
    assert source.read_bytes() == original  # the source is never touched
    assert any(p.read_bytes() == original for p in paths.import_dir.rglob("*") if p.is_file())  # kept as is


async def test_a_source_that_is_not_text_stays_on_the_preview(tmp_path: Path) -> None:
    studio = tmp_path / "studio"
    studio.mkdir()
    bad = tmp_path / "cover.txt"
    bad.write_bytes(bytes(range(256)) * 64)
    app = make_app(studio, welcome=True)
    async with app.run_test(size=(80, 24)) as pilot:
        preview = await _to_preview(app, pilot, bad)
        assert await wait_for(pilot, lambda: _split_done(preview), limit=1500)
        assert preview.manuscript is None and preview.error is not None
        assert "Traceback" not in preview.error
        await pilot.press("y")
        assert app.screen is preview  # nothing to import: stays, says why
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ImportSourceForm))
        form = app.screen
        assert isinstance(form, ImportSourceForm)
        assert form.source_input.value == str(bad)  # what was typed is kept
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: isinstance(app.screen, WelcomeScreen))
    assert not any(studio.iterdir())


async def test_a_refused_write_stays_on_screen_then_back_to_the_form(tmp_path: Path) -> None:
    """The form checks the target; a folder that turns into a project before the write is refused by
    `write_project` itself, and the reason stays on screen."""
    studio = tmp_path / "studio"
    studio.mkdir()
    source = _source(tmp_path, "utf-8")
    target = tmp_path / "target"
    app = make_app(studio, welcome=True)
    async with app.run_test(size=(80, 24)) as pilot:
        preview = await _to_preview(app, pilot, source, target)
        assert await wait_for(pilot, lambda: _split_done(preview), limit=1500)
        from studio.init_project import init_project

        init_project(target)  # someone made a project there meanwhile
        before = sorted(p.relative_to(target) for p in target.rglob("*"))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ImportWorkScreen)
                              and app.screen.error is not None, limit=1500)
        work = app.screen
        assert isinstance(work, ImportWorkScreen) and work.error is not None
        assert str(target) in work.error
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ImportSourceForm))
    assert sorted(p.relative_to(target) for p in target.rglob("*")) == before  # nothing written


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
async def test_preview_shows_its_keys(tmp_path: Path, size: tuple[int, int], lang: str) -> None:
    """Every key on screen, and a key never on another line than its label (English at 80x24 broke
    `t target` / `size`)."""
    studio = tmp_path / "studio"
    studio.mkdir()
    source = _source(tmp_path, "utf-8")
    app = make_app(studio, welcome=True, lang=lang)
    async with app.run_test(size=size) as pilot:
        preview = await _to_preview(app, pilot, source)
        assert await wait_for(pilot, lambda: _split_done(preview), limit=1500)
        keys = preview.query_one("#preview-keys")
        region = keys.region
        assert region.height >= 1 and region.bottom <= size[1]  # on screen, below the scrolling preview
        shown = str(keys.render())
        for key in ("y/Enter", "s ", "b ", "t ", "Esc"):
            assert key in shown
        items = set(tr(PREVIEW_MESSAGES, "keys", "en" if lang == "en" else "zh").split(" · "))
        lines = [keys.render_line(y).text.strip().removesuffix(" ·") for y in range(keys.size.height)]
        assert all(line and set(line.split(" · ")) <= items for line in lines), lines
        assert preview.query_one("#preview-status").region.y < region.y
