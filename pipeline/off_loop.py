"""File work run off the event loop, finished even when the awaiting task is cancelled.

The commit's file work (about a hundred writes, each with its fsyncs) runs in a worker thread so that the
studio's keys stay live while a chapter commits. A cancel (the author quits mid-run) must not leave that work
half-done while the run's `finally` releases the project lock: `off_loop` waits for the thread to finish
and only then lets the cancellation go on. A second cancel while waiting is absorbed the same way; the
work itself is never interrupted (it is crash-safe, but a clean quit should not need the crash path).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


async def off_loop(fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """Run `fn(*args, **kwargs)` in a worker thread; a cancel waits for it to finish, then is re-raised."""
    work = asyncio.ensure_future(asyncio.to_thread(functools.partial(fn, *args, **kwargs)))
    cancelled = False
    while True:
        try:
            result = await asyncio.shield(work)
        except asyncio.CancelledError:
            if work.done():
                raise  # the work itself was cancelled (the loop is closing): nothing left to wait for
            cancelled = True
            continue
        if cancelled:
            raise asyncio.CancelledError
        return result
