"""The author's note is kept until used, and `q` is never swallowed by a question that opens at that moment
(issue 12, item 7)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from textual.widgets import TextArea

from pipeline.decisions import Option, Question, QuestionKind
from screens.decision_dialog import DecisionDialog
from screens.main_screen import MESSAGES as MAIN_MESSAGES
from screens.prompt_dialogs import ConfirmDialog, TextDialog
from studio.i18n import tr
from studio.models.author_note import author_note_path, load_author_note
from studio.paths import ProjectPaths
from studio.tui.app import NovelStudioApp
from tests.tui_helpers import main_screen, make_app, notes, run_to_end, wait_for


async def _set_note(app: NovelStudioApp, pilot: Any, text: str) -> None:
    await pilot.press("n")
    await pilot.pause()
    dialog = app.screen
    assert isinstance(dialog, TextDialog)
    dialog.query_one(TextArea).text = text
    await pilot.press("ctrl+s")
    await pilot.pause()


async def test_note_survives_quit_and_is_used_once(sample: Path) -> None:
    paths = ProjectPaths(sample)
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await _set_note(app, pilot, "这一章让沈照第一次进城")
        assert main_screen(app).note == "这一章让沈照第一次进城"
        await pilot.press("q")  # quit before writing: the note must not be lost
        await pilot.pause()
    assert load_author_note(paths) == "这一章让沈照第一次进城"
    data = json.loads(author_note_path(paths).read_text(encoding="utf-8"))
    assert data["text"] == "这一章让沈照第一次进城"

    app = make_app(sample)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        assert screen.note == "这一章让沈照第一次进城"
        assert await wait_for(pilot, lambda: "这一章让沈照第一次进城" in notes(app))  # said at start-up, not kept silently
        await pilot.press("c")
        await run_to_end(app, pilot)
        assert 3 in screen.project.committed_chapters()
        assert screen.note is None
    assert not author_note_path(paths).exists()  # used by chapter 3: gone


async def test_note_of_a_stopped_run_stays(sample: Path) -> None:
    paths = ProjectPaths(sample)
    app = make_app(sample, delay=0.05)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        await _set_note(app, pilot, "伏笔：灯账")
        await pilot.press("c")
        assert await wait_for(pilot, lambda: bool(screen.draft_text))
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not screen.running
        assert screen.note == "伏笔：灯账"  # no chapter was committed with it
    assert load_author_note(paths) == "伏笔：灯账"


async def test_q_on_a_question_that_just_opened_still_quits(sample: Path) -> None:
    app = make_app(sample, delay=0.05)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        await pilot.press("c")
        assert await wait_for(pilot, lambda: screen.running)
        question = Question(QuestionKind.QUALITY_BRIEF, 3, "继续？", "Continue?",
                            options=[Option("continue", "继续", "Continue"), Option("pause", "暂停", "Pause")])
        app.push_screen(DecisionDialog(question, "zh"))  # a question opens just as the author presses q
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)  # the quit question, asked over the other one
        assert app.screen.message == tr(MAIN_MESSAGES, "confirm_quit", "zh")
        await pilot.press("y")
        await pilot.pause()
        await app.workers.wait_for_complete()
    assert app.return_code == 0
