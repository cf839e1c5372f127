"""A studio whose terminal vanishes without a SIGHUP exits (issue 11): `studio.tui.hangup`.

Before: Textual's input thread looped on `select` + `os.read` returning b"" for ever, about two thirds of a core
(an orphan of a killed test run used 62 CPU-minutes in 98 minutes). Now the hang-up is seen by poll(2) and the
studio stops as on SIGHUP: the run interrupted resumably, exit 130.

The watch itself is tested in process on real ptys and pipes; the studio for real on a pty whose master side is
closed mid-run (and with a pipe for stdin that reaches EOF mid-run), then `continue` finishes the chapter.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import tty
from pathlib import Path
from typing import Any

import pytest

from studio.paths import ProjectPaths
from studio.tui.hangup import HangupWatch, can_watch
from tests.pty_term import PtyTerm, cpu_seconds, slow_offline_env, studio_argv

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs ptys and poll(2)")


class Calls:
    def __init__(self) -> None:
        self.count = 0
        self.event = threading.Event()

    def __call__(self) -> None:
        self.count += 1
        self.event.set()


def test_a_closed_pty_master_is_a_hang_up_and_input_is_left_for_the_reader() -> None:
    master, slave = os.openpty()
    tty.setraw(slave)  # as Textual sets it: a key is readable at once, not at the end of a line
    calls = Calls()
    watch = HangupWatch(slave, calls).start()
    try:
        os.write(master, b"c")  # a key: not a hang-up, and still there for Textual's reader afterwards
        assert not calls.event.wait(0.3)
        assert os.read(slave, 16) == b"c"
        os.close(master)
        assert calls.event.wait(60)
        watch._thread.join(60)
        assert not watch.alive and calls.count == 1
    finally:
        watch.stop()
        os.close(slave)


def test_a_pipe_whose_writer_is_gone_is_a_hang_up() -> None:
    read_end, write_end = os.pipe()
    calls = Calls()
    watch = HangupWatch(read_end, calls).start()
    try:
        os.close(write_end)
        assert calls.event.wait(60)
        assert calls.count == 1
    finally:
        watch.stop()
        os.close(read_end)


def test_stop_ends_the_watch_without_calling() -> None:
    master, slave = os.openpty()
    calls = Calls()
    watch = HangupWatch(slave, calls).start()
    watch.stop()
    assert not watch.alive
    os.close(master)  # after the stop: nobody is called
    assert not calls.event.wait(0.2)
    assert calls.count == 0
    watch.stop()  # twice is harmless
    os.close(slave)


def test_only_what_can_hang_up_is_watched(tmp_path: Path) -> None:
    master, slave = os.openpty()
    read_end, write_end = os.pipe()
    plain = tmp_path / "keys.txt"
    plain.write_text("q")
    with plain.open("rb") as regular, open(os.devnull, "rb") as null:
        assert can_watch(slave) and can_watch(read_end)
        assert not can_watch(regular.fileno()) and not can_watch(null.fileno())
    for fd in (master, slave, read_end, write_end):
        os.close(fd)
    assert not can_watch(slave)  # closed


# ------------------------------------------------------------------------------------ the studio, for real


def _checkpoint(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / ".checkpoint.json").read_text(encoding="utf-8"))
    return data


@pytest.mark.serial  # two studios on ptys exiting at once have taken over 30 s in the kernel's exit here
@pytest.mark.parametrize("gone", ["pty master closed", "stdin pipe at EOF"])
def test_a_vanished_terminal_stops_the_run_resumably_and_continue_finishes_it(
    sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], gone: str
) -> None:
    keys_in, keys = os.pipe() if gone == "stdin pipe at EOF" else (None, None)
    term = PtyTerm.spawn(studio_argv(sample), env=slow_offline_env(tmp_path / "site"), stdin=keys_in)
    if keys_in is not None:
        os.close(keys_in)
    try:
        assert term.wait_for("大纲"), term.text()
        if keys is None:
            term.send(b"c")
        else:
            os.write(keys, b"c")
        staged = sample / "staging" / "chapters"
        assert term.wait_until(lambda: any(staged.glob("chapter-003*"))), term.text()
        assert _checkpoint(sample).get("inflight_chapter") == 3
        before = cpu_seconds(term.proc.pid)
        if keys is None:
            term.hang_up()
        else:
            os.close(keys)
            keys = None
        code, cpu = term.wait_exit_cpu(120)  # generous: the exit itself takes well under a second
        log = (sample / ".novel-studio" / "logs" / "studio.log").read_text(encoding="utf-8")
        assert code == 130, log[-2000:]
        # No spinning while it stops: the old input loop burnt about 0.65 s of CPU per second, for ever.
        assert cpu - before < 3.0, (cpu, before)
    finally:
        if keys is not None:
            os.close(keys)
        term.close()
    assert "the terminal went away" in log and "interrupted by a signal" in log
    cp = _checkpoint(sample)
    assert cp["inflight_chapter"] == 3 and cp["last_completed_chapter"] == 2  # resumable, not committed
    assert any(staged.glob("chapter-003*"))  # the draft so far is kept
    assert not ProjectPaths(sample).lock_dir.exists()  # released

    from pipeline.providers.factory import OFFLINE_DELAY_ENV
    from studio.cli.main import main

    monkeypatch.setenv(OFFLINE_DELAY_ENV, "0")
    assert main(["continue", "1", "--project", str(sample), "--yes", "--offline"]) == 0, capsys.readouterr()
    cp = _checkpoint(sample)
    assert cp["last_completed_chapter"] == 3 and cp.get("inflight_chapter") is None
    assert (sample / "chapters" / "chapter-003.md").is_file()



# ------------------------------------------------------------------------ a standard input that is no terminal


@pytest.mark.parametrize(("keys", "lang"), [("/dev/null", "zh"), ("a file", "zh"), ("a file with q", "en")])
def test_a_studio_whose_input_is_a_file_says_it_needs_a_terminal_and_exits(
    sample: Path, tmp_path: Path, keys: str, lang: str
) -> None:
    """Before: with stdin from /dev/null or a file, Textual's reader took the file's bytes as keys ("q" quit
    with status 0) and then spun at the file's end for ever (about 3.5 CPU seconds in the first 8), with nothing
    to watch for a hang-up. Now: a message on the terminal, in the author's language, and a non-zero exit."""
    if keys == "/dev/null":
        fd = os.open(os.devnull, os.O_RDONLY)
    else:
        typed = tmp_path / "keys.txt"
        typed.write_bytes(b"q" if keys.endswith("q") else b"")
        fd = os.open(typed, os.O_RDONLY)
    term = PtyTerm.spawn(studio_argv(sample, "--lang", lang), stdin=fd)
    os.close(fd)
    try:
        code, _ = term.wait_exit_cpu(120)  # generous: it exits before Textual starts
        term.pump(0.2)
        text = term.raw.decode("utf-8", "replace")  # the message as written, not wrapped by the screen
    finally:
        term.close()
    assert code == 1, text
    if lang == "zh":
        assert "工作室需要在终端中运行" in text and "novel-studio continue" in text, text
        assert ("空设备" if keys == "/dev/null" else "文件") in text, text
    else:
        assert "needs a terminal" in text and "the file" in text, text
    assert not ProjectPaths(sample).lock_dir.exists()
