"""The studio's bounded exit: after a signal (or a vanished terminal) the studio process ends with its status even
when a stuck thread would keep it alive, but never before the run's work is saved.

Rules: `bound_the_exit` is for the studio's own process only (the App quitting on a signal, the CLI after the App
returned 130, a stopped run, the file watcher unmounted with a non-zero code); never from a headless app, whose
process is a test's. "Saved" means no run of this process holds the project lock (`run_saved`). The mechanism (a
daemon thread armed once per process) is `studio.signals.arm_exit_watchdog`; the thread stacks go to the studio
log (`studio.studio_log`) when the root is a project, never into a bare folder.
"""

from __future__ import annotations

import os
from pathlib import Path

from studio.paths import ProjectPaths
from studio.signals import arm_exit_watchdog
from studio.studio_log import LOG_FILE, log_line


def run_saved(root: Path) -> bool:
    """No run of this process holds the project lock (`studio.lock`): a run releases it only after it unwound, its
    checkpoint and staging written and no commit left half-done. What `arm_exit_watchdog` waits for."""
    # Loaded when asked, not with the studio's screens (which import this module before the first paint).
    from studio.errors import StudioError
    from studio.models.lock_info import LockInfo

    try:
        info = LockInfo.load(ProjectPaths(root).lock_info)
    except (OSError, StudioError):  # no lock, or one this process never wrote (its writes are atomic)
        return True
    return info.pid != os.getpid()


def bound_the_exit(root: Path, code: int) -> bool:
    """The studio quits after a signal (or a vanished terminal) with `code`: end the process with it if a stuck
    thread keeps it alive past the grace, once the run's work is saved (`studio.signals.arm_exit_watchdog`). The
    stacks go to the studio log when `root` is a project. True when this call armed the watchdog. Only for the
    studio's own process: never call it from a headless app (a test would be ended by it)."""

    def log(message: str) -> None:
        if (Path(root) / LOG_FILE).parent.parent.is_dir():  # .novel-studio/: a project, never a bare folder
            log_line(root, message)

    return arm_exit_watchdog(code, saved=lambda: run_saved(root), log=log)
