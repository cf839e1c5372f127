"""Helpers shared by the studio's Pilot tests (offline provider, no network, no key).

The ``sample`` fixture (a fresh copy of the sample novel) lives in ``tests/conftest.py``.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

import pytest
from textual._styles_cache import StylesCache
from textual.app import App, ComposeResult
from textual.notifications import Notification, Notify
from textual.widget import Widget
from textual.worker import WorkerCancelled

from pipeline.providers.offline import OfflineProvider
from screens.decision_dialog import DecisionDialog
from screens.main_screen import MainScreen
from studio.tui import app as studio_app_module
from studio.tui.app import NovelStudioApp
from tests.bench_loader import load_bench
from widgets.chapter_view import ChapterView
from widgets.compat import PlainRowStyles

W = TypeVar("W", bound=Widget)


class WidgetApp(App[None], Generic[W]):
    """An app holding one widget alone: for tests of a pane outside the main screen."""

    def __init__(self, widget: W) -> None:
        super().__init__()
        self.widget = widget

    def compose(self) -> ComposeResult:
        yield self.widget


class RecordingStudio(NovelStudioApp):
    """The studio that also keeps every notification it was asked to show. A toast leaves the app's live
    list when its timeout expires (4 s by default), and a run on a loaded machine can take longer than that
    between the notice and the test's read: tests read this history, never the live toasts."""

    CSS_PATH = str(Path(studio_app_module.__file__).with_name(str(NovelStudioApp.CSS_PATH)))  # not tests/app.tcss

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.notified: list[Notification] = []

    def on_notify(self, event: Notify) -> None:  # runs besides App._on_notify (each class's handler is called)
        self.notified.append(event.notification)


def make_app(root: Path, delay: float = 0.0, lang: Any = "zh", **kwargs: Any) -> RecordingStudio:
    """The studio on ``root`` with the offline provider (``delay`` seconds between its deltas)."""
    return RecordingStudio(
        root, lang=lang, offline=True, provider_factory=lambda s: OfflineProvider(delay_s=delay), **kwargs
    )


def count_styled_rows(monkeypatch: pytest.MonkeyPatch, count: Callable[[StylesCache], None]) -> None:
    """Call `count(cache)` once for every widget row styled from now on (`StylesCache.render_line`, and
    `PlainRowStyles.render_line`, which styles plain rows itself and hands the others to Textual's)."""
    textual_line, plain_line = StylesCache.render_line, PlainRowStyles.render_line

    def spy_textual(cache: StylesCache, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(cache, PlainRowStyles):  # counted by `spy_plain`
            count(cache)
        return textual_line(cache, *args, **kwargs)

    def spy_plain(cache: PlainRowStyles, *args: Any, **kwargs: Any) -> Any:
        count(cache)
        return plain_line(cache, *args, **kwargs)

    monkeypatch.setattr(StylesCache, "render_line", spy_textual)
    monkeypatch.setattr(PlainRowStyles, "render_line", spy_plain)


def main_screen(app: NovelStudioApp) -> MainScreen:
    screen = app.main_screen
    assert screen is not None
    return screen


async def run_to_end(app: NovelStudioApp, pilot: Any, *, limit: int = 5000) -> list[str]:
    """Let the worker run; answer any decision with its recommended option. Returns the questions asked.

    `limit` bounds the short pauses only against a run that never ends: on a loaded machine a run takes many
    more of them than on a quiet one, and stopping to wait for the worker before its last question was
    answered would wait for ever."""
    asked: list[str] = []
    screen = main_screen(app)
    for _ in range(limit):
        await pilot.pause(0.02)
        if isinstance(app.screen, DecisionDialog):
            asked.append(app.screen.question.kind.value)
            await pilot.press("enter")
        elif not screen.running:
            break
    await app.workers.wait_for_complete()
    await pilot.pause()
    return asked


async def wait_for(pilot: Any, check: Callable[[], bool], limit: int = 300) -> bool:
    """Pause until ``check()`` holds (at most ``limit`` short pauses); returns its last value."""
    for _ in range(limit):
        if check():
            return True
        await pilot.pause(0.02)
    return check()


def notified(app: App[Any]) -> list[str]:
    """The message of every notification shown so far, expired ones included (see `RecordingStudio`); an app
    not made by `make_app` gives only the toasts still on screen."""
    shown = app.notified if isinstance(app, RecordingStudio) else list(app._notifications)
    return [str(n.message) for n in shown]


def notes(app: App[Any]) -> str:
    """Every notification shown so far, one a line."""
    return "\n".join(notified(app))


@dataclass
class HeldStream:
    """The studio at 160x48 with chapter `inflight` being written and held mid-draft (`held_stream`)."""

    app: RecordingStudio
    pilot: Any
    screen: MainScreen
    view: ChapterView
    inflight: int


@contextlib.asynccontextmanager
async def held_stream(root: Path, *, chars: int = 600, settle: float = 0.2) -> AsyncIterator[HeldStream]:
    """Run the studio on `root` (160x48), start writing the next chapter (`1` then `c`) with the bench's
    `HeldStreamProvider`, which streams `chars` characters and then holds the draft (no delta lands while the
    test presses keys), and wait until the whole draft is shown and `settle` seconds more. On the way out the
    draft is released, the run stopped and its workers awaited."""
    provider = load_bench("bench_tui").HeldStreamProvider(chars=chars)
    app = RecordingStudio(root, lang="zh", offline=True, provider_factory=lambda settings: provider)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        await pilot.press("1")
        await pilot.press("c")
        view = screen.chapter_view
        assert await wait_for(
            pilot, lambda: view.is_streaming and len(view.text) >= provider.chars and not view._buffer, 1500)
        inflight = screen.inflight
        assert inflight is not None and screen.selected == inflight
        await pilot.pause(settle)
        try:
            yield HeldStream(app, pilot, screen, view, inflight)
        finally:
            provider.release()
            screen.runner.stop()
            with contextlib.suppress(WorkerCancelled):
                await app.workers.wait_for_complete()
