"""`studio.signals.arm_exit_watchdog` and the studio's use of it (`studio.exit_watchdog`): a quitting process kept alive by a stuck thread is ended with its exit status
once the grace is over, but never before its work is saved (issue 11, the SIGHUP exit that never ended).

Each case runs in a child process (the watchdog ends its process by `os._exit`)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import sys, threading
from pathlib import Path
from studio.signals import arm_exit_watchdog
flag, log = Path(sys.argv[1]), Path(sys.argv[2])
def write(message):
    log.write_text(message, encoding="utf-8")
armed = arm_exit_watchdog(130, saved=flag.exists, log=write, grace=0.2)
again = arm_exit_watchdog(1, saved=lambda: True, log=write, grace=0.0)  # armed once: changes nothing
print(armed, again, flush=True)
threading.Thread(target=threading.Event().wait, name="stuck").start()  # joined at exit: never ends
"""


def test_a_stuck_process_ends_with_its_status_only_once_its_work_is_saved(tmp_path: Path) -> None:
    flag, log = tmp_path / "saved", tmp_path / "log.txt"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(flag), str(log)], cwd=str(ROOT),
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        assert child.stdout.readline().split() == ["True", "False"]
        time.sleep(1.5)  # well past the grace: the work is not saved, so the process must still be there
        assert child.poll() is None and not log.exists()
        flag.touch()
        assert child.wait(timeout=120) == 130
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    said = log.read_text(encoding="utf-8")
    assert "ending with status 130" in said and "thread stuck:" in said and ", in wait\n" in said, said


def test_a_process_that_ends_in_time_keeps_its_own_status(tmp_path: Path) -> None:
    code = "from studio.signals import arm_exit_watchdog; arm_exit_watchdog(130, saved=lambda: True, log=print); raise SystemExit(3)"
    assert subprocess.run([sys.executable, "-c", code], cwd=str(ROOT), timeout=120).returncode == 3


def test_the_run_is_saved_unless_this_process_holds_the_project_lock(tmp_path: Path) -> None:
    """`studio.exit_watchdog.run_saved`: what the studio's watchdog waits for (no run of this process holds the lock)."""
    from datetime import UTC, datetime

    from studio.exit_watchdog import run_saved
    from studio.models.lock_info import LockInfo
    from studio.paths import ProjectPaths

    paths = ProjectPaths(tmp_path)
    assert run_saved(tmp_path)  # no lock at all
    paths.lock_info.parent.mkdir(parents=True, exist_ok=True)
    LockInfo(pid=os.getpid(), started=datetime.now(UTC)).save(paths.lock_info)
    assert not run_saved(tmp_path)  # this process's run still holds it: not saved yet
    LockInfo(pid=os.getpid() + 1, started=datetime.now(UTC)).save(paths.lock_info)
    assert run_saved(tmp_path)  # another process's lock is not this process's unsaved work
    paths.lock_info.write_text("{broken", encoding="utf-8")
    assert run_saved(tmp_path)  # a lock this process never wrote (its writes are atomic)


BOUND = """
import sys, threading
from pathlib import Path
from studio.exit_watchdog import bound_the_exit
print(bound_the_exit(Path(sys.argv[1]), 130), bound_the_exit(Path(sys.argv[1]), 1), flush=True)
threading.Thread(target=threading.Event().wait, name="stuck").start()
"""


def test_the_studio_exit_ends_a_stuck_process_and_logs_only_into_a_project(tmp_path: Path) -> None:
    """`studio.exit_watchdog.bound_the_exit`: the stacks go to `.novel-studio/logs/studio.log` in a project, and
    nowhere in a bare folder (no `.novel-studio/` is created there)."""
    project, bare = tmp_path / "novel", tmp_path / "bare"
    (project / ".novel-studio").mkdir(parents=True)
    bare.mkdir()
    env = {**os.environ, "NOVEL_STUDIO_EXIT_GRACE": "0.2"}
    for root in (project, bare):
        out = subprocess.run([sys.executable, "-c", BOUND, str(root)], cwd=str(ROOT), env=env, timeout=120,
                             capture_output=True, text=True)
        assert (out.returncode, out.stdout.split()) == (130, ["True", "False"]), out.stderr
    said = (project / ".novel-studio" / "logs" / "studio.log").read_text(encoding="utf-8")
    assert "ending with status 130" in said and "thread stuck:" in said, said
    assert list(bare.iterdir()) == []
