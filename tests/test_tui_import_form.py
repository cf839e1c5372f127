"""The studio's import path, its first step (issue 10 item 1): the paths the author types, checked, and the form
on the welcome screen (a bad path, a folder that is already a project: the reason stays on the form)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from screens.import_source import ImportSourceForm
from screens.welcome_screen import WelcomeScreen
from studio.fileio import atomic_write_text
from studio.init_project import init_project
from studio.models.import_record import ImportedChapter, ImportRecord
from studio.paths import ProjectPaths
from studio.tui.import_flow import (
    book_name,
    check_source,
    check_target,
    default_target,
    extraction_status,
)
from tests.test_app_new_novel import type_text
from tests.tui_helpers import make_app, wait_for


def _book(folder: Path, name: str = "雾港守灯人.txt") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("第1章 雾起\n\n林雾提着灯走下码头。\n", encoding="utf-8")
    return path


def test_check_source_expands_home_and_strips_paste_quotes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    book = _book(tmp_path / "书稿")
    assert check_source("~/书稿/雾港守灯人.txt", tmp_path / "elsewhere") == book
    assert check_source(f"  '{book}'  ", tmp_path) == book
    assert check_source("书稿", tmp_path) == tmp_path / "书稿"  # a folder of chapter files


def test_check_source_says_why(tmp_path: Path) -> None:
    assert "请输入" in str(check_source("  ", tmp_path))
    missing = check_source("没有这本书.txt", tmp_path)
    assert isinstance(missing, str) and "找不到" in missing and "没有这本书.txt" in missing
    (tmp_path / "cover.png").write_bytes(b"\x89PNG")
    assert "不是 TXT" in str(check_source("cover.png", tmp_path))
    assert "Not found" in str(check_source("nope.txt", tmp_path, "en"))


def test_default_target_is_the_empty_folder_or_a_new_one_named_after_the_book(tmp_path: Path) -> None:
    book = _book(tmp_path / "downloads")
    empty = tmp_path / "studio"
    empty.mkdir()
    assert default_target(book, empty) == empty  # the studio was opened on an empty folder
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("x", encoding="utf-8")
    assert book_name(book) == "雾港守灯人"
    assert default_target(book, busy) == book.parent / "雾港守灯人"
    (book.parent / "雾港守灯人").mkdir()
    (book.parent / "雾港守灯人" / "x").write_text("x", encoding="utf-8")
    assert default_target(book, busy) == book.parent / "雾港守灯人-2"  # never a folder with files in it
    folder = tmp_path / "chapters"
    folder.mkdir()
    assert default_target(folder, busy) == tmp_path / "chapters-novel"  # never the source folder itself


def test_check_target_refuses_a_project_a_file_and_a_busy_folder(tmp_path: Path) -> None:
    project = init_project(tmp_path / "novel")
    refused = check_target(str(project), tmp_path)
    assert isinstance(refused, str) and "已经是一个小说项目" in refused
    book = _book(tmp_path / "src")
    assert "不是文件夹" in str(check_target(str(book), tmp_path))
    assert "不是空文件夹" in str(check_target("src", tmp_path))
    assert book_name(_book(tmp_path / "x", "《剑来》.txt")) == "剑来"
    assert check_target("new-book", tmp_path) == tmp_path / "new-book"


def test_extraction_status_from_the_import_record(tmp_path: Path) -> None:
    root = init_project(tmp_path / "novel")
    assert extraction_status(root) is None  # not imported
    record = ImportRecord(chapters=[ImportedChapter(chapter=n) for n in range(1, 6)], extracted_through=2)
    record.save(ProjectPaths(root).import_record)
    status = extraction_status(root)
    assert status is not None and (status.done, status.total, status.finished) == (2, 5, False)
    atomic_write_text(ProjectPaths(root).import_record, "{ broken")
    assert extraction_status(root) is None  # nothing offered from a broken file, and it is not rewritten
    assert ProjectPaths(root).import_record.read_text(encoding="utf-8") == "{ broken"


async def test_bad_path_and_existing_project_stay_on_the_form(tmp_path: Path) -> None:
    folder = tmp_path / "studio"
    folder.mkdir()
    project = init_project(tmp_path / "old-novel")
    book = _book(tmp_path / "src")
    app = make_app(folder, welcome=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, WelcomeScreen)
        await pilot.press("2")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ImportSourceForm))
        form = app.screen
        assert isinstance(form, ImportSourceForm)
        await type_text(pilot, "没有这本书.txt")
        await pilot.press("enter")
        await pilot.pause()
        assert form.error is not None and "找不到" in form.error
        assert isinstance(app.screen, ImportSourceForm)  # nothing happened, the text is kept
        assert form.source_input.value == "没有这本书.txt"
        form.source_input.value = str(book)
        await pilot.press("enter")
        await pilot.pause()
        assert form.error is None
        assert form.target_input.value == str(folder)  # the studio's folder is empty: the book goes there
        assert form.focused is form.target_input
        form.target_input.value = str(project)
        await pilot.press("enter")
        await pilot.pause()
        assert form.error is not None and "已经是一个小说项目" in form.error
        assert isinstance(app.screen, ImportSourceForm)
        assert not (project / "import").exists()  # nothing written into the other novel
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: isinstance(app.screen, WelcomeScreen))
    assert not any(folder.iterdir())


async def test_form_in_english(tmp_path: Path) -> None:
    app = make_app(tmp_path, welcome=True, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("2")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ImportSourceForm))
        form = app.screen
        assert isinstance(form, ImportSourceForm)
        await pilot.press("enter")
        assert form.error is not None and "Enter the manuscript" in form.error
        assert form.query_one("#import-source", Input).has_focus
