"""A pytest-xdist worker ignores SIGINT once its session has finished (a pytest plugin; `tests/conftest.py`
imports its hook).

Why: when the controller ends the run it asks each worker's execnet gateway to exit; execnet waits 5 s for
the worker's main thread to return and then sends the worker a SIGINT (`execnet.gateway_base`,
"execution ongoing after 5 secs"). After `pytest_sessionfinish` a worker still runs pytest's unconfigure,
whose unraisable-exception check calls `gc.collect()` five times; on a large heap on a loaded machine that
takes over 5 s, and the SIGINT then raised KeyboardInterrupt wherever the main thread was, typically inside
hypothesis's gc callback ("Exception ignored in ... gc_callback: KeyboardInterrupt", printed by every full
run). Every test has run and reported by then, so the worker finishes its teardown and ignores the
signal; a worker that still hangs is ended by execnet's own `os._exit` 10 s later.

Only in a worker (`PYTEST_XDIST_WORKER`), from the main thread (the only one that may set handlers); a plain
run keeps its Ctrl+C.
"""

from __future__ import annotations

import os
import signal
import threading

import pytest


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER") and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
