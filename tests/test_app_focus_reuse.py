"""What a chapter selection reuses (issue 12, instant keys), and that it never shows stale text.

- The panes' rows are styled once per frame (`widgets.compat.PlainRowStyles`), with the same strips as Textual's
  `StylesCache`: compared row for row for the chapter text, the diff and scores panes, and a widget with a
  border and a tint (drawn Textual's way).
- The chapter pane's rows are built from the document once per frame (`compat.PlainRows`) and reused for the
  same line text; the diff and scores panes keep the wrapped lines of the texts shown last (`TextPane`).
  Going back to the chapter before builds and wraps nothing again; nor does going on to a neighbour never shown,
  once the studio has idled (the neighbours are prepared then: `MainScreen._prepare_neighbours`).
- The reuse is keyed by the text itself, never by a file's stat: a chapter or an evaluation edited by hand
  (same size, same modification time) shows its new text when selected again, also after it was prepared.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual._styles_cache import StylesCache
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from tests.tui_helpers import main_screen, make_app
from widgets import compat
from widgets.chapter_view import ChapterView
from widgets.compat import PlainRows, PlainRowStyles
from widgets.text_pane import TextPane

TEXT = "\n".join(
    [f"　　第{i}段，沈照把灯往前递了半寸，雾里的人影没有动。" for i in range(30)]
    + ["", "ABC\tDEF 有一个制表符", "雾" * 80, "“明天，”他终于开口，“明天再来。”", ""]
)


def _textual_rows(widget: Widget) -> list[Strip]:
    """`widget`'s rows as Textual's own `StylesCache` styles them."""
    mine = widget._styles_cache
    widget._styles_cache = StylesCache()
    try:
        return widget.render_lines(Region(0, 0, widget.outer_size.width, widget.outer_size.height))
    finally:
        widget._styles_cache = mine


def _rows(widget: Widget) -> list[Strip]:
    widget._styles_cache.clear()
    return widget.render_lines(Region(0, 0, widget.outer_size.width, widget.outer_size.height))


class Body(TextPane):
    def initial_body(self) -> Text:
        return Text("\n".join(f"第{i}行 " + "状态变更" * (i % 7) for i in range(40)), style="bold")


class Framed(Static):
    DEFAULT_CSS = "Framed { border: round $accent; padding: 1 2; tint: red 20%; height: 8; }"


class Panes(App[None]):
    CSS = "ChapterView { height: 20; } Body { height: 12; padding: 1 2; }"

    def compose(self) -> ComposeResult:
        yield ChapterView(id="chapter")
        yield Body(id="body")
        yield Framed("有边框的\n两行")


async def test_rows_styled_once_per_frame_are_textuals_rows() -> None:
    app = Panes()
    async with app.run_test(size=(70, 44)) as pilot:
        view = app.query_one(ChapterView)
        view.show_text(TEXT, title="第3章 雾")
        body = app.query_one(Body)
        framed = app.query_one(Framed)
        compat.use_plain_row_styles(framed)
        await pilot.pause()
        area = view.text_area
        assert isinstance(area._styles_cache, PlainRowStyles) and isinstance(body._styles_cache, PlainRowStyles)
        for top in (0, 7, area.max_scroll_y):
            area.scroll_to(y=top, animate=False, immediate=True)
            body.scroll_to(y=min(top, body.max_scroll_y), animate=False, immediate=True)
            await pilot.pause()
            for widget in (area, body, framed):
                mine, textual = _rows(widget), _textual_rows(widget)
                assert len(mine) == len(textual) == widget.outer_size.height
                for y, (a, b) in enumerate(zip(mine, textual, strict=True)):
                    assert a == b and a.cell_length == b.cell_length, (type(widget).__name__, top, y)
        assert body.scroll_y > 0 and area.scroll_y == area.max_scroll_y


async def test_going_back_to_a_chapter_builds_and_wraps_nothing_again(
    sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[str] = []
    wrapped: list[str] = []
    build, wrap = PlainRows._build, TextPane._wrap

    def spy_build(self: PlainRows, text: str) -> Strip:
        built.append(text)
        return build(self, text)

    def spy_wrap(self: TextPane, width: int, *, selected: bool, body: Text | None = None) -> list[Strip]:
        if body is None:  # the text shown (not a neighbour prepared while idle: `TextPane.prepare_body`)
            wrapped.append(type(self).__name__)
        return wrap(self, width, selected=selected, body=body)

    monkeypatch.setattr(PlainRows, "_build", spy_build)
    monkeypatch.setattr(TextPane, "_wrap", spy_wrap)
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        numbers = screen.project.committed_chapters()
        assert len(numbers) >= 2
        await pilot.press("1")
        for n in (numbers[0], numbers[1]):
            screen.outline.select_chapter(n)
            await pilot.pause()
            assert screen.selected == n
        built.clear()
        wrapped.clear()
        screen.outline.select_chapter(numbers[0])
        await pilot.pause()
        await pilot.pause()
        assert screen.selected == numbers[0]
        assert screen.chapter_view.text_area.document.text.strip()
        assert built == [] and wrapped == []
        # and what is drawn is what a fresh pane draws
        for widget in (screen.chapter_view.text_area, screen.diff_view, screen.scores_view):
            assert _rows(widget) == _textual_rows(widget)


def _edit_keeping_stat(path: Path, edit: Any) -> None:
    """Rewrite `path` with `edit(text)` (the same size), then give it back its modification time."""
    before = path.stat()
    text = path.read_text(encoding="utf-8")
    changed = edit(text)
    assert changed != text and len(changed.encode()) == before.st_size
    path.write_text(changed, encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


async def test_a_file_edited_by_hand_same_size_same_time_shows_its_new_text(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        numbers = screen.project.committed_chapters()
        n, other = numbers[0], numbers[1]
        await pilot.press("1")
        screen.outline.select_chapter(n)
        await pilot.pause()
        old_text = screen.chapter_view.text_area.document.text
        old_scores = screen.scores_view.body_text
        word = next(ch for ch in old_text if "\u4e00" <= ch <= "\u9fff")
        screen.outline.select_chapter(other)
        await pilot.pause()
        _edit_keeping_stat(screen.project.chapter_file(n), lambda text: text.replace(word, "雾"))
        evaluation = screen.project.paths.evaluation(n)
        assert evaluation.is_file()
        overall = screen.scores_view.body_text  # the other chapter's pane, to compare below
        _edit_keeping_stat(evaluation, lambda text: text.replace('"score": 4,', '"score": 2,', 1))
        screen.outline.select_chapter(n)
        await pilot.pause()
        await pilot.pause()
        shown = screen.chapter_view.text_area.document.text
        assert word != "雾" and word not in shown and shown == old_text.replace(word, "雾")
        assert "\n".join(s.text for s in _rows(screen.chapter_view.text_area)).count("雾") >= 1
        assert screen.scores_view.body_text != old_scores and screen.scores_view.body_text != overall


async def _prepared(pilot: Any, screen: Any) -> None:
    """Wait until the neighbours of the chapter shown have been prepared (`MainScreen._prepare_neighbours`)."""
    for _ in range(400):
        await pilot.pause(0.02)
        if not screen._to_prepare and screen._prepare_timer is None:
            return
    raise AssertionError("the neighbours were never prepared")


async def test_a_neighbour_prepared_while_idle_is_shown_without_typesetting_or_wrapping(
    sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a chapter is shown and the studio idles, the chapters before and after it are typeset and their
    diff and scores wrapped: the next arrow key only reads the file (a first visit costs what a revisit does)."""
    import widgets.chapter_view as chapter_view

    typeset_calls: list[int] = []
    wrapped: list[str] = []
    typeset, wrap = chapter_view.typeset, TextPane._wrap

    def spy_typeset(text: str, width: int, **kwargs: Any) -> Any:
        typeset_calls.append(width)
        return typeset(text, width, **kwargs)

    def spy_wrap(self: TextPane, width: int, *, selected: bool, body: Text | None = None) -> list[Strip]:
        if body is None:
            wrapped.append(type(self).__name__)
        return wrap(self, width, selected=selected, body=body)

    monkeypatch.setattr(chapter_view, "typeset", spy_typeset)
    monkeypatch.setattr(TextPane, "_wrap", spy_wrap)
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        numbers = screen.project.committed_chapters()
        assert len(numbers) >= 2
        await pilot.press("1")
        screen.outline.select_chapter(numbers[1])
        await pilot.pause()
        await _prepared(pilot, screen)
        assert screen.selected == numbers[1]
        typeset_calls.clear()
        wrapped.clear()
        screen.outline.select_chapter(numbers[0])  # never shown before
        await pilot.pause()
        assert screen.selected == numbers[0]
        assert typeset_calls == [] and wrapped == []
        assert screen.chapter_view.text_area.document.text.strip()
        for widget in (screen.chapter_view.text_area, screen.diff_view, screen.scores_view):
            assert _rows(widget) == _textual_rows(widget)


async def test_a_prepared_chapter_edited_by_hand_shows_its_new_text(sample: Path) -> None:
    """A neighbour prepared while idle, then edited by hand (same size, same modification time), and its
    evaluation too: selected, it shows the file's new text and the new scores, not what was prepared."""
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        numbers = screen.project.committed_chapters()
        n, other = numbers[0], numbers[1]
        await pilot.press("1")
        screen.outline.select_chapter(n)
        await pilot.pause()
        old_text = screen.chapter_view.text_area.document.text
        old_scores = screen.scores_view.body_text
        screen.outline.select_chapter(other)
        await pilot.pause()
        await _prepared(pilot, screen)  # `n` prepared: its layout and its panes' lines remembered
        assert any(source == screen.project.chapter_text(n) for source, _ in screen.chapter_view._remembered)
        word = next(ch for ch in old_text if "\u4e00" <= ch <= "\u9fff")
        _edit_keeping_stat(screen.project.chapter_file(n), lambda text: text.replace(word, "雾"))
        _edit_keeping_stat(screen.project.paths.evaluation(n), lambda text: text.replace('"score": 4,', '"score": 2,', 1))
        screen.outline.select_chapter(n)
        await pilot.pause()
        await pilot.pause()
        shown = screen.chapter_view.text_area.document.text
        assert word != "雾" and word not in shown and shown == old_text.replace(word, "雾")
        assert screen.scores_view.body_text != old_scores


@pytest.mark.parametrize("due", [True, False])
async def test_a_full_collection_due_runs_after_the_neighbours_are_prepared(
    sample: Path, monkeypatch: pytest.MonkeyPatch, due: bool
) -> None:
    """When CPython's generation-2 count is near its threshold, the idle steps after a selection end with a full
    collection (`MainScreen._collect_if_due`), so that it does not land in the next key; otherwise none."""
    import gc

    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        numbers = screen.project.committed_chapters()
        await pilot.press("1")
        await _prepared(pilot, screen)
        collected: list[int] = []
        threshold = gc.get_threshold()[2]
        monkeypatch.setattr(gc, "get_count", lambda: (0, 0, threshold - 1 if due else 0))

        def collect(generation: int = 2) -> int:
            collected.append(generation)
            return 0

        monkeypatch.setattr(gc, "collect", collect)
        screen.outline.select_chapter(numbers[0] if screen.selected != numbers[0] else numbers[1])
        await pilot.pause()
        await _prepared(pilot, screen)
        monkeypatch.undo()
        assert collected == ([2] if due else [])
