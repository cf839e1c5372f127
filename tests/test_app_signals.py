"""Stop means stop (issue 11 item 22): SIGINT / SIGTERM / SIGHUP to the studio interrupt a run as Ctrl+C interrupts
`continue` (checkpoint kept, exit 130), and `serve` passes its Ctrl+C on to every session process.

The studio runs for real on a pseudo-terminal (`python -m studio.cli.main --offline`); a `sitecustomize` on its
PYTHONPATH slows the offline provider's deltas so the signal lands while the chapter is being drafted.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from studio.cli import serve_cmd
from tests.pty_term import slow_offline_env

ROOT = Path(__file__).resolve().parent.parent

def checkpoint(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / ".checkpoint.json").read_text(encoding="utf-8"))
    return data


def _drain(master: int, seconds: float) -> bytes:
    out = b""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.05)
        if ready:
            try:
                out += os.read(master, 65536)
            except OSError:
                break
    return out


@dataclass
class Stopped:
    """What a signalled studio left: its exit status (None: still alive after the wait and SIGABRT), the terminal's
    last bytes, the stacks faulthandler printed on SIGABRT, and the studio log."""

    code: int | None
    tail: str
    stacks: str
    log: str


def _signal_studio(sample: Path, tmp_path: Path, sig: signal.Signals, *, site: str = "",
                   env: dict[str, str] | None = None, wait_s: float = 120.0, write: bool = True) -> Stopped:
    """Start the studio on a pty (`site` appended to its `sitecustomize`), let a chapter stream (unless not `write`),
    send `sig`, and wait up to `wait_s` for the exit; a studio still alive then gets SIGABRT (PYTHONFAULTHANDLER:
    every thread's stack)."""
    import fcntl
    import struct
    import termios

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    studio_env = slow_offline_env(tmp_path / "site")
    if site:
        with (tmp_path / "site" / "sitecustomize.py").open("a", encoding="utf-8") as fh:
            fh.write(site)
    # PYTHONFAULTHANDLER: a studio that outlives the exit wait below prints every thread's stack on SIGABRT
    studio_env.update(TERM="xterm-256color", PYTHONPATH=os.pathsep.join([studio_env["PYTHONPATH"], str(ROOT)]),
                      PYTHONFAULTHANDLER="1", **(env or {}))
    proc = subprocess.Popen(
        [sys.executable, "-m", "studio.cli.main", "--project", str(sample), "--offline"],
        stdin=slave, stdout=slave, stderr=slave, env=studio_env, cwd=str(ROOT), start_new_session=True,
        close_fds=True,
    )
    os.close(slave)
    try:
        screen = b""
        for _ in range(1200):  # until the main screen is painted
            screen += _drain(master, 0.05)
            if "大纲".encode() in screen or proc.poll() is not None:
                break
        assert proc.poll() is None, screen.decode("utf-8", "replace")[-2000:]
        if write:
            os.write(master, b"c")
            partial = sample / "staging" / "chapters"
            for _ in range(1200):  # until the draft streams
                _drain(master, 0.05)
                if any(partial.glob("chapter-003*")):
                    break
            assert checkpoint(sample).get("inflight_chapter") == 3
        proc.send_signal(sig)
        tail = b""
        for _ in range(int(wait_s / 0.05)):  # the exit itself is quick; the kernel's teardown of the pty can be slow
            tail = (tail + _drain(master, 0.05))[-4000:]
            if proc.poll() is not None:
                break
        stacks = b""
        if proc.poll() is None:  # still alive after the wait: say where
            proc.send_signal(signal.SIGABRT)
            for _ in range(100):
                stacks += _drain(master, 0.05)
                if proc.poll() is not None:
                    break
        code = proc.poll()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    log_file = sample / ".novel-studio" / "logs" / "studio.log"
    return Stopped(None if code == -signal.SIGABRT else code, tail.decode("utf-8", "replace"),
                   stacks.decode("utf-8", "replace")[-6000:],
                   log_file.read_text(encoding="utf-8") if log_file.is_file() else "")


@pytest.mark.serial  # two studios on ptys exiting at once have taken over 30 s in the kernel's exit here
@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_signal_interrupts_the_run_and_exits_130(sample: Path, tmp_path: Path, sig: signal.Signals) -> None:
    stopped = _signal_studio(sample, tmp_path, sig)
    assert stopped.code == 130, (stopped.tail, stopped.stacks, stopped.log[-3000:])
    cp = checkpoint(sample)
    assert cp["inflight_chapter"] == 3 and cp["last_completed_chapter"] == 2  # resumable, not committed
    assert "interrupted by a signal" in stopped.log


# Fault injection (the studio's `sitecustomize`): a thread that never ends. "thread": a plain non-daemon thread, which
# the interpreter joins at exit; "executor": a job of the event loop's default executor, which `asyncio.run` waits
# for when the App has returned (Python 3.11's `shutdown_default_executor` has no time limit).
STUCK: dict[str, str] = {
    "thread": """
import threading
threading.Thread(target=threading.Event().wait, name="stuck-for-the-test").start()
""",
    "executor": """
import asyncio.unix_events
import threading
_add_stuck = asyncio.unix_events._UnixSelectorEventLoop.add_signal_handler
def _stuck_add(self, sig, callback, *args):
    # the App's loop, as it installs its signal handlers at mount: one job that never ends, run or no run
    if not getattr(self, "_stuck_for_the_test", False):
        self._stuck_for_the_test = True
        self.run_in_executor(None, threading.Event().wait)
    return _add_stuck(self, sig, callback, *args)
asyncio.unix_events._UnixSelectorEventLoop.add_signal_handler = _stuck_add
""",
}


@pytest.mark.serial
@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
@pytest.mark.parametrize("stuck", sorted(STUCK))
def test_a_stuck_thread_cannot_keep_a_signalled_studio_alive(sample: Path, tmp_path: Path, stuck: str) -> None:
    """The SIGHUP exit that once never ended (issue 11): whatever thread is stuck, the studio stopped by a signal
    exits 130 once the grace is over (`studio.signals.arm_exit_watchdog`; the grace shortened to 2 s here), with the
    chapter resumable and the stuck thread's stack in the log."""
    stopped = _signal_studio(sample, tmp_path, signal.SIGHUP, site=STUCK[stuck],
                             env={"NOVEL_STUDIO_EXIT_GRACE": "2"}, wait_s=60.0)
    assert stopped.code == 130, (stopped.tail, stopped.stacks, stopped.log[-3000:])
    cp = checkpoint(sample)
    assert cp["inflight_chapter"] == 3 and cp["last_completed_chapter"] == 2
    assert "interrupted by a signal" in stopped.log and "run stopped" in stopped.log
    assert "after the grace to quit; ending with status 130" in stopped.log
    stacks = stopped.log.rpartition("after the grace to quit")[2]
    assert ", in wait\n" in stacks and (stuck != "thread" or "stuck-for-the-test" in stacks), stacks


def test_descendants_and_interrupt_sessions(tmp_path: Path) -> None:
    """A session is a shell running the studio: both levels are found and interrupted.

    The child installs its own SIGINT handler before it reports its pid, as the studio does
    (`loop.add_signal_handler`): a process started from a background job (`make test &` in a script) inherits
    SIGINT ignored, and Python then leaves it ignored, so a child relying on the inherited disposition would
    sleep through the signal. Reporting only once the handler is in place also closes the start-up window."""
    child_code = (
        "import os, signal, time; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "print(os.getpid(), flush=True); time.sleep(60)"
    )
    script = f"import subprocess, sys; p = subprocess.Popen([sys.executable, '-c', {child_code!r}]); p.wait()"
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        found = serve_cmd.descendants(parent.pid)
        assert found == [child]
        assert serve_cmd.interrupt_sessions(parent.pid) == [child]
        parent.wait(timeout=30)  # its wait on the child returns once the child is gone
        with pytest.raises(ProcessLookupError):
            for _ in range(200):
                os.kill(child, 0)
                time.sleep(0.05)
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


def test_server_exit_interrupts_sessions_first(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    class Base:
        def request_exit(self) -> None:
            calls.append("exit")

    def interrupt_sessions(pid: int | None = None) -> list[int]:
        calls.append("sessions")
        return []

    monkeypatch.setattr(serve_cmd, "interrupt_sessions", interrupt_sessions)
    serve_cmd.interrupting(Base)().request_exit()
    assert calls == ["sessions", "exit"]


async def test_interrupt_stops_the_run_resumably_and_sets_130(sample: Path) -> None:
    """The handler itself, in process: the run stops (checkpoint and staging kept) and the exit status is 130."""
    from tests.tui_helpers import main_screen, make_app, wait_for

    app = make_app(sample, delay=0.05)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        await pilot.press("c")
        assert await wait_for(pilot, lambda: bool(screen.draft_text))
        app.interrupt()
        await pilot.pause()
        assert await wait_for(pilot, lambda: not screen.running)
    assert app.return_code == 130
    cp = checkpoint(sample)
    assert cp["inflight_chapter"] == 3 and cp["last_completed_chapter"] == 2


async def test_interrupt_during_teardown_finds_no_runner_and_exits_quietly(sample: Path) -> None:
    """A SIGINT while the app tears down (serve ending a closed tab's session) came after the main screen's runner
    was removed: `interrupt` raised NoMatches and printed a traceback. A removed runner is a stopped one."""
    from tests.tui_helpers import main_screen, make_app

    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await main_screen(app).runner.remove()
        app.interrupt()
        await pilot.pause()
    assert app.return_code == 130


@pytest.mark.serial
@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_a_stuck_executor_job_cannot_keep_an_idle_signalled_studio_alive(sample: Path, tmp_path: Path) -> None:
    """No run at all: the studio quits on SIGTERM while `asyncio.run` waits for a stuck executor job. The file
    watcher's unmount armed the watchdog: the studio exits 130 and says why in the log."""
    stopped = _signal_studio(sample, tmp_path, signal.SIGTERM, site=STUCK["executor"],
                             env={"NOVEL_STUDIO_EXIT_GRACE": "2"}, wait_s=60.0, write=False)
    assert stopped.code == 130, (stopped.tail, stopped.stacks, stopped.log[-3000:])
    assert "after the grace to quit; ending with status 130" in stopped.log
    assert checkpoint(sample).get("inflight_chapter") is None  # nothing was started
