"""Instant keys (issue 12): a chapter selection reaches the terminal in one frame, the moved cursor and the
chapter it landed on together, also while a chapter streams (a frame after it is a scrollbar that appeared).

Before: the outline told the screen through a message (`OutlineTree.ChapterSelected`) that went through three
message queues; the screen painted the moved cursor alone in between, its update timer went back to its 60 Hz
grid, and the chapter (its text, diff, scores and the header's chapter) waited up to a frame (16.7 ms) for
its paint: two frames per key, the second one late. Now the screen watches the outline's `cursor_chapter`
reactive, whose watchers run inside the key's own handler.

Structural, not timed: each frame handed to the driver (`App._display`) records what the screen held then.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from screens.main_screen import MainScreen
from tests.tui_helpers import RecordingStudio, held_stream, main_screen
from widgets.text_pane import TextPane


class Frames:
    """(chapter under the outline's cursor, chapter shown) at each frame the app hands to its driver."""

    def __init__(self, app: RecordingStudio, screen: MainScreen, monkeypatch: pytest.MonkeyPatch) -> None:
        self.seen: list[tuple[int | None, int | None]] = []
        display = app._display

        def spy(target: Any, renderable: Any) -> None:
            display(target, renderable)
            if renderable is not None:
                self.seen.append((screen.outline.current_chapter, screen.selected))

        monkeypatch.setattr(app, "_display", spy)


async def _press(pilot: Any, key: str) -> None:
    await pilot.press(key)
    await pilot.pause()
    await pilot.pause(0.1)  # any later frame (a second, late one) has been painted
    await pilot.pause()


async def test_a_chapter_selection_is_one_frame_with_its_chapter(
    sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = RecordingStudio(sample, lang="zh", offline=True)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        await _press(pilot, "1")
        numbers = screen.outline.chapter_numbers
        assert len(numbers) >= 3
        screen.show_chapter(numbers[1], select=True)
        await pilot.pause(0.1)
        frames = Frames(app, screen, monkeypatch)

        def bars() -> tuple[bool, ...]:
            return tuple(pane.show_vertical_scrollbar for pane in app.screen.query(TextPane))

        toggles = [bars()]
        for key, want in (("down", numbers[2]), ("up", numbers[1]), ("up", numbers[0]), ("down", numbers[1])):
            frames.seen.clear()
            await _press(pilot, key)
            assert screen.selected == want
            # one frame, showing the cursor's chapter (also when a pane's scrollbar appears or goes: before
            # `compat.rearrange_scrollbars`, its layout of the screen painted a second and third one)
            assert frames.seen == [(want, want)], (key, frames.seen)
            toggles.append(bars())
        assert len(set(toggles)) > 1, toggles  # a scrollbar appeared or went on the way


async def test_a_selection_while_a_chapter_streams_is_one_frame(
    sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between the chapter being written (its draft) and the one before it, with the run going on (held mid-draft:
    no delta lands in a press). The header's stage clock may paint a frame of its own: every frame shows the
    cursor's chapter, and the first one after the key already does."""
    async with held_stream(sample) as held:
        screen, view, inflight = held.screen, held.view, held.inflight
        frames = Frames(held.app, screen, monkeypatch)
        for key, want in (("up", inflight - 1), ("down", inflight), ("up", inflight - 1), ("down", inflight)):
            frames.seen.clear()
            await _press(held.pilot, key)
            assert screen.selected == want
            assert frames.seen and set(frames.seen) == {(want, want)}, (key, frames.seen)
            assert view.is_streaming == (want == inflight)
