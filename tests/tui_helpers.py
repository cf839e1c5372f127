"""Helpers shared by the studio's Pilot tests (offline provider, no network, no key).

The ``sample`` fixture (a fresh copy of the sample novel) lives in ``tests/conftest.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pipeline.providers.offline import OfflineProvider
from screens.decision_dialog import DecisionDialog
from screens.main_screen import MainScreen
from studio.tui.app import NovelStudioApp


def make_app(root: Path, delay: float = 0.0, lang: Any = "zh", **kwargs: Any) -> NovelStudioApp:
    """The studio on ``root`` with the offline provider (``delay`` seconds between its deltas)."""
    return NovelStudioApp(
        root, lang=lang, offline=True, provider_factory=lambda s: OfflineProvider(delay_s=delay), **kwargs
    )


def main_screen(app: NovelStudioApp) -> MainScreen:
    screen = app.main_screen
    assert screen is not None
    return screen


async def run_to_end(app: NovelStudioApp, pilot: Any, *, limit: int = 400) -> list[str]:
    """Let the worker run; answer any decision with its recommended option. Returns the questions asked."""
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


def notes(app: NovelStudioApp) -> str:
    """Every notification shown so far, one a line."""
    return "\n".join(str(n.message) for n in app._notifications)
