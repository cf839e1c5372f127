"""Textual's own words in the Chinese studio (issue 12, item 4): the keys panel's built-in keys
(`screens.keys_panel`), the theme picker's placeholder and the screenshot toasts (`studio.tui.app`)."""

from __future__ import annotations

import re
from pathlib import Path

from rich.table import Table
from textual.command import CommandPalette
from textual.widgets import Input

from screens.search_screen import SearchScreen
from tests.tui_helpers import make_app, notes, wait_for
from widgets import compat
from widgets.instant_keys import ReaderArea

_WORD = re.compile(r"[A-Za-z]{2,}")


def panel_rows(app: object) -> list[tuple[str, str]]:
    """The keys panel's (key, description) rows, as drawn."""
    table = app.screen.query_one("BindingsTable").render()  # type: ignore[attr-defined]
    assert isinstance(table, Table)
    keys, descriptions = (list(column.cells) for column in table.columns[:2])
    return [(str(k), str(d)) for k, d in zip(keys, descriptions, strict=True) if str(d).strip()]


async def test_keys_panel_is_chinese_in_every_pane_and_dialog(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        app.action_show_help_panel()
        await pilot.pause()
        seen: set[str] = set()
        for _ in range(4):  # the chapter text, the diff, the scores, the outline
            await pilot.pause()
            rows = panel_rows(app)
            assert len(rows) > 10, rows
            english = [(k, d) for k, d in rows if _WORD.search(d)]
            assert not english, (type(app.focused).__name__, english)
            if isinstance(app.focused, ReaderArea):
                # a read-only pane read like a pager: scroll keys, no editing or cursor keys
                texts = {d for _, d in rows}
                assert "向下翻页" in texts and "向下滚动" in texts
                assert not any(word in text for text in texts for word in ("删除", "粘贴", "剪切", "撤销输入", "行首"))
            seen.add(type(app.focused).__name__)
            await pilot.press("tab")
        assert {"ReaderArea", "OutlineTree"} <= seen, seen

        await pilot.press("slash")  # a dialog with an Input: its editing keys, in Chinese
        assert await wait_for(pilot, lambda: isinstance(app.screen, SearchScreen))
        await pilot.pause()
        assert isinstance(app.focused, Input)
        app.action_show_help_panel()
        await pilot.pause()
        await pilot.pause()
        rows = panel_rows(app)
        assert any(d == "删除左边一个字" for _, d in rows), rows
        assert ("", "输入框") in rows  # the heading of the Input's keys
        assert not [(k, d) for k, d in rows if _WORD.search(d)]


async def test_keys_panel_with_nothing_focused(sample: Path) -> None:
    """The screen's and the app's own keys alone (ctrl+q, copy) are localised too."""
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        app.screen.set_focus(None)
        await pilot.pause()
        app.action_show_help_panel()
        await pilot.pause()
        await pilot.pause()
        assert app.focused is None
        rows = panel_rows(app)
        assert ("^q", "立即退出") in rows, rows
        assert not [(k, d) for k, d in rows if _WORD.search(d)]


async def test_english_keys_panel_keeps_english(sample: Path) -> None:
    app = make_app(sample, lang="en")
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        app.action_show_help_panel()
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.focused, ReaderArea)
        texts = {d for _, d in panel_rows(app)}
        assert {"Scroll down", "Page down", "Write next chapter"} <= texts, texts
        assert "Delete line" not in texts and "Cursor up" not in texts


async def test_theme_picker_placeholder_is_chinese(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.action_change_theme()
        assert await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette) and bool(app.screen.query(Input)))
        assert app.screen.query_one(Input).placeholder == "搜索配色主题…"


async def test_screenshot_toasts_are_chinese(sample: Path, tmp_path: Path) -> None:
    shots = tmp_path / "shots"
    shots.mkdir()
    not_a_folder = tmp_path / "a-file"
    not_a_folder.write_text("x", encoding="utf-8")
    app = make_app(sample)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.deliver_screenshot(path=str(shots))
        assert await wait_for(pilot, lambda: "截图已保存" in notes(app)), notes(app)
        assert list(shots.glob("*.svg"))
        app.deliver_screenshot(path=str(not_a_folder))
        assert await wait_for(pilot, lambda: "截图保存失败" in notes(app)), notes(app)
        assert "Saved screenshot" not in notes(app) and "Failed" not in notes(app)


async def test_english_screenshot_toast(sample: Path, tmp_path: Path) -> None:
    app = make_app(sample, lang="en")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.deliver_screenshot(path=str(tmp_path))
        assert await wait_for(pilot, lambda: "Screenshot saved to" in notes(app)), notes(app)


async def test_palette_says_no_matches_in_chinese(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+p")
        assert await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette) and bool(app.screen.query(Input)))
        await pilot.press(*"9999999")

        def shown() -> str:
            return "\n".join(compat.screen_lines(app.screen))

        # Textual says so after its countdown (0.5 s): in English before
        assert await wait_for(pilot, lambda: "没有匹配" in shown() or "No matches" in shown(), limit=1000), shown()
        assert "没有匹配的结果" in shown() and "No matches" not in shown(), shown()
