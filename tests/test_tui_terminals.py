"""The studio over SSH (issue 4, section 8): it runs and renders the main screen with NO_COLOR, with 256 colours
(forced, or detected from TERM=xterm-256color without COLORTERM, as over SSH), with the ANSI theme, and keeps
Chinese text aligned by terminal cells (the outline's columns line up whatever the titles' lengths).

The frames are read from the compositor (what the driver would write) and turned into escape sequences with
the app's own console, so the colour checks see the bytes a terminal would get.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import textual.constants
from rich.cells import cell_len
from textual.strip import Strip

from pipeline.providers.offline import OfflineProvider
from studio.tui.app import NovelStudioApp
from tests.tui_helpers import RecordingStudio
from widgets.outline_tree import STATUS_MARKS

BENCH = Path(__file__).resolve().parent.parent / "bench"
MARKS = "".join(STATUS_MARKS.values())
TRUECOLOR = re.compile(r"\x1b\[[0-9;]*[34]8;2;")
COLOR_256 = re.compile(r"\x1b\[[0-9;]*[34]8;5;")
RGB = re.compile(r"[34]8;2;(\d+);(\d+);(\d+)")


def _synth() -> ModuleType:
    spec = importlib.util.spec_from_file_location("novel_studio_bench_synth_terminals", BENCH / "synth.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def terminal(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The terminal the app believes it runs in (set before the app is built: Textual reads it at init)."""
    kind: str = request.param
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("COLORTERM", "truecolor")
    if kind == "no_color":
        monkeypatch.setenv("NO_COLOR", "1")
    elif kind in ("color_256", "ansi_theme_256"):
        monkeypatch.setattr(textual.constants, "COLOR_SYSTEM", "256")  # TEXTUAL_COLOR_SYSTEM=256
    elif kind == "xterm_256color":
        monkeypatch.setattr(textual.constants, "COLOR_SYSTEM", "auto")
        monkeypatch.setenv("TERM", "xterm-256color")
        monkeypatch.delenv("COLORTERM")  # often not forwarded over SSH
    yield kind


def make_app(root: Path) -> NovelStudioApp:
    return RecordingStudio(
        root, lang="zh", offline=True, provider_factory=lambda s: OfflineProvider(delay_s=0), clock=lambda: 0.0
    )


def frame(app: NovelStudioApp, *, fresh: bool = True) -> tuple[list[Strip], str]:
    """The current screen as one Strip per line, and as the escape sequences a terminal would receive.

    `fresh`: the frame's styles forget the ANSI codes rich kept on them (`Style._ansi`, kept whatever the colour
    system). Either way the strips render again (`Strip.render` keeps its text), as in a frame drawn anew. Styles are shared by every app of a process (rich caches parsed and combined styles), so another
    test's truecolor rendering in this worker (a plain App's SVG snapshot) would otherwise decide these codes.
    The studio's own process renders truecolor only for a screenshot, which keeps them clean (tested below)."""
    update: Any = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    _forget_codes(update, styles=fresh)
    lines = [Strip.join(list(chops)) for chops in update.strips]
    return lines, update.render_segments(app.console)


def _forget_codes(update: Any, *, styles: bool) -> None:
    """The update's strips render again (`Strip.render` keeps its text), as in a frame drawn anew; `styles`: its
    styles also forget the codes rich kept on them."""
    for chops in update.strips:
        for strip in chops:
            strip._render_cache = None
            for segment in strip:
                if styles and segment.style is not None:
                    segment.style._ansi = None


def pane_lines(app: NovelStudioApp, pane_id: str) -> list[str]:
    """The text inside a pane's border, cut by terminal cells."""
    lines, _ = frame(app)
    region = app.screen.query_one(pane_id).region
    return [line.crop(region.x + 1, region.right - 1).text for line in lines[region.y + 1 : region.bottom - 1]]


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
@pytest.mark.parametrize("terminal", ["no_color", "color_256", "xterm_256color", "ansi_theme_256"], indirect=True)
async def test_main_screen_renders(sample: Path, terminal: str, size: tuple[int, int]) -> None:
    app = make_app(sample)
    async with app.run_test(size=size) as pilot:
        if terminal == "ansi_theme_256":
            app.theme = "ansi-dark"
        await pilot.pause()
        screen = app.main_screen
        assert screen is not None and app.screen is screen
        lines, raw = frame(app)
        width, height = size
        assert len(lines) == height
        assert all(cell_len(line.text) == width for line in lines)  # no CJK cell miscount anywhere
        text = "\n".join(line.text for line in lines)

        # the header: offline marker, book totals and provider, never cut (two lines below 120 columns)
        header = "\n".join(line.text for line in lines[: screen.header.region.height])
        for needle in ("雾港守灯人", "离线模式", "全书", "模型：离线"):
            assert needle in header, header
        assert screen.header.region.height == (2 if width < 120 else 1)

        for title in ("大纲", "正文", "状态变更", "评分"):  # pane titles (wide) or tabs (narrow)
            assert title in text
        assert "守灯司的规矩" in text  # the chapter pane's title
        if width >= 100:
            assert "第1章" in text and "子时送单" in text and "2725字" in text  # outline rows

        if terminal == "no_color":
            assert app.no_color
            assert all(r == g == b for r, g, b in RGB.findall(raw)), "NO_COLOR frames must be greyscale"
        else:
            assert app.console.color_system == "256"
            assert not TRUECOLOR.search(raw), "a 256-colour terminal must not get 24-bit colours"
            if terminal != "ansi_theme_256":  # the ANSI theme uses the terminal's own 16 colours
                assert COLOR_256.search(raw)


@pytest.mark.parametrize("terminal", ["color_256"], indirect=True)
async def test_a_screenshot_leaves_a_256_colour_terminal_without_24_bit_colours(sample: Path, terminal: str) -> None:
    """Regression: Textual records a screenshot by printing the frame to a truecolor console, and rich keeps
    each style's ANSI codes on the style whatever the colour system, so every frame after a screenshot sent the
    shared styles' 24-bit codes to a 256-colour terminal. The studio's screenshot is the same SVG, made
    without them (`widgets.compat.export_screenshot`)."""
    from textual.app import App

    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        _forget_codes(app.screen._compositor.render_update(full=True), styles=True)  # none kept (see `frame`)
        svg = app.export_screenshot()
        _, raw = frame(app, fresh=False)  # the codes as the screenshot left them
        assert app.console.color_system == "256"
        assert not TRUECOLOR.search(raw), "a frame after a screenshot must keep to 256 colours"
        assert COLOR_256.search(raw)
        assert svg == App.export_screenshot(app)  # Textual's own SVG, byte for byte (taken last: it leaves codes)


def _outline_rows(app: NovelStudioApp) -> list[str]:
    return [line for line in pane_lines(app, "#pane-outline") if re.search(r"第\d+章", line)]


def _offset(line: str, index: int) -> int:
    return cell_len(line[:index])


def _assert_columns_align(rows: list[str]) -> None:
    words_end: set[int] = set()
    marks: set[int] = set()
    titles: set[int] = set()
    for row in rows:
        number = re.search(r"第\d+章", row)
        assert number is not None
        mark = next((i for i in range(number.end(), len(row)) if row[i] in MARKS), None)
        assert mark is not None, row
        marks.add(_offset(row, mark))
        title = row[number.end() : mark].strip().split(" ")[0]
        titles.add(cell_len(title))
        words = re.search(r"\d[\d,]*字", row)
        if words is not None:
            words_end.add(_offset(row, words.end()))
    assert len(titles) > 1, f"the rows should have titles of different widths: {rows}"
    assert len(words_end) == 1, f"word counts not aligned by cells: {rows}"
    assert len(marks) == 1, f"status marks not aligned by cells: {rows}"


async def test_outline_columns_align_on_the_sample(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        rows = _outline_rows(app)
        assert len(rows) >= 5
        assert sum("字" in row for row in rows) >= 2  # 子时送单 (4 CJK) and 守灯司的规矩 (6 CJK) are committed
        _assert_columns_align(rows)


async def test_outline_columns_align_on_two_digit_chapters(tmp_path: Path) -> None:
    root = tmp_path / "synth"
    _synth().generate_project(root, 14, chars_per_chapter=300)
    app = make_app(root)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        rows = _outline_rows(app)
        committed = [row for row in rows if "字" in row]
        assert len(committed) >= 6  # the tree scrolls to the last chapter; the rows in view are enough
        assert {"第9章", "第10章"} <= {m.group(0) for row in rows if (m := re.search(r"第\d+章", row))}
        _assert_columns_align(rows)


def test_header_layout_by_width() -> None:
    from widgets.studio_header import HeaderInfo, header_lines, render_header

    info = HeaderInfo(title="雾港守灯人", volume=1, chapter=3, state="running", stage="draft", provider="deepseek",
                      offline=True, run_tokens=123_456, run_cost=0.42, project_tokens=2_345_678, project_cost=31.5)
    for lang in ("zh", "en"):
        wide = render_header(info, lang, elapsed=75, width=158).plain
        assert "\n" not in wide and cell_len(wide) <= 158
        narrow = render_header(info, lang, elapsed=75, width=78).plain.split("\n")
        assert len(narrow) == 2 and all(cell_len(line) <= 78 for line in narrow)
        assert "deepseek" in narrow[1] and ("234.6万" if lang == "zh" else "2.35M") in narrow[1] and "$31.50" in narrow[1]
        assert "1:15" in narrow[0]
    # a long title is shortened (never the totals), and may push a wide header onto two lines
    long = HeaderInfo(title="一个非常非常长的书名" * 4, volume=12, chapter=345, offline=True, provider="offline")
    lines = render_header(long, "zh", width=78).plain.split("\n")
    assert lines[0].startswith("《一个") and "…" in lines[0] and cell_len(lines[0]) <= 78
    assert "全书" in lines[1] and "模型：离线" in lines[1]
    assert header_lines(long, "zh", width=158) == 2
    assert header_lines(HeaderInfo(title="短"), "zh", width=158) == 1
    assert header_lines(HeaderInfo(title="短"), "zh") == 1  # no width: the one-line form
