"""A real pseudo-terminal around a child process, its screen read by pyte: for the pty tests and benches.

`PtyTerm.spawn(argv, size=(cols, rows))` starts the child on a fresh pty (TERM=xterm-256color, its own
session); `send(b"...")` writes keys; `pump(timeout)` reads what the child wrote and feeds it to a pyte
screen; `wait_for(text, timeout)` pumps until the screen shows `text` (generous timeouts: the tests never
assert on time, they only wait); `display()` is the screen as lines (a wide character's second cell is
dropped, so Chinese reads as written). `close()` ends the child (ctrl+q, then SIGTERM, then SIGKILL) and
reaps it. Key bytes as a terminal sends them are in `KEYS`.

`hang_up()` closes the master side: the terminal goes away with no signal (the child's pty is not its
controlling terminal: it starts in its own session). `wait_exit_cpu(timeout)` waits for the child's exit and
reads its total CPU time before reaping it (`cpu_seconds` reads /proc, which keeps an exited child's figures
until it is reaped). `slow_offline_env(folder)` is an environment whose offline provider streams slowly (a
`sitecustomize` on PYTHONPATH), so a signal or a hang-up lands while a chapter is being drafted.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pyte

ROOT = Path(__file__).resolve().parents[1]

KEYS: dict[str, bytes] = {
    "up": b"\x1b[A",
    "down": b"\x1b[B",
    "right": b"\x1b[C",
    "left": b"\x1b[D",
    "pageup": b"\x1b[5~",
    "pagedown": b"\x1b[6~",
    "enter": b"\r",
    "escape": b"\x1b",
    "tab": b"\t",
    "ctrl+q": b"\x11",
    "ctrl+c": b"\x03",
}


SLOW_OFFLINE = """
import pipeline.providers.offline as offline
_init = offline.OfflineProvider.__init__
def __init__(self, delay_s=0.2, chunk_chars=20):
    _init(self, delay_s=0.2, chunk_chars=chunk_chars)
offline.OfflineProvider.__init__ = __init__
"""


def slow_offline_env(folder: Path) -> dict[str, str]:
    """The environment with a `sitecustomize` in `folder` (made if needed) slowing the offline provider's deltas
    to 0.2 s per 20 characters; `spawn` adds the repository to its PYTHONPATH."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(SLOW_OFFLINE, encoding="utf-8")
    return dict(os.environ, PYTHONPATH=str(folder))


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, live or exited but not yet reaped (fields 14 and 15 of
    /proc/PID/stat, after the command name, which may hold spaces)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def studio_argv(root: Path, *extra: str) -> list[str]:
    """The studio as the author starts it, offline (no key, no network)."""
    return [sys.executable, "-m", "studio.cli.main", "--project", str(root), "--offline", *extra]


class PtyTerm:
    def __init__(self, proc: subprocess.Popen[bytes], master: int, size: tuple[int, int]) -> None:
        self.proc = proc
        self.master = master
        self.screen = pyte.Screen(*size)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        self.last_output = time.perf_counter()
        """When the last chunk was read."""
        self.first_output = self.last_output
        """When the first chunk of the last `pump` that read anything was read (before pyte parsed it: a frame
        larger than the pty's buffer arrives in chunks, each read after the one before was parsed)."""

    @classmethod
    def spawn(cls, argv: Sequence[str], *, size: tuple[int, int] = (80, 24), env: dict[str, str] | None = None,
              cwd: Path = ROOT, stdin: int | None = None) -> PtyTerm:
        """`stdin`: a descriptor the child reads instead of the pty (a pipe's read end; the caller closes it)."""
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
        child_env = dict(os.environ if env is None else env)
        child_env.update(TERM="xterm-256color", COLUMNS=str(size[0]), LINES=str(size[1]))
        child_env["PYTHONPATH"] = str(ROOT) + os.pathsep + child_env.get("PYTHONPATH", "")
        for name in ("NO_COLOR", "TEXTUAL", "TEXTUAL_DRIVER"):
            child_env.pop(name, None)
        proc = subprocess.Popen(
            list(argv), stdin=slave if stdin is None else stdin, stdout=slave, stderr=slave, env=child_env, cwd=str(cwd),
            start_new_session=True, close_fds=True,
        )
        os.close(slave)
        return cls(proc, master, size)

    # ------------------------------------------------------------------ reading

    def pump(self, timeout: float) -> bool:
        """Read what is there within `timeout` seconds (then whatever follows at once); True if anything came."""
        if self.master < 0:  # hung up: nothing to read
            time.sleep(timeout)
            return False
        got = False
        wait = timeout
        while True:
            ready, _, _ = select.select([self.master], [], [], wait)
            if not ready:
                return got
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # the child closed the pty
                return got
            if not chunk:
                return got
            if not got:
                self.first_output = time.perf_counter()  # this call's first chunk (`last_output`: its last)
            got = True
            self.last_output = time.perf_counter()
            self.raw.extend(chunk)
            self.stream.feed(chunk)
            wait = 0.0

    def display(self) -> list[str]:
        lines: list[str] = []
        for y in range(self.screen.lines):
            row = self.screen.buffer[y]
            lines.append("".join(row[x].data for x in range(self.screen.columns) if row[x].data != ""))
        return lines

    def text(self) -> str:
        return "\n".join(self.display())

    def wait_until(self, check: Callable[[], bool], timeout: float = 120.0) -> bool:
        deadline = time.perf_counter() + timeout
        while not check():
            if time.perf_counter() > deadline or (self.proc.poll() is not None and not self.pump(0.05)):
                return check()
            self.pump(0.05)
        return True

    def wait_for(self, text: str, timeout: float = 120.0) -> bool:
        return self.wait_until(lambda: text in self.text(), timeout)

    def settle(self, quiet_s: float = 0.3, timeout: float = 30.0) -> None:
        """Pump until the child has written nothing for `quiet_s` (the frame after a key is complete)."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            if not self.pump(quiet_s):
                return

    # ------------------------------------------------------------------ writing

    def send(self, data: bytes | str) -> None:
        os.write(self.master, data.encode("utf-8") if isinstance(data, str) else data)

    def press(self, *keys: str) -> None:
        for key in keys:
            self.send(KEYS.get(key, key.encode("utf-8")))

    # ------------------------------------------------------------------ ending

    def wait_exit(self, timeout: float = 60.0) -> int | None:
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            code = self.proc.poll()
            if code is not None:
                return code
            self.pump(0.05)  # drain: a child blocked on a full pty never exits
        return self.proc.poll()

    def hang_up(self) -> None:
        """Close the master side, as a vanished terminal would (no SIGHUP: see the module's docstring)."""
        os.close(self.master)
        self.master = -1  # the number may be reused at once: never write to it or close it again

    def wait_exit_cpu(self, timeout: float = 60.0) -> tuple[int | None, float]:
        """Wait up to `timeout` for the child to exit, without reaping it, then read its total CPU seconds and
        reap it: (exit code, CPU). Still running at the deadline: (None, its CPU so far)."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            gone = os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG)
            if gone is not None:
                cpu = cpu_seconds(self.proc.pid)
                return self.proc.wait(), cpu
            self.pump(0.05)  # drain: a child blocked on a full pty never exits
        return None, cpu_seconds(self.proc.pid)

    def close(self) -> None:
        if self.master < 0:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            return
        if self.proc.poll() is None:
            with contextlib.suppress(OSError):
                self.press("ctrl+q")
            if self.wait_exit(10) is None:
                self.proc.terminate()
                if self.wait_exit(5) is None:
                    self.proc.kill()
                    self.proc.wait()
        with contextlib.suppress(OSError):
            os.close(self.master)
