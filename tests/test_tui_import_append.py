"""The studio's "追加导入书稿" (issue 9/10 follow-up): the palette on the main screen runs the import path into
the open project, as `novel-studio import --append` does (`write_project(append=True)`): the form asks for the
manuscript only, the preview, the write after the last chapter, the names, then the main screen reloads and
offers the extraction of the appended chapters."""

from __future__ import annotations

from pathlib import Path

from textual.command import CommandList, CommandPalette
from textual.widgets import Input

from pipeline.decisions import QuestionKind
from screens.decision_dialog import DecisionDialog
from screens.import_names import ImportNamesScreen
from screens.import_preview import ImportPreviewScreen
from screens.import_source import ImportSourceForm
from studio.models.checkpoint import Checkpoint
from studio.models.import_record import ImportRecord
from studio.paths import ProjectPaths
from tests.import_extract_helpers import book_text, imported_project
from tests.tui_helpers import main_screen, make_app, notes, wait_for


async def _open_append_form(app: object, pilot: object) -> ImportSourceForm:
    from textual.pilot import Pilot

    from studio.tui.app import NovelStudioApp

    assert isinstance(app, NovelStudioApp) and isinstance(pilot, Pilot)
    assert await wait_for(pilot, lambda: app.main_screen is not None and main_screen(app).is_mounted)
    await pilot.press("ctrl+p")
    assert await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
    await pilot.press(*"append")
    palette = app.screen
    assert isinstance(palette, CommandPalette)
    commands = palette.query_one(CommandList)
    assert await wait_for(pilot, lambda: commands.option_count > 0
                          and "追加导入书稿" in str(commands.get_option_at_index(0).prompt))
    await pilot.press("enter")
    assert await wait_for(pilot, lambda: isinstance(app.screen, ImportSourceForm))
    form = app.screen
    assert isinstance(form, ImportSourceForm)
    return form


async def test_append_a_manuscript_from_the_palette(tmp_path: Path) -> None:
    root = imported_project(tmp_path / "novel", 3, chars=900)
    more = tmp_path / "续集.txt"
    more.write_text(book_text(2, chars=900).replace("第1章", "第4章").replace("第2章", "第5章"), encoding="utf-8")
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        form = await _open_append_form(app, pilot)
        assert form.append_to == root and not form.query("#import-target")  # the target is the open project
        assert "接在本项目第 3 章之后" in str(form.query_one("#import-append").render())
        form.query_one("#import-source", Input).value = str(more)
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ImportPreviewScreen))
        preview = app.screen
        assert isinstance(preview, ImportPreviewScreen) and preview.target.append and preview.target.target == root
        assert await wait_for(pilot, lambda: not preview.busy and preview.manuscript is not None, limit=1500)
        await pilot.press("y")
        assert await wait_for(pilot, lambda: isinstance(app.screen, (ImportNamesScreen, DecisionDialog)), limit=3000)
        if isinstance(app.screen, ImportNamesScreen):
            await pilot.press("enter")
        # back on the main screen: reloaded, told, and the extraction of the new chapters offered
        assert await wait_for(pilot, lambda: isinstance(app.screen, DecisionDialog), limit=3000)
        dialog = app.screen
        assert isinstance(dialog, DecisionDialog) and dialog.question.kind is QuestionKind.IMPORT_EXTRACT
        assert "已追加第 4-5 章" in notes(app)
        assert set(main_screen(app).outline.chapter_numbers) >= {1, 2, 3, 4, 5}
        assert await wait_for(pilot, lambda: bool(dialog.query("OptionList")))
        await pilot.press("escape")  # not now: the extraction stays offered
        assert await wait_for(pilot, lambda: app.screen is main_screen(app))
    paths = ProjectPaths(root)
    record = ImportRecord.load(paths.import_record)
    assert [(s.first_chapter, s.last_chapter) for s in record.sources] == [(1, 3), (4, 5)]
    assert Checkpoint.load(paths.checkpoint).last_completed_chapter == 5
    assert paths.chapter(4).is_file() and paths.chapter(5).is_file()


async def test_the_append_form_refuses_a_project_that_cannot_take_chapters(tmp_path: Path) -> None:
    root = imported_project(tmp_path / "novel", 2, chars=900)
    paths = ProjectPaths(root)
    checkpoint = Checkpoint.load(paths.checkpoint)
    checkpoint.inflight_chapter = 3  # a chapter is being written: nothing may be appended now
    checkpoint.save(paths.checkpoint)
    more = tmp_path / "续集.txt"
    more.write_text(book_text(2, chars=900), encoding="utf-8")
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        assert await wait_for(pilot, lambda: app.main_screen is not None and main_screen(app).is_mounted)
        form = ImportSourceForm(root, "zh", append_to=root)
        app.push_screen(form)
        assert await wait_for(pilot, lambda: app.screen is form and bool(form.query("#import-source")))
        form.source_input.value = str(more)
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: form.error is not None)
        assert form.error is not None and "第 3 章" in form.error and app.screen is form  # says why, stays
    assert ImportRecord.load(paths.import_record).last_chapter == 2  # nothing written
