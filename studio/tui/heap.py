"""Keep Python's full garbage collections out of key presses.

Measured (Textual 8.2, 100-chapter project, 160x48): a pane switch allocates thousands of short-lived objects
(every `Strip` carries seven small caches), so every few presses CPython runs a full (generation 2) collection,
which walks every tracked object of the process: 140,000 after start-up (the project's models, the widgets,
Textual's caches), 100-150 ms of CPU, landing inside a key press (the bench's p95). `gc.freeze()` moves the
objects alive now into a permanent generation the collector no longer walks; later full collections only walk
what was made since, 5-25 ms.

Rules: settle only at a quiet moment (after the first paint; after a run ended), collect first so the garbage
of start-up (or of the run) is freed rather than frozen, and only in a real terminal: a headless App (tests,
many Apps in one process) never freezes, or each test's widgets would stay in memory for the whole session.
Reference counting still frees frozen objects that are dropped; only cyclic garbage among them is kept.

Start-up: imports and the first screen make many long-lived objects and little garbage, yet they trip about
30 generation-1 and a few full collections (about 0.2 s of CPU on a 500-chapter novel, 15-20 % of the start).
The launcher runs the studio inside `collections_paused()`; `settle_heap` (after the first paint) collects,
freezes and switches the collector back on, so it is off only until the first paint (and, in a headless
App, which never settles, until the run ends).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collections_paused() -> Iterator[None]:
    """No automatic collections inside (until `settle_heap` switches them back on); on again when it ends."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def settle_heap() -> float:
    """Collect, then freeze every object alive now (`gc.freeze`), and switch automatic collections on (off
    while the studio starts: `collections_paused`); returns the CPU seconds it took."""
    start = time.process_time()
    gc.collect()
    gc.freeze()
    gc.enable()
    return time.process_time() - start


def frozen_count() -> int:
    """How many objects the collector no longer walks (`gc.get_freeze_count`)."""
    return gc.get_freeze_count()


__all__ = ["collections_paused", "frozen_count", "settle_heap"]
