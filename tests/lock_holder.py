"""Helper process for tests/test_lock.py: take the project lock, say so, then wait or exit.

usage: python tests/lock_holder.py PROJECT_DIR [hold|exit]
  hold  take the lock in a `with` block and sleep until a signal arrives (SIGTERM/SIGHUP release it)
  exit  take the lock without releasing it and exit normally (the atexit safety net releases it)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from studio.lock import ProjectLock  # noqa: E402
from studio.paths import ProjectPaths  # noqa: E402
from studio.signals import Terminated, install_termination_handlers  # noqa: E402


def main(argv: list[str]) -> int:
    paths = ProjectPaths(Path(argv[1]))
    mode = argv[2] if len(argv) > 2 else "hold"
    install_termination_handlers()
    lock = ProjectLock(paths, chapter=7)
    if mode == "exit":
        lock.acquire()
        print("ACQUIRED", flush=True)
        return 0
    try:
        with lock:
            print("ACQUIRED", flush=True)
            while True:
                time.sleep(0.1)
    except Terminated as exc:
        return exc.exit_code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
