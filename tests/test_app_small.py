"""Small things the author sees (issue 12, item 8): help at 80x24 shows its close key, a remapped key shows in
the footer and in help, the copy notice counts 字 as the outline does, `demo` says where the novel is."""

from __future__ import annotations

from pathlib import Path

import pytest

from screens.help_screen import HelpScreen
from studio.cli import demo_cmd
from studio.cli import main as cli_main
from studio.i18n import chars_text
from studio.views.outline_rows import find_chapter
from tests.tui_helpers import main_screen, make_app, notes
from widgets import compat


async def test_help_at_80x24_shows_its_close_key(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        lines = compat.screen_lines(app.screen)
        assert any("Esc / q / ? 关闭" in line for line in lines), "\n".join(lines)
        assert any("快捷键" in line for line in lines)


async def test_remapped_keys_show_in_footer_and_help(sample: Path) -> None:
    settings = sample / "novel-studio.toml"
    settings.write_text(
        settings.read_text(encoding="utf-8") + '\n[ui.keymap]\nsearch = "s"\nhelp = "h"\n', encoding="utf-8"
    )
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        await pilot.pause()
        footer = compat.screen_lines(app.screen)[-1]
        assert "s 搜索" in footer and "/ 搜索" not in footer
        rows = dict((desc, key) for key, desc in main_screen(app).binding_rows())
        assert rows["搜索"] == "s" and rows["帮助"] == "h"
        await pilot.press("h")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert any(line.startswith("s ") and "搜索" in line for line in app.screen.lines())


async def test_copy_notice_counts_like_the_outline(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        monkeypatch.setattr(app, "copy_to_clipboard", lambda text: None)
        screen = main_screen(app)
        await pilot.press("y")
        await pilot.pause()
        row = find_chapter(screen.outline.rows, 2)
        assert row is not None and row.word_count
        assert f"（{chars_text(row.word_count, 'zh')}）" in notes(app)


def test_demo_says_where_the_novel_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    opened: list[Path] = []

    def launch(root: Path, *, lang: str, offline: bool, welcome: bool = False) -> int:
        opened.append(root)
        return 0

    monkeypatch.setattr(demo_cmd, "_stdout_is_terminal", lambda: True)
    monkeypatch.setattr(cli_main, "launch_studio", launch)
    target = tmp_path / "demo-novel"
    assert cli_main.main(["demo", str(target)]) == 0
    out = capsys.readouterr().out
    assert opened == [target]
    assert f"示例小说在：{target}" in out and f"novel-studio --project {target}" in out
