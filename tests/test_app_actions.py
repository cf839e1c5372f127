"""Pilot tests of the studio's review / undo / editor / search / export keys (offline provider, no network)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from pipeline.refine_edits import apply_decisions
from screens.export_dialog import ExportDialog, default_export_path
from screens.help_screen import HelpScreen
from screens.main_screen import MainScreen
from screens.prompt_dialogs import ConfirmDialog
from screens.refine_review import RefineReviewScreen
from screens.search_screen import SearchScreen, hit_label
from studio.search import SearchHit
from studio.tui import editor
from studio.tui.hunks import build_hunks
from studio.tui.messages import ChapterEdited
from studio.tui.review_flow import find_refine_record
from studio.views.outline_rows import ChapterStatus, find_chapter
from tests.tui_helpers import main_screen, make_app, run_to_end
from tests.tui_helpers import notified as notes


async def wait_for(pilot: Any, predicate: Any, *, limit: int = 300) -> None:
    for _ in range(limit):
        if predicate():
            return
        await pilot.pause(0.02)
    raise AssertionError("condition not reached")


# --------------------------------------------------------------------------------------------- r: review


async def test_review_committed_chapter_then_rebuild(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await run_to_end(app, pilot)
        screen = main_screen(app)
        assert screen.selected == 3
        record = find_refine_record(screen.project.paths, 3)
        assert record is not None and record.kind == "committed"
        assert record.path == sample / "logs" / "chapter-003" / "chapter-003-refine.json"
        draft, decisions = record.draft, record.decisions
        hunks = build_hunks(decisions, draft)
        assert len(hunks) >= 2

        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, RefineReviewScreen))
        await pilot.press("a", "n", "enter")  # all accepted, then the first one rejected
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))  # the rebuild is offered
        expected = apply_decisions(draft, decisions, [h.index for h in hunks[1:]])
        chapter = (sample / "chapters" / "chapter-003.md").read_text(encoding="utf-8")
        assert chapter == expected
        assert hunks[0].original in chapter  # the rejected edit kept the original
        assert screen.chapter_view.text == expected

        data = json.loads(record.path.read_text(encoding="utf-8"))
        assert data["result"]["text"] == expected
        assert isinstance(data["refiner_text"], str) and data["refiner_text"] != expected
        review = data["reviews"][-1]
        assert review["at"] and review["changed"] is True
        assert review["accepted"] == [h.index for h in hunks[1:]]
        verdicts = [(d["index"], d["decision"], d["by"]) for d in review["decisions"]]
        assert verdicts[0] == (hunks[0].index, "rejected", "author")
        assert all(v[1] == "accepted" for v in verdicts[1:])

        await pilot.press("y")  # rebuild
        await wait_for(pilot, lambda: any("已重建" in n for n in notes(app)))
        await app.workers.wait_for_complete()
        changelog = (sample / "state" / "changelog.jsonl").read_text(encoding="utf-8")
        assert '"kind":"rebuild"' in changelog.replace(" ", "")
        assert isinstance(app.screen, MainScreen)


async def test_review_cancel_changes_nothing(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await run_to_end(app, pilot)
        before = (sample / "chapters" / "chapter-003.md").read_bytes()
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, RefineReviewScreen))
        await pilot.press("d", "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        await app.workers.wait_for_complete()
        assert (sample / "chapters" / "chapter-003.md").read_bytes() == before
        record = find_refine_record(main_screen(app).project.paths, 3)
        assert record is not None and not record.reviews


async def test_review_without_record_notifies(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert main_screen(app).selected == 2
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert any("没有可审阅" in n for n in notes(app))


async def test_review_staged_chapter_updates_record_and_text(sample: Path) -> None:
    """A paused in-flight chapter: the staged record and the staged text take the review; no rebuild."""
    app = make_app(sample, delay=0.05)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        await pilot.press("c")
        staged = sample / "staging" / "refine" / "chapter-003-refine.json"
        await wait_for(pilot, staged.is_file, limit=1000)
        screen.runner.stop()
        await wait_for(pilot, lambda: not screen.running)
        await app.workers.wait_for_complete()
        await pilot.pause()
        record = find_refine_record(screen.project.paths, 3)
        assert record is not None and record.kind == "staged" and record.path == staged
        screen.selected = 3
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, RefineReviewScreen))
        await pilot.press("d", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        await app.workers.wait_for_complete()
        data = json.loads(staged.read_text(encoding="utf-8"))
        assert data["result"]["text"] == record.draft  # every edit rejected: the writer's text
        assert (sample / "staging" / "chapters" / "chapter-003.md").read_text(encoding="utf-8") == record.draft
        assert data["reviews"][-1]["accepted"] == []
        assert not isinstance(app.screen, ConfirmDialog)  # nothing committed: no rebuild offered


# --------------------------------------------------------------------------------------------- u: undo


async def test_undo_last_chapter(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        await pilot.press("u")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        assert "第2章" in app.screen.message
        await pilot.press("y")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert screen.project.committed_chapters() == [1]
        row = find_chapter(screen.outline.rows, 2)
        assert row is None or row.status not in (ChapterStatus.COMMITTED, ChapterStatus.FORCE_PASSED)
        assert not (sample / "chapters" / "chapter-002.md").exists()
        backups = list((sample / ".novel-studio" / "undo").iterdir())
        assert len(backups) == 1 and any(p.name == "chapter-002.md" for p in backups[0].rglob("*"))
        assert any(str(backups[0]) in n for n in notes(app))
        assert screen.selected == 1
        assert not (sample / ".novel.lock").exists()


async def test_undo_declined_keeps_chapter(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("u")
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        assert (sample / "chapters" / "chapter-002.md").is_file()


async def test_undo_refused_while_running(sample: Path) -> None:
    app = make_app(sample, delay=0.05)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        await pilot.press("c")
        await wait_for(pilot, lambda: screen.running and bool(screen.draft_text))
        await pilot.press("u")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmDialog)
        assert any("流水线正在运行" in n for n in notes(app))
        assert (sample / "chapters" / "chapter-002.md").is_file()
        screen.runner.stop()
        await wait_for(pilot, lambda: not screen.running)


async def test_undo_with_lock_held_is_readable(sample: Path) -> None:
    from studio.lock import ProjectLock

    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        lock = ProjectLock(screen.project.paths, heartbeat_interval=0)
        lock.acquire()
        try:
            await pilot.press("u")
            await pilot.pause()
            await pilot.press("y")
            await pilot.pause()
        finally:
            lock.release()
        assert (sample / "chapters" / "chapter-002.md").is_file()
        assert any("项目被占用" in n for n in notes(app))


# --------------------------------------------------------------------------------------------- e: $EDITOR


async def test_edit_through_the_seam_refreshes_and_offers_rebuild(
    sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[list[str]] = []

    def fake_editor(app: Any, argv: list[str]) -> int:
        seen.append(argv)
        path = Path(argv[-1])
        path.write_text(path.read_text(encoding="utf-8") + "\n沈照在门口多站了一会儿。\n", encoding="utf-8")
        return 0

    monkeypatch.setattr(editor, "EDITOR_RUNNER", fake_editor)
    monkeypatch.setenv("EDITOR", "myeditor --wait")
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        assert seen == [["myeditor", "--wait", str(sample / "chapters" / "chapter-002.md")]]
        assert "沈照在门口多站了一会儿" in screen.chapter_view.text
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog) and "第2章被手动修改" in dialog.message
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        await app.workers.wait_for_complete()
        assert any("需重建" in n for n in notes(app))
        assert 2 in screen.needs_rebuild
        # The watcher reports the same edit again: not offered twice.
        screen.post_message(ChapterEdited(2, source="watcher"))
        await pilot.pause(0.1)
        assert isinstance(app.screen, MainScreen)


async def test_edit_unchanged_file_offers_nothing(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(editor, "EDITOR_RUNNER", lambda app, argv: 0)
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert any("没有改动" in n for n in notes(app))


async def test_edit_when_suspend_is_unsupported(sample: Path) -> None:
    # The default runner: the headless test driver cannot suspend, like a browser session.
    assert editor.EDITOR_RUNNER is editor.run_suspended
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert any("无法挂起" in n for n in notes(app))


async def test_auto_rebuild_skips_the_question(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        assert app.settings is not None
        app.settings.writing.auto_rebuild = True
        path = sample / "chapters" / "chapter-002.md"
        path.write_text(path.read_text(encoding="utf-8") + "\n补一句。\n", encoding="utf-8")
        screen.post_message(ChapterEdited(2, source="watcher"))
        await wait_for(pilot, lambda: any("已重建" in n for n in notes(app)))
        await app.workers.wait_for_complete()
        assert not isinstance(app.screen, ConfirmDialog)


def test_editor_command_fallbacks() -> None:
    assert editor.editor_command({"VISUAL": "code -w", "EDITOR": "vim"}) == ["code", "-w"]
    assert editor.editor_command({"EDITOR": "vim"}) == ["vim"]
    assert editor.editor_command({})[0] in ("vi", "nano")


# --------------------------------------------------------------------------------------------- /: search


async def test_search_jumps_to_chapter(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        assert screen.selected == 2
        await pilot.press("slash")
        await pilot.pause()
        search = app.screen
        assert isinstance(search, SearchScreen)
        search.query_one("#search-input", Input).value = "二十八块"
        await wait_for(pilot, lambda: search.searches > 0)
        assert search.hits and search.hits[0].chapter == 1
        label = search.results.get_option_at_index(0).prompt
        assert "第1章" in str(label) and "二十八块" in str(label)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert screen.selected == 1
        assert "子时送单" in screen.chapter_view.title


async def test_search_typing_and_escape(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("slash")
        await pilot.pause()
        search = app.screen
        assert isinstance(search, SearchScreen)
        await pilot.press(*"zzzqqq")
        await wait_for(pilot, lambda: search.searches > 0 and search.query_text == "zzzqqq")
        assert search.hits == []
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert main_screen(app).selected == 2


def test_hit_label_highlights_spans() -> None:
    hit = SearchHit(3, "summary", 2, "他看见林枫", ((3, 5),))
    text = hit_label(hit, "zh")
    assert text.plain == "第3章 · 摘要 · 第2行 · 他看见林枫"
    offset = text.plain.index("林枫")
    assert any(span.start == offset and span.end == offset + 2 for span in text.spans)


# --------------------------------------------------------------------------------------------- export


async def test_export_from_the_palette(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"export")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause(0.2)
        dialog = app.screen
        assert isinstance(dialog, ExportDialog)
        out = default_export_path(sample, "雾港守灯人", "txt")
        assert dialog.query_one("#export-path", Input).value == str(out)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        text = out.read_text(encoding="utf-8")
        assert text.startswith("第1章 子时送单") and "第2章" in text
        assert any("已导出 2 章" in n and str(out) in n for n in notes(app))


async def test_export_dialog_markdown_range_and_errors(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        screen.action_export()
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ExportDialog)
        dialog.query_one("#export-from", Input).value = "5"
        dialog.query_one("#export-to", Input).value = "2"
        dialog.action_export()
        await pilot.pause()
        assert isinstance(app.screen, ExportDialog)
        assert "5" in str(dialog.query_one("#export-error").render())
        dialog.query_one("#export-from", Input).value = "2"
        dialog.set_format("md")
        path = dialog.query_one("#export-path", Input).value
        assert path.endswith(".md")
        dialog.action_export()
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        text = Path(path).read_text(encoding="utf-8")
        assert text.startswith("## 第2章") and "第1章" not in text


# --------------------------------------------------------------------------------------------- keys


async def test_help_and_palette_list_the_new_keys(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = "\n".join(app.screen.lines())
        for word in ("审阅润色", "撤销上一章", "用编辑器打开", "搜索"):
            assert word in text


async def test_search_goes_to_the_hit(sample: Path) -> None:
    """A hit near the end of a chapter: the pane scrolls there and the match is selected (not the top)."""
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        await pilot.press("slash")
        await pilot.pause()
        search = app.screen
        assert isinstance(search, SearchScreen)
        search.query_one("#search-input", Input).value = "我要收走"
        await wait_for(pilot, lambda: search.searches > 0 and bool(search.hits))
        hit = search.hits[0]
        assert hit.chapter == 1 and hit.line > 100
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.chapter_view.text_area.scroll_y > 0)
        area = screen.chapter_view.text_area
        row, _ = screen.chapter_view.display_row(hit.line)
        assert area.scroll_y <= row < area.scroll_y + area.scrollable_content_region.height
        assert area.selected_text == "我要收走"
