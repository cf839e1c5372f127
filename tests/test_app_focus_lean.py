"""The main screen's partial repaints (`widgets.compat.LeanCompositor`): the same output as Textual's, for a
fraction of the work (issue 12, instant keys).

Twin: every partial update of the main screen is made twice on the same dirty regions, by Textual's
`Compositor.render_partial_update` and by the lean one, and what each would write to the terminal
(`ChopsUpdate.render_segments`) must be equal, through pane switches (wide and narrow), chapter selection,
scrolling, help, toasts over the panes and a draft streaming in.

Work: a pane switch renders the two panes (their borders) and nothing inside them. Before, Textual rendered
every widget under the box around the dirty regions (the outline, the chapter text and their containers, on
every line: ~16 ms of CPU per switch), and the chapter text repainted its (hidden) cursor's line on each
focus change.
"""

from __future__ import annotations

import contextlib
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget
from textual.worker import WorkerCancelled

from tests.bench_loader import load_bench
from tests.test_app_focus import _border_strips
from tests.tui_helpers import RecordingStudio, main_screen, wait_for
from widgets.compat import LeanCompositor
from widgets.pane import Pane

FLUSH_DELTA = "沈照把灯往前递了半寸，雾里的人影没有动。"


@pytest.fixture
def novel(tmp_path: Path) -> Path:
    root = tmp_path / "novel"
    load_bench("bench_tui").generate_project(root, 30, chars_per_chapter=1500)
    return root


IDLE_MOVE = re.compile(r"\x1b\[\d+;\d+H(?=\x1b\[\d+;\d+H|\n|$)")


def shown(output: str) -> str:
    """Terminal output less its cursor moves that nothing is written after (Textual writes an empty piece
    where a cut lies at a dirty span's end: a move to it and no text, which changes nothing on the screen)."""
    return IDLE_MOVE.sub("", output)


def first_difference(want: str, have: str) -> tuple[int, str, str]:
    """Where two terminal outputs first differ: (index, want's piece, have's piece), cut at cursor moves."""
    a, b = re.split(r"(?=\x1b\[\d+;\d+H)", want), re.split(r"(?=\x1b\[\d+;\d+H)", have)
    for index, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return index, x, y
    return min(len(a), len(b)), "".join(a[len(b):]), "".join(b[len(a):])


class Twin:
    """Each partial update of a `LeanCompositor` made by Textual's compositor as well; the outputs compared."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.compared = 0
        self.mismatches: list[tuple[str, str]] = []
        self.console: Any = None
        lean = LeanCompositor.render_partial_update

        def twin(compositor: LeanCompositor) -> ChopsUpdate | None:
            regions = set(compositor._dirty_regions)
            expected = Compositor.render_partial_update(compositor)
            compositor._dirty_regions.update(regions)
            got = lean(compositor)
            want = "" if expected is None else shown(expected.render_segments(self.console))
            have = "" if got is None else shown(got.render_segments(self.console))
            if want != have:
                self.mismatches.append((want, have))
            self.compared += 1
            return got

        monkeypatch.setattr(LeanCompositor, "render_partial_update", twin)


async def test_lean_repaints_write_what_textual_writes(novel: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    twin = Twin(monkeypatch)
    provider = load_bench("bench_tui").HeldStreamProvider(chars=900)
    app = RecordingStudio(novel, lang="zh", offline=True, provider_factory=lambda settings: provider)
    twin.console = app.console
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        assert isinstance(screen._compositor, LeanCompositor)
        keys = ["1", "2", "3", "4", "tab", "shift+tab", "1", "up", "up", "down", "k", "j", "2", "pagedown",
                "pageup", "j", "end", "home", "question_mark", "escape", "1"]
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        app.notify("第三章的评分低于阈值，需要复查：人物动机与上一章矛盾。" * 2, timeout=30)  # a toast over the panes
        await pilot.pause(0.3)
        for key in ("2", "1", "up", "down", "2", "pagedown"):
            await pilot.press(key)
            await pilot.pause()
        await pilot.resize_terminal(80, 24)  # narrow: one pane at a time, under a tab bar
        await pilot.pause(0.3)
        for key in ("1", "2", "3", "4", "1", "down", "up", "2", "pagedown"):
            await pilot.press(key)
            await pilot.pause()
        await pilot.resize_terminal(160, 48)
        await pilot.pause(0.3)
        await pilot.press("1")
        await pilot.press("c")
        view = screen.chapter_view
        try:
            assert await wait_for(
                pilot, lambda: view.is_streaming and len(view.text) >= provider.chars and not view._buffer, 1500)
            for key in ("up", "down", "2", "1"):
                view.append(FLUSH_DELTA)
                await pilot.press(key)
                await pilot.pause(0.2)
        finally:
            provider.release()
            screen.runner.stop()
            with contextlib.suppress(WorkerCancelled):
                await app.workers.wait_for_complete()
    assert twin.compared >= 40, twin.compared
    assert not twin.mismatches, (len(twin.mismatches), first_difference(*twin.mismatches[0]))


async def test_a_pane_switch_renders_the_two_panes_borders_alone(
    novel: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`1`/`2`: every dirty region lies on the two panes' borders, and no widget inside a pane renders a line."""
    rendered: Counter[str] = Counter()
    dirty: list[Region] = []
    render_lines, update_widgets = Widget.render_lines, Compositor.update_widgets

    def spy_render(widget: Widget, crop: Region) -> list[Strip]:
        rendered[type(widget).__name__] += 1
        return render_lines(widget, crop)

    def spy_update(compositor: Compositor, widgets: set[Widget]) -> None:
        update_widgets(compositor, widgets)
        dirty.extend(compositor._dirty_regions)

    app = RecordingStudio(novel, lang="zh", offline=True)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        await pilot.press("2")
        await pilot.pause(0.2)
        monkeypatch.setattr(Widget, "render_lines", spy_render)
        monkeypatch.setattr(Compositor, "update_widgets", spy_update)
        outline, chapter = (screen.query_one(f"#pane-{name}", Pane) for name in ("outline", "chapter"))
        borders = _border_strips(outline) + _border_strips(chapter)
        for key in ("1", "2", "1", "2"):
            rendered.clear()
            dirty.clear()
            await pilot.press(key)
            await pilot.pause()
            await pilot.pause(0.1)
            assert outline.shows_focused == (key == "1") and chapter.shows_focused == (key == "2")
            assert dirty, "the focused look was not repainted"
            for region in dirty:
                assert any(border.contains_region(region) for border in borders), region
            assert set(rendered) <= {"Pane"}, rendered
            assert rendered["Pane"] <= 2, rendered


async def test_going_back_to_a_chapter_does_not_typeset_it_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Up / down between neighbours: each stored chapter is typeset once per width; an edited text, a new width
    and a draft are typeset anew."""
    import widgets.chapter_view as chapter_view
    from tests.tui_helpers import WidgetApp

    typeset = chapter_view.typeset
    calls: list[tuple[str, int]] = []

    def counting(text: str, width: int) -> Any:
        calls.append((text[:4], width))
        return typeset(text, width)

    monkeypatch.setattr(chapter_view, "typeset", counting)
    texts = {n: f"# 第{n}章 雾\n\n" + "　　沈照把灯往前递了半寸，雾里的人影没有动。" * (20 + n) for n in (1, 2, 3)}
    app = WidgetApp(chapter_view.ChapterView(id="chapter"))
    async with app.run_test(size=(60, 20)) as pilot:
        view = app.widget
        await pilot.pause()
        calls.clear()
        for n in (1, 2, 1, 2, 3, 1):
            view.show_text(texts[n], title=f"第{n}章 雾")
            await pilot.pause()
            assert view.display_layout == typeset(texts[n], view.display_layout.width)
        assert len(calls) == 3, calls
        view.show_text(texts[1] + "又一段。", title="第1章 雾")  # edited by hand: typeset again
        assert len(calls) == 4, calls
        view.begin_stream("第4章", "草稿")
        view.show_text(texts[2], title="第2章 雾")
        assert len(calls) == 5, calls  # the draft; chapter 2 came back as it was
        await pilot.resize_terminal(40, 20)  # a new width: typeset again
        await pilot.pause(0.2)
        calls.clear()
        view.show_text(texts[1], title="第1章 雾")
        assert len(calls) == 1, calls


@pytest.mark.parametrize("width", [0, 1, 2, 3, 7, 20, 76])
def test_wrap_fitting_makes_textuals_wrap_tables(width: int) -> None:
    """`compat.wrap_fitting` skips measuring the lines that cannot be wider than the width; every table it
    makes is the one `WrappedDocument.wrap` makes (tabs, wide and zero-width characters, long lines)."""
    import random

    from textual.document._document import Document
    from textual.document._wrapped_document import WrappedDocument

    from widgets.compat import wrap_fitting

    rng = random.Random(width)
    alphabet = [*"雾港灯塔沈照。，“”", "a", "b c", " ", "\t", "e\u0301", "😀", "Latin words here ", "　　"]
    lines = ["", "雾" * (width // 2), "雾" * (width // 2 + 1), "a" * width, "a" * (width + 1), "\t雾"]
    lines += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60))) for _ in range(200)]
    text = "\n".join(lines)
    theirs, mine = WrappedDocument(Document(text)), WrappedDocument(Document(text))
    theirs.wrap(width, 4)
    wrap_fitting(mine, width, 4)
    for table in ("_width", "_tab_width", "_wrap_offsets", "_offset_to_line_info", "_line_index_to_offsets",
                  "_tab_width_cache"):
        assert getattr(mine, table) == getattr(theirs, table), table
    assert mine.lines == theirs.lines and mine.height == theirs.height
