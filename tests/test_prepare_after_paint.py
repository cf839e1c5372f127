"""Regression (issue 12, fast start): the main screen prepares the selected chapter's neighbours while idle
(`MainScreen._prepare_neighbours`), its wait counted from the frame that shows the chapter. Counted from the
mount, a start whose first frame took longer than `PREPARE_AFTER_S` prepared the neighbours before its first
paint: about 0.12 s of CPU before the first frame of 500 chapters (`bench/bench_start.py`, 0.94 -> 0.79 s)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.message_pump import MessagePump

from tests.tui_helpers import make_app


async def test_the_neighbours_wait_starts_after_the_first_frame(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[str] = []
    display, set_timer = App._display, MessagePump.set_timer

    def spy_display(self: App[object], *args: Any, **kwargs: Any) -> None:
        if "frame" not in events:
            events.append("frame")
        display(self, *args, **kwargs)

    def spy_set_timer(self: MessagePump, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("name") == "prepare-neighbours":
            events.append("wait")
        return set_timer(self, *args, **kwargs)

    monkeypatch.setattr(App, "_display", spy_display)
    monkeypatch.setattr(MessagePump, "set_timer", spy_set_timer)
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        for _ in range(50):
            await pilot.pause(0.02)
            if "wait" in events:
                break
    assert "frame" in events and "wait" in events, events
    assert events.index("frame") < events.index("wait"), events
