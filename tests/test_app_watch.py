"""Pilot tests of the studio's file watcher: hand edits marked and rebuilt, own writes ignored, broken files."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from screens.file_watcher import FileWatcher
from screens.main_screen import MainScreen
from screens.prompt_dialogs import ConfirmDialog
from studio.fileio import NO_FSYNC_ENV, atomic_write_text
from studio.init_project import init_project
from studio.models.review_marks import load_review_marks
from studio.paths import ProjectPaths
from studio.tui.app import NovelStudioApp
from studio.tui.watch_flow import EditsFlow
from studio.views.outline_rows import ChapterStatus, find_chapter
from tests.tui_helpers import make_app, notes, wait_for
from widgets import compat


@pytest.fixture
def sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(FileWatcher, "debounce_ms", 50)
    root = tmp_path / "novel"
    init_project(root, sample=True)
    return root


async def started(app: NovelStudioApp, pilot: Any) -> tuple[MainScreen, EditsFlow]:
    await pilot.pause()
    screen = app.main_screen
    assert screen is not None
    assert await wait_for(pilot, screen.file_watcher.ready.is_set), "the watcher did not start"
    return screen, screen.edits


def changelog(root: Path) -> str:
    return ProjectPaths(root).changelog.read_text(encoding="utf-8")


async def test_hand_edit_marked_refreshed_and_rebuilt(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        screen, bridge = await started(app, pilot)
        assert screen.selected == 2
        chapter = ProjectPaths(sample).chapter(2)
        chapter.write_text(chapter.read_text(encoding="utf-8") + "\n沈照把灯账锁进了柜子。\n", encoding="utf-8")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog)), "no rebuild offer"
        assert "第2章被手动修改" in app.screen.message  # type: ignore[attr-defined]
        assert 2 in screen.needs_rebuild
        row = find_chapter(screen.outline.rows, 2)
        assert row is not None and row.status is ChapterStatus.NEEDS_REBUILD
        assert "沈照把灯账锁进了柜子" in screen.chapter_view.text  # the pane shows the edited text
        assert screen.chapter_view.marks_text.startswith("↻")  # and says so under the title, not in a toast
        assert '"rebuild"' not in changelog(sample)
        await pilot.press("y")
        assert await wait_for(pilot, lambda: '"rebuild"' in changelog(sample) and screen.rebuild_queue.rebuilding is None)
        assert await wait_for(pilot, lambda: 2 not in screen.marks.edited)
        assert "第2章已重建" in bridge.impact_report
        # what the rebuild changed stays with the chapter (the marks line), after the toast is gone
        assert await wait_for(pilot, lambda: "第2章已重建" in screen.chapter_view.marks_text)
        assert "↻" not in screen.chapter_view.marks_text
        screen.show_chapter(1)
        assert "第2章已重建" not in screen.chapter_view.marks_text
        screen.show_chapter(2)
        assert screen.chapter_view.marks_text.startswith("↺ 第2章已重建")
        log = (sample / ".novel-studio" / "logs" / "studio.log").read_text(encoding="utf-8")
        assert "rebuilt chapter 2" in log


async def test_auto_rebuild_marks_later_chapters_for_review(sample: Path) -> None:
    settings = sample / "novel-studio.toml"
    settings.write_text(settings.read_text(encoding="utf-8") + "\n[writing]\nauto_rebuild = true\n", encoding="utf-8")
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        screen, bridge = await started(app, pilot)
        chapter = ProjectPaths(sample).chapter(1)
        chapter.write_text(chapter.read_text(encoding="utf-8") + "\n沈照没有回灯铺，转身去了城西码头。\n",
                           encoding="utf-8")
        assert await wait_for(pilot, lambda: '"rebuild"' in changelog(sample) and screen.rebuild_queue.rebuilding is None)
        assert await wait_for(pilot, lambda: 2 in screen.marks.review_chapters())
        assert not isinstance(app.screen, ConfirmDialog)  # no question: the settings said so
        assert load_review_marks(ProjectPaths(sample)).chapters() == [2]
        assert 2 in screen.needs_rebuild and 1 not in screen.needs_rebuild
        row = find_chapter(screen.outline.rows, 2)
        assert row is not None and row.status is ChapterStatus.NEEDS_REVIEW  # not "edited": its own mark
        assert "需要复查" in bridge.impact_report and "第2章" in bridge.impact_report
        reasons = screen.marks.reasons(2, "zh")
        assert reasons is not None and "第1章" in reasons and "沈照" in reasons
        screen.show_chapter(1)
        assert "需要复查：第2章" in screen.chapter_view.marks_text  # chapter 1's rebuild result stays with it
        screen.show_chapter(2)  # selecting it says why, under its title (not only in a toast)
        await pilot.pause()
        marks = screen.chapter_view.marks_text
        assert marks.startswith("⚑ 需复查：第1章的修改") and "沈照" in marks
        assert any("⚑ 需复查" in line for line in compat.screen_lines(app.screen))


async def test_own_write_is_not_picked_up(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        screen, bridge = await started(app, pilot)
        chapter = ProjectPaths(sample).chapter(2)
        atomic_write_text(chapter, chapter.read_text(encoding="utf-8") + "\n（应用自己写的）\n")
        for _ in range(40):
            await pilot.pause(0.02)
        assert not isinstance(app.screen, ConfirmDialog)
        assert 2 not in screen.needs_rebuild and not screen.marks.edited


async def test_broken_style_profile_is_reported_and_untouched(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        screen, bridge = await started(app, pilot)
        profile = sample / "style-profile.json"
        good = json.loads(profile.read_text(encoding="utf-8"))
        broken = '{\n  "name": "x",\n  oops\n}\n'
        profile.write_text(broken, encoding="utf-8")
        assert await wait_for(pilot, lambda: bool(bridge.broken)), "the broken file was not reported"
        text = notes(app)
        assert "style-profile.json" in text and "第 3 行" in text and "列" in text
        assert profile.read_text(encoding="utf-8") == broken  # never overwritten
        assert app.is_running and isinstance(app.screen, MainScreen)
        # fixed again: the sticky notice goes and the file is reloaded
        profile.write_text(json.dumps(good, ensure_ascii=False, indent=2), encoding="utf-8")
        assert await wait_for(pilot, lambda: not bridge.broken)
        assert await wait_for(pilot, lambda: "已修好" in notes(app))


async def test_edited_outline_is_reloaded(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        screen, bridge = await started(app, pilot)
        outline = sample / "volumes" / "vol-01" / "outline.md"
        outline.write_text(outline.read_text(encoding="utf-8") + "\n", encoding="utf-8")
        assert await wait_for(pilot, lambda: "已重新载入" in notes(app))
        assert "outline.md" in notes(app)


async def test_chapter_committed_by_another_process_is_not_a_hand_edit(sample: Path) -> None:
    """Issue 12 item 8: `novel-studio continue` in another terminal while the studio is open."""
    root_dir = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root_dir) + os.pathsep + os.environ.get("PYTHONPATH", ""),
           NO_FSYNC_ENV: "1"}
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        screen, _bridge = await started(app, pilot)
        assert screen.project.last_completed_chapter == 2
        assert find_chapter(screen.outline.rows, 3) is not None
        child = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "studio.cli.main", "--offline", "continue", "1", "--yes", "--project", str(sample),
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
            env=env, cwd=root_dir,
        )
        output, _ = await asyncio.wait_for(child.communicate(), 600)
        assert child.returncode == 0, output.decode("utf-8", "replace")[-2000:]

        def followed() -> bool:  # the outline row and the scores as after the studio's own commit
            row = find_chapter(screen.outline.rows, 3)
            return (screen.project.last_completed_chapter == 3 and row is not None
                    and row.status is ChapterStatus.COMMITTED and row.overall is not None)

        assert await wait_for(pilot, followed, limit=3000), "the studio did not follow the other process's commit"
        assert await wait_for(pilot, lambda: any(n.kind == "peer" for n in screen.marks.notes), limit=3000)
        assert not isinstance(app.screen, ConfirmDialog)
        assert not screen.marks.edited and "手动修改" not in notes(app)
        assert ".checkpoint.json" not in notes(app)  # followed quietly: no "reloaded" toast for its files
        screen.show_chapter(3, select=True)
        assert screen.chapter_view.marks_text.startswith("⇄ 第3章由另一个 novel-studio 进程写入")
        chapter = ProjectPaths(sample).chapter(3)
        assert chapter.read_text(encoding="utf-8").strip()[:20] in screen.chapter_view.text
        log = (sample / ".novel-studio" / "logs" / "studio.log").read_text(encoding="utf-8")
        assert "chapter 3 written by another novel-studio process" in log
        assert "chapter 3 edited by hand" not in log

        # a real hand edit after the other process's write is still a hand edit
        chapter.write_text(chapter.read_text(encoding="utf-8") + "\n作者补了一句。\n", encoding="utf-8")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog), limit=3000), "no rebuild offer"
        assert "第3章被手动修改" in app.screen.message  # type: ignore[attr-defined]
        assert 3 in screen.marks.edited
