"""A real pseudo-terminal around a child process, its screen read by pyte: for the pty tests and benches.

`PtyTerm.spawn(argv, size=(cols, rows))` starts the child on a fresh pty (TERM=xterm-256color, its own
session); `send(b"...")` writes keys; `pump(timeout)` reads what the child wrote and feeds it to a pyte
screen; `wait_for(text, timeout)` pumps until the screen shows `text` (generous timeouts: the tests never
assert on time, they only wait); `display()` is the screen as lines (a wide character's second cell is
dropped, so Chinese reads as written). `close()` ends the child (ctrl+q, then SIGTERM, then SIGKILL) and
reaps it. Key bytes as a terminal sends them are in `KEYS`.
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

    @classmethod
    def spawn(cls, argv: Sequence[str], *, size: tuple[int, int] = (80, 24), env: dict[str, str] | None = None,
              cwd: Path = ROOT) -> PtyTerm:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
        child_env = dict(os.environ if env is None else env)
        child_env.update(TERM="xterm-256color", COLUMNS=str(size[0]), LINES=str(size[1]))
        child_env["PYTHONPATH"] = str(ROOT) + os.pathsep + child_env.get("PYTHONPATH", "")
        for name in ("NO_COLOR", "TEXTUAL", "TEXTUAL_DRIVER"):
            child_env.pop(name, None)
        proc = subprocess.Popen(
            list(argv), stdin=slave, stdout=slave, stderr=slave, env=child_env, cwd=str(cwd),
            start_new_session=True, close_fds=True,
        )
        os.close(slave)
        return cls(proc, master, size)

    # ------------------------------------------------------------------ reading

    def pump(self, timeout: float) -> bool:
        """Read what is there within `timeout` seconds (then whatever follows at once); True if anything came."""
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

    def close(self) -> None:
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
