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
"""

from __future__ import annotations

import gc
import time


def settle_heap() -> float:
    """Collect, then freeze every object alive now (`gc.freeze`); returns the CPU seconds it took."""
    start = time.process_time()
    gc.collect()
    gc.freeze()
    return time.process_time() - start


def frozen_count() -> int:
    """How many objects the collector no longer walks (`gc.get_freeze_count`)."""
    return gc.get_freeze_count()


__all__ = ["frozen_count", "settle_heap"]
