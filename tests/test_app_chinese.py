"""The Chinese studio speaks Chinese: gate notices, the footer's palette key, the command palette (issue 12,
item 4). The English studio keeps English."""

from __future__ import annotations

import re
from pathlib import Path

from textual.command import CommandPalette
from textual.widgets import Input

from tests.tui_helpers import main_screen, make_app, notes, run_to_end, wait_for
from widgets import compat

_WORD = re.compile(r"[A-Za-z_]{3,}")


async def test_gate_notice_is_chinese_with_its_band(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await run_to_end(app, pilot)
        gate = [line for line in notes(app).splitlines() if line.startswith("第3章评审")]
        assert gate, notes(app)
        for line in gate:
            assert not _WORD.search(line), line  # no "pass", "polish", "overall", "gate_low"
            assert "综合" in line
        assert "写作" in main_screen(app).header.plain() and "WRITING" not in main_screen(app).header.plain()


async def test_notes_keep_a_toast_that_expired(sample: Path) -> None:
    """The gate notice is a 4 s toast and a run under load can outlast it: `notes` reads the app's history of
    notifications, not the live toasts (this toast has expired before it is read)."""
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.notify("第9章评审：综合 4.20", timeout=0.01)
        await pilot.pause()
        assert await wait_for(pilot, lambda: all(n.has_expired for n in app._notifications._notifications.values()))
        assert not list(app._notifications)  # the live list has dropped it
        assert "第9章评审：综合 4.20" in notes(app)


async def test_footer_and_palette_are_chinese(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        await pilot.pause()
        assert "命令面板" in compat.screen_lines(app.screen)[-1]
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        assert app.screen.query_one(Input).placeholder == "搜索命令…"
        titles = [command.title for command in app.get_system_commands(main_screen(app))]
        assert "主题" in titles and "Theme" not in titles


async def test_english_studio_keeps_english(sample: Path) -> None:
    app = make_app(sample, lang="en")
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        await pilot.pause()
        assert "palette" in compat.screen_lines(app.screen)[-1]
        titles = [command.title for command in app.get_system_commands(main_screen(app))]
        assert "Theme" in titles
