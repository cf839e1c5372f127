"""Ending the browser mode's processes at once: `serve` itself, and each tab's studio session.

`python -m studio.cli.serve_exit ARGS...` is the command of a session (`serve_cmd.studio_command`): it runs
the CLI's `studio.cli.main.main(ARGS)` (the studio, as `novel-studio ARGS` would) and then `exit_at_once`
with its status. `StudioServer.serve` ends `serve` the same way once the server has stopped.

Why: when `serve` stops (Ctrl+C) every process has already done its work -- the run is interrupted and its
checkpoint written, each session reaped -- and what is left is the interpreter's own teardown: finalizing
some 500 (serve) to 900 (studio) modules and collecting their objects. On a loaded machine that was most of
the CPU the stop took (about 200 ms in serve, 80 ms per session, at load 8), on the path of the wall time.

`exit_at_once(code)` keeps everything a normal exit promises and skips only that teardown: it ignores SIGINT
from then on (nothing is left to stop politely, and a late one -- `serve` ending a session that is already
quitting -- would print a KeyboardInterrupt traceback from the thread join; SIGTERM still ends it), waits
for the non-daemon threads (a commit finishing in a worker thread ends as it would), then runs the `atexit`
handlers (the project lock's safety net, logging's flush, thread pools), flushes stdout and stderr, and ends
the process with `os._exit(code)`. Never call it where the process must go on (tests call the pieces).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Sequence

INTERRUPTED = 130  # the CLI's "interrupted" status (`ExitCode.INTERRUPTED`; common.py is not imported yet)


def join_threads() -> None:
    """Wait for the non-daemon threads as the interpreter does before its teardown: `threading._shutdown`
    first runs the callbacks of `threading._register_atexit` (thread pools tell their idle workers to stop;
    joining those without it would wait forever), then joins. Where it is missing, a plain join."""
    shutdown = getattr(threading, "_shutdown", None)
    if callable(shutdown):
        shutdown()
        return
    current = threading.current_thread()
    for thread in threading.enumerate():
        if thread is not current and not thread.daemon and thread.is_alive():
            thread.join()


def exit_at_once(code: int) -> None:
    """End the process with `code` after the threads, the atexit handlers and a flush (see the module rules)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    join_threads()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a closed or broken stream has nothing left to flush
            if stream is not None:
                stream.flush()
    os._exit(code)


def run_session(argv: Sequence[str]) -> None:
    """A served session: the CLI with `argv`, then `exit_at_once` with its status. A Ctrl+C on `serve` (or a
    tab closed) while the session is still starting, before the studio handles SIGINT itself, interrupted
    nothing yet: it ends the session with 130 quietly, not with a KeyboardInterrupt traceback from an import
    (which textual-serve would print into serve's terminal)."""
    try:
        from studio.cli.main import main

        code = main(list(argv))
    except KeyboardInterrupt:
        code = INTERRUPTED
    exit_at_once(code)


if __name__ == "__main__":
    run_session(sys.argv[1:])
