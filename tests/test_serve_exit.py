"""`studio.cli.serve_exit`: `serve` and its sessions end without the interpreter's teardown, and lose
nothing a normal exit gives (threads finished, atexit handlers run, output flushed, the status kept)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from studio.cli import serve_cmd, serve_server
from studio.cli.common import ExitCode
from studio.cli.serve_server import StudioServer
from tests.serve_client import ROOT

SCRIPT = """
import atexit, os, signal, sys, threading, time
from pathlib import Path
from studio.cli.serve_exit import exit_at_once

out = Path(sys.argv[1])
signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal, also when the suite runs as a background job

class Teardown:
    def __init__(self, path):  # holds what __del__ needs: module globals may already be None at teardown
        self.path, self.flags = str(path), os.O_WRONLY | os.O_CREAT
        self.open, self.write, self.close = os.open, os.write, os.close

    def __del__(self):
        fd = self.open(self.path, self.flags, 0o644)
        self.write(fd, b"ran")
        self.close(fd)

keep = Teardown(out / "teardown")  # a module global: finalized by the interpreter's teardown only

def commit():
    time.sleep(0.5)  # still running when the main thread asks to exit
    if sys.argv[2] != "plain":
        os.kill(os.getpid(), signal.SIGINT)  # a late Ctrl+C while the exit waits for this thread: ignored
    (out / "thread").write_text("done")

threading.Thread(target=commit).start()
atexit.register(lambda: (out / "atexit").write_text("ran"))
sys.stdout.write("partial line, no newline")
if sys.argv[2] == "fast":
    exit_at_once(130)
sys.exit(130)
"""


def _run(tmp_path: Path, how: str) -> subprocess.CompletedProcess[str]:
    out = tmp_path / how
    out.mkdir()
    return subprocess.run([sys.executable, "-c", SCRIPT, str(out), how], cwd=str(ROOT), capture_output=True,
                          text=True, timeout=120, check=False)


def test_exit_at_once_skips_only_the_teardown(tmp_path: Path) -> None:
    fast = _run(tmp_path, "fast")
    assert fast.returncode == 130, fast.stderr
    assert fast.stdout == "partial line, no newline"  # flushed
    assert "KeyboardInterrupt" not in fast.stderr and "Traceback" not in fast.stderr, fast.stderr
    assert (tmp_path / "fast" / "thread").read_text() == "done"  # the worker thread finished first
    assert (tmp_path / "fast" / "atexit").read_text() == "ran"  # the atexit handlers ran
    assert not (tmp_path / "fast" / "teardown").exists()  # the module teardown (the CPU it costs) was skipped

    # The controls. A plain exit reports the late Ctrl+C as a traceback; whether it then tears down depends on where
    # the signal lands, so the teardown marker is checked on an exit without one (it proves the marker works).
    normal = _run(tmp_path, "normal")
    assert "KeyboardInterrupt" in normal.stderr
    plain = _run(tmp_path, "plain")
    assert plain.returncode == 130, plain.stderr
    assert (tmp_path / "plain" / "teardown").read_text() == "ran"


def test_a_session_runs_the_cli_and_ends_with_its_status(tmp_path: Path) -> None:
    reply = subprocess.run([sys.executable, "-m", "studio.cli.serve_exit", "--project", str(tmp_path / "none"),
                            "status"], cwd=str(ROOT), capture_output=True, text=True, timeout=120, check=False)
    assert reply.returncode == 1, reply  # not a project: the CLI's clear error and status, not a traceback
    assert "Traceback" not in reply.stderr and reply.stderr.strip()


INTERRUPTED_START = """
import sys

class Interrupting:  # Ctrl+C on serve while the session imports the studio
    def find_spec(self, name, path=None, target=None):
        if name == "studio.cli.main":
            raise KeyboardInterrupt
        return None

sys.meta_path.insert(0, Interrupting())
from studio.cli.serve_exit import run_session
run_session(["--project", sys.argv[1]])
"""


def test_ctrl_c_while_a_session_starts_ends_it_quietly(tmp_path: Path) -> None:
    reply = subprocess.run([sys.executable, "-c", INTERRUPTED_START, str(tmp_path)], cwd=str(ROOT),
                           capture_output=True, text=True, timeout=120, check=False)
    assert reply.returncode == int(ExitCode.INTERRUPTED), reply
    assert "Traceback" not in reply.stderr and "KeyboardInterrupt" not in reply.stderr, reply.stderr


def test_the_session_command_uses_it(tmp_path: Path) -> None:
    argv = serve_cmd.studio_command(tmp_path, offline=True, lang="zh").split()
    assert argv[1:3] == ["-m", "studio.cli.serve_exit"]


def test_serve_ends_at_once_after_the_server_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[str] = []

    class Stopped(Exception):
        pass

    def fake_serve(self: object, debug: bool = False) -> None:
        events.append("served")

    def fake_exit(code: int) -> None:
        events.append(f"exit {code}")
        raise Stopped

    monkeypatch.setattr(serve_server.Server, "serve", fake_serve)
    monkeypatch.setattr(serve_server, "exit_at_once", fake_exit)
    with pytest.raises(Stopped):
        StudioServer("true").serve()
    assert events == ["served", "exit 0"]
