"""The main screen's footer shows whole keys only (issue 12): at 80x24 Textual's footer let the last keys run
under the command palette's key, cut mid-word ("r 审阅润▏^p 命令面板"). Keys that do not fit give way whole
from the right; help, quit and the palette stay (every hidden key is reachable through them), also when
remapped; a resize hides or shows keys without rebuilding the footer."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.i18n import Lang
from tests.tui_helpers import main_screen, make_app
from widgets import compat
from widgets.compat import FooterKey
from widgets.instant_keys import StudioFooter, fitted

SIZES = [(80, 24), (100, 30), (160, 48)]


def test_fitted_gives_way_from_the_right_and_keeps_what_it_must() -> None:
    assert fitted([5, 5, 5], [False, False, False], 15) == [True, True, True]
    assert fitted([5, 5, 5], [False, False, False], 14) == [True, True, False]
    # a kept key stays; the keys left of it give way instead
    assert fitted([5, 5, 5], [False, False, True], 10) == [True, False, True]
    # whole keys in a stable order: a small key further right never takes the place of a wide one
    assert fitted([5, 9, 2], [False, False, False], 8) == [True, False, False]
    # nothing but kept keys left: they stay even when they do not fit
    assert fitted([5, 5], [True, True], 3) == [True, True]


def _keys(footer: StudioFooter) -> tuple[list[FooterKey], FooterKey]:
    keys = list(footer.query_children(FooterKey))
    palette = next(key for key in keys if key.has_class("-command-palette"))
    return [key for key in keys if key is not palette], palette


def _check_whole(footer: StudioFooter, line: str) -> list[str]:
    """The descriptions shown; each shown key lies left of the palette's key, whole, in the footer's line."""
    row, palette = _keys(footer)
    shown = []
    for key in row:
        if not key.display:
            continue
        description = key.description
        assert key.region.right <= palette.region.x, f"{description!r} runs under the palette key"
        assert f"{key.key_display} {description}" in line, (description, line)
        shown.append(description)
    for key in row:
        if not key.display:  # a hidden key leaves no piece behind
            assert key.description not in line, line
    assert line.rstrip().endswith(f"{palette.key_display} {palette.description}"), line
    return shown


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_footer_shows_whole_keys(sample: Path, size: tuple[int, int], lang: Lang) -> None:
    app = make_app(sample, lang=lang)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.pause()
        footer = main_screen(app).query_one(StudioFooter)
        shown = _check_whole(footer, compat.screen_lines(app.screen)[-1])
        help_, quit_ = ("帮助", "退出") if lang == "zh" else ("Help", "Quit")
        assert help_ in shown and quit_ in shown
        first = "写下一章" if lang == "zh" else "Write next chapter"
        assert first in shown  # the keys give way from the right: the first one is the last to go
        if size == (160, 48) and lang == "zh":
            assert len(shown) == len(_keys(footer)[0])  # room for all


async def test_resize_hides_and_shows_keys_without_rebuilding(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        await pilot.pause()
        footer = main_screen(app).query_one(StudioFooter)
        built = footer.recompose_count
        counts = []
        for size in ((80, 24), (100, 30), (160, 48), (80, 24)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
            await pilot.pause()
            counts.append(len(_check_whole(footer, compat.screen_lines(app.screen)[-1])))
        assert counts[0] < counts[1] < counts[2] and counts[3] == counts[0]
        assert footer.recompose_count == built


async def test_remapped_help_key_stays_at_80x24(sample: Path) -> None:
    settings = sample / "novel-studio.toml"
    settings.write_text(
        settings.read_text(encoding="utf-8") + '\n[ui.keymap]\nhelp = "h"\nquit = "Q"\nwrite_next = "w"\n',
        encoding="utf-8",
    )
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.pause()
        footer = main_screen(app).query_one(StudioFooter)
        line = compat.screen_lines(app.screen)[-1]
        _check_whole(footer, line)
        assert "h 帮助" in line and "Q 退出" in line and "w 写下一章" in line
        assert "? 帮助" not in line

