"""The commit's file work runs off the studio's event loop: keys are handled while a chapter commits.

A commit step is held in its worker thread (a slow disk, made deterministic: the step waits on an event the
test sets); while it waits, the test presses a key and sees it handled. Were the commit on the loop, the
loop itself would be held, the key would only be handled after the step gave up waiting, and the check
"the step is still waiting" would fail. Also: `off_loop` lets a cancelled run finish its file work first.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import pipeline.commit as commit_module
from pipeline.off_loop import off_loop
from tests.tui_helpers import main_screen, make_app, run_to_end, wait_for

HOLD_LIMIT_S = 60.0  # generous: only reached when the step blocks the loop (the failure this test detects)


async def test_key_handled_while_a_commit_step_is_held(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    held = threading.Event()
    release = threading.Event()
    state = {"waiting": False, "loop_thread": threading.get_ident(), "step_thread": 0}
    real_step = commit_module._run_step

    def slow_step(paths: Any, st: Any, step: str, *args: Any) -> bool:
        if step == "chapter" and not held.is_set():
            state["step_thread"] = threading.get_ident()
            state["waiting"] = True
            held.set()
            release.wait(HOLD_LIMIT_S)
            state["waiting"] = False
        return real_step(paths, st, step, *args)

    monkeypatch.setattr(commit_module, "_run_step", slow_step)
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        await pilot.press("c")
        assert await wait_for(pilot, held.is_set, limit=3000)
        target = 0 if screen.active_pane == 1 else 1
        await pilot.press(str(target + 1))
        handled_while_held = screen.active_pane == target and bool(state["waiting"])
        release.set()
        await run_to_end(app, pilot)
        assert handled_while_held
        assert state["step_thread"] != state["loop_thread"]
        assert 3 in screen.project.committed_chapters()


def test_off_loop_finishes_the_work_before_a_cancel_goes_on() -> None:
    events: list[str] = []
    started = threading.Event()

    def work() -> str:
        started.set()
        time.sleep(0.2)
        events.append("work done")
        return "ok"

    async def main() -> None:
        task = asyncio.create_task(off_loop(work))
        while not started.is_set():
            await asyncio.sleep(0.001)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        events.append("cancel seen")

    asyncio.run(main())
    assert events == ["work done", "cancel seen"]


def test_off_loop_returns_the_result_and_raises_the_error() -> None:
    def fail() -> None:
        raise ValueError("broken")

    def add(a: int, b: int = 0) -> int:
        return a + b

    async def main() -> None:
        assert await off_loop(add, 1, b=2) == 3
        with pytest.raises(ValueError, match="broken"):
            await off_loop(fail)

    asyncio.run(main())
