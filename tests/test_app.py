"""Pilot tests of the studio app on the sample novel with the offline provider (no network, no key)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pipeline.providers.offline import OfflineProvider
from screens.help_screen import HelpScreen
from screens.main_screen import MainScreen
from screens.prompt_dialogs import ConfirmDialog, GotoDialog, TextDialog
from studio.init_project import init_project
from studio.tui.app import ProjectErrorScreen
from studio.views.outline_rows import ChapterStatus, find_chapter
from tests.tui_helpers import RecordingStudio, main_screen, make_app, run_to_end
from widgets.studio_header import HeaderInfo, format_elapsed, render_header


async def test_opens_narrow_with_tabs(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        assert screen.has_class("-narrow")
        assert screen.query_one("#pane-tabs").display
        assert screen.selected == 2
        assert "守灯司的规矩" in screen.chapter_view.title
        assert "沈照" in screen.chapter_view.text
        assert screen.diff_view._diff is not None
        assert screen.scores_view._model is not None and not screen.scores_view._model.is_empty
        assert screen.query_one("#pane-chapter").display
        assert not screen.query_one("#pane-outline").display
        header = screen.header.plain()
        assert "雾港守灯人" in header and "离线模式" in header and "第2章" in header


async def test_opens_wide_with_grid_and_reacts_to_resize(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        assert screen.has_class("-wide")
        assert not screen.query_one("#pane-tabs").display
        for name in ("outline", "chapter", "diff", "scores"):
            assert screen.query_one(f"#pane-{name}").display
        assert screen.query_one("#pane-outline").border_title == "大纲"
        assert "沈照" in screen.chapter_view.text
        await pilot.resize_terminal(90, 30)
        await pilot.pause()
        assert screen.has_class("-narrow")
        await pilot.resize_terminal(120, 30)
        await pilot.pause()
        assert screen.has_class("-wide")


async def test_english(sample: Path) -> None:
    app = make_app(sample, lang="en")
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        assert screen.query_one("#pane-outline").border_title == "Outline"
        assert "OFFLINE" in screen.header.plain()
        assert any(b.description == "Write next chapter" for b in screen._bindings.key_to_bindings["c"])


async def test_write_next_chapter_to_commit(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await run_to_end(app, pilot)
        screen = main_screen(app)
        assert 3 in screen.project.committed_chapters()
        row = find_chapter(screen.outline.rows, 3)
        assert row is not None and row.status in (ChapterStatus.COMMITTED, ChapterStatus.FORCE_PASSED)
        assert screen.selected == 3
        assert screen.outline.current_chapter == 3
        assert screen.chapter_view.text.strip() == (screen.project.chapter_text(3) or "").strip()
        assert screen.header.info.stage is None and not screen.header.ticking
        assert screen.header.info.run_tokens > 0
        log = (sample / ".novel-studio" / "logs" / "studio.log").read_text(encoding="utf-8")
        assert "run ended: committed=[3]" in log


async def test_note_reaches_the_run(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        seen: list[tuple[int, str | None]] = []
        monkeypatch.setattr(screen.runner, "start", lambda request: seen.append((request.chapters, request.note)))
        await pilot.press("n")
        assert isinstance(app.screen, TextDialog)
        await pilot.press(*"abc")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert screen.note == "abc"
        await pilot.press("c")
        assert seen == [(1, "abc")]
        assert screen.note is None


async def test_write_many_asks_the_number(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        seen: list[int] = []
        monkeypatch.setattr(screen.runner, "start", lambda request: seen.append(request.chapters))
        await pilot.press("C")
        await pilot.pause()
        await pilot.press("backspace", "3", "enter")
        await pilot.pause()
        assert seen == [3]


async def test_keys_answer_while_streaming(sample: Path) -> None:
    app = make_app(sample, delay=0.05)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        await pilot.press("c")
        for _ in range(200):
            await pilot.pause(0.02)
            if screen.chapter_view.is_streaming and screen.draft_text:
                break
        assert screen.running and screen.chapter_view.is_streaming
        assert screen.header.info.stage == "draft" and screen.header.ticking
        await pilot.press("1")
        assert screen.active_pane == 0 and screen.outline.has_focus
        await pilot.press("2")
        assert screen.active_pane == 1 and screen.chapter_view.text_area.has_focus
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert screen.running
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")
        await pilot.pause()
        assert screen.running
        screen.runner.stop()
        for _ in range(100):
            await pilot.pause(0.02)
            if not screen.running:
                break
        assert not screen.running


async def test_escape_stops_and_stays_resumable(sample: Path) -> None:
    app = make_app(sample, delay=0.05)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        await pilot.press("c")
        for _ in range(200):
            await pilot.pause(0.02)
            if screen.draft_text:
                break
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not screen.running
        assert not screen.header.ticking
        checkpoint = json.loads((sample / ".checkpoint.json").read_text(encoding="utf-8"))
        assert checkpoint["inflight_chapter"] == 3
        assert checkpoint["last_completed_chapter"] == 2
        assert (sample / "staging").is_dir()
        log = (sample / ".novel-studio" / "logs" / "studio.log").read_text(encoding="utf-8")
        assert "stopped by the author" in log
    # A fresh studio resumes the chapter (the orchestrator asks resume / discard) and commits it.
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        asked = await run_to_end(app, pilot)
        assert "interrupted" in asked
        assert 3 in main_screen(app).project.committed_chapters()


async def test_quit_asks_while_running(sample: Path) -> None:
    app = make_app(sample, delay=0.05)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        await pilot.press("c")
        await pilot.pause(0.1)
        assert screen.running
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")
        await pilot.pause()
        assert screen.running and app.is_running
        await pilot.press("q")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        await app.workers.wait_for_complete()
    assert app.return_code == 0


async def test_quit_when_idle_exits(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


async def test_goto_chapter(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        await pilot.press("g")
        await pilot.pause()
        assert isinstance(app.screen, GotoDialog)
        await pilot.press("1", "enter")
        await pilot.pause()
        assert screen.selected == 1
        assert screen.outline.current_chapter == 1
        assert "子时送单" in screen.chapter_view.title


async def test_copy_chapter(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(sample)
    copied: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
    assert copied and "沈照" in copied[0]


async def test_tab_cycles_panes(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        assert screen.active_pane == 1
        await pilot.press("tab")
        assert screen.active_pane == 2 and screen.diff_view.has_focus
        await pilot.press("tab", "tab")
        assert screen.active_pane == 0 and screen.outline.has_focus
        await pilot.press("shift+tab")
        assert screen.active_pane == 3 and screen.scores_view.has_focus


async def test_help_lists_every_key(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        text = "\n".join(help_screen.lines())
        for word in ("写下一章", "写多章", "本章要求", "跳到章节", "复制本章", "停止运行", "退出", "命令面板"):
            assert word in text


async def test_remapped_key(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.set_keymap({"goto": "w"})  # j and k move in the panes now
        await pilot.pause()
        await pilot.press("w")
        await pilot.pause()
        assert isinstance(app.screen, GotoDialog)


async def test_command_palette_lists_actions(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"goto")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause(0.2)
        assert isinstance(app.screen, GotoDialog)


async def test_broken_project_shows_error_screen(tmp_path: Path) -> None:
    root = tmp_path / "novel"
    init_project(root, sample=True)
    (root / ".checkpoint.json").write_text("{ not json", encoding="utf-8")
    app = make_app(root)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ProjectErrorScreen)
        assert ".checkpoint.json" in app.screen.message
        await pilot.press("q")
        await pilot.pause()


async def test_missing_project_shows_error_screen(tmp_path: Path) -> None:
    app = make_app(tmp_path / "nowhere")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ProjectErrorScreen)


async def test_stage_failure_is_readable(sample: Path) -> None:
    class Broken(OfflineProvider):
        async def run(self, request: Any, on_text: Any = None) -> Any:
            raise RuntimeError("boom")

    app = RecordingStudio(sample, offline=True, provider_factory=lambda s: Broken(delay_s=0))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        await pilot.press("c")
        await run_to_end(app, pilot)
        assert not screen.running
        log = (sample / ".novel-studio" / "logs" / "studio.log").read_text(encoding="utf-8")
        assert "boom" in log
        assert "Traceback" not in screen.chapter_view.text


def test_header_render() -> None:
    info = HeaderInfo(title="雾港守灯人", volume=1, chapter=3, state="running", stage="draft", provider="offline",
                      offline=True, run_tokens=12345, run_cost=0.5)
    text = render_header(info, "zh", elapsed=75).plain
    assert "离线模式" in text and "起草 1:15" in text and "1.2万 tokens" in text
    assert format_elapsed(3600) == "60:00"
