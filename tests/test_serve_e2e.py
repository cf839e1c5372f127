"""`novel-studio serve` end to end: the real textual-serve server and the real studio session, driven over
HTTP and the websocket the way the page's textual.js drives them (tests/serve_client.py), the screen read
by pyte. No browser, no network beyond loopback, no fixed port.

Ctrl+C on `serve` during a run: serve exits, the session process is gone, the chapter stays resumable
(checkpoint at the chapter in flight, nothing committed) and nothing is printed as a traceback. A tab that
closes during a run ends its session the same way, and the next tab is asked whether to resume.
Deterministic: every step waits for text on the screen or a fact on disk with a generous timeout; nothing
is timed (bench/bench_serve.py prints the times).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests import serve_client
from tests.serve_client import ServeProcess, Tab, alive, serving, wait_until

serve = serve_client.serve  # the fixture: `novel-studio serve` on conftest's `sample`

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="reads /proc and sends POSIX signals"),
    pytest.mark.serial,  # kills processes
    pytest.mark.xdist_group("serial"),
]

SIZE = (100, 30)


def _checkpoint(root: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((root / ".checkpoint.json").read_text(encoding="utf-8"))
    return data


def _open_and_start_a_chapter(serve: ServeProcess) -> tuple[Tab, list[int]]:
    tab = serve.open_tab(SIZE)
    assert tab.wait_for("大纲"), tab.text()  # the studio's Chinese main screen
    assert "2/10章" in tab.text(), tab.text()
    sessions = serve.sessions()
    assert sessions and all(alive(pid) for pid in sessions)
    tab.press("c")
    assert tab.wait_for("写作中"), tab.text()  # chapter 3 streams into the chapter pane
    return tab, sessions


def test_ctrl_c_on_serve_stops_the_run_and_every_session(serve: ServeProcess, sample: Path) -> None:
    tab, sessions = _open_and_start_a_chapter(serve)
    try:
        serve.interrupt()
        assert serve.wait_exit() == 0, serve.stderr()
        assert tab.closed.wait(60)  # the server closed the page's websocket
    finally:
        tab.close()
    assert not [pid for pid in sessions if alive(pid)]
    cp = _checkpoint(sample)
    assert cp.get("last_completed_chapter") == 2 and cp.get("inflight_chapter") == 3, cp
    assert not (sample / "chapters" / "chapter-003.md").exists()  # no half-committed chapter
    log = (sample / ".novel-studio" / "logs" / "studio.log").read_text(encoding="utf-8")
    assert "interrupted by a signal" in log  # stopped as Ctrl+C stops `continue`
    err = serve.stderr() + serve.stdout()
    assert "Traceback" not in err and "Event loop is closed" not in err, err
    assert "按 Ctrl+C 停止" in serve.stdout() and "Press Ctrl+C to quit" not in serve.stdout()  # one language
    assert "GET /ws" not in serve.stdout()  # no English access log line per request


def test_a_closed_tab_ends_its_session_and_the_next_tab_can_resume(serve: ServeProcess, sample: Path) -> None:
    tab, sessions = _open_and_start_a_chapter(serve)
    tab.close()  # the author closes the tab (or navigates away) mid-run
    assert wait_until(lambda: not [pid for pid in sessions if alive(pid)]), sessions
    assert serve.proc.poll() is None  # serve itself keeps serving
    cp = _checkpoint(sample)
    assert cp.get("last_completed_chapter") == 2 and cp.get("inflight_chapter") == 3, cp
    assert not (sample / "chapters" / "chapter-003.md").exists()

    again = serve.open_tab(SIZE)
    try:
        assert again.wait_for("上次被中断"), again.text()  # resume, later or discard: asked at start-up
    finally:
        again.close()
    serve.interrupt()
    assert serve.wait_exit() == 0, serve.stderr()
    err = serve.stderr() + serve.stdout()
    assert "Traceback" not in err, err


def test_chinese_typed_in_the_page_reaches_the_studio(serve: ServeProcess) -> None:
    """An input method's text arrives as textual.js sends it (one `stdin` frame of composed characters)."""
    tab = serve.open_tab(SIZE)
    try:
        assert tab.wait_for("大纲"), tab.text()
        tab.press("/")
        assert tab.wait_for("搜索正文和摘要"), tab.text()
        tab.press("守灯司")
        assert tab.wait_until(lambda: "守灯司" in tab.text() and "条结果" in tab.text()), tab.text()
    finally:
        tab.close()
    serve.interrupt()
    assert serve.wait_exit() == 0, serve.stderr()


def test_a_second_tab_on_the_same_project(tmp_path: Path, sample: Path) -> None:
    """Two tabs, one project: while one writes, the other does not start a second run on it; the chapter the
    first commits shows in the second as committed, not as a hand edit (no ↻ mark)."""
    with serving(sample, tmp_path, delay=0.05) as server:
        first = server.open_tab(SIZE)
        second = server.open_tab(SIZE)
        try:
            assert first.wait_for("大纲") and second.wait_for("大纲"), second.text()
            first.press("c")
            assert first.wait_for("写作中"), first.text()
            second.press("c")  # while the first tab's run holds the project (the draft streams for seconds)
            assert first.wait_for("3/10章", timeout=300), first.text()  # chapter 3 committed in the first tab
            assert (sample / "chapters" / "chapter-003.md").exists()
            assert _checkpoint(sample).get("inflight_chapter") is None, _checkpoint(sample)
            assert not (sample / "chapters" / "chapter-004.md").exists()  # the second tab wrote nothing
            assert second.wait_for("3/10章"), second.text()  # the second tab sees it...
            assert second.wait_until(lambda: "第3章" in second.text() and "✓" in second.text().split("第3章")[1][:40])
            assert "↻" not in second.text(), second.text()  # ...as a commit, not as a hand edit
        finally:
            first.close()
            second.close()
        server.interrupt()
        assert server.wait_exit() == 0, server.stderr()


def test_ctrl_c_on_serve_while_a_tab_opens(serve: ServeProcess) -> None:
    """The session is still importing the studio (before it handles SIGINT itself): it ends quietly."""
    tab = serve.open_tab(SIZE)
    try:
        assert wait_until(lambda: bool(serve.sessions()))
        sessions = serve.sessions()
        serve.interrupt()
        assert serve.wait_exit() == 0, serve.stderr()
    finally:
        tab.close()
    assert wait_until(lambda: not [pid for pid in sessions if alive(pid)]), sessions
    output = serve.stderr() + serve.stdout()
    assert "Traceback" not in output and "KeyboardInterrupt" not in output, output
