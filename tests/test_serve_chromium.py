"""`novel-studio serve` in a REAL browser: headless Chromium driven over the DevTools Protocol
(tests/chromium_cdp.py) against the real server and studio (offline provider, a fresh sample novel, a free
port, tmp folders only). What the author sees is read from the page's own xterm.js buffer; keys go to
whatever the page focused (`Input.dispatchKeyEvent`: the test never clicks and never sets the focus).

Checked: the page loads and shows the main screen, also through an SSH-like forward from another port (the
page connects back where the browser found it, with no option); the first key, with no click, reaches the studio (`?`
opens the key help); Chinese committed by an input method (`Input.insertText`) arrives in search; a chapter
streams into the page; Ctrl+C on `serve` mid-run ends serve, its session and the page's connection (the
page says the session ended), with the chapter resumable and nothing committed; a tab that navigates away
ends its session while serve keeps serving.

Skipped, with the reason, where there is no Chromium (`apt-get install chromium`, or `$CHROMIUM`). Run it
alone: `.venv/bin/python -m pytest tests/test_serve_chromium.py -q`. Nothing is timed here (every step waits
for a condition, generously); `python bench/bench_serve.py --chromium` prints the times.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import serve_client
from tests.chromium_cdp import Chromium, chromium_path
from tests.serve_client import PortForward, ServeProcess, alive, wait_until

serve = serve_client.serve  # the fixture: `novel-studio serve` on conftest's `sample`

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="reads /proc and sends POSIX signals"),
    pytest.mark.skipif(chromium_path() is None,
                       reason="no Chromium to drive (apt-get install chromium, or set $CHROMIUM)"),
    pytest.mark.serial,  # kills processes, and a browser is heavy: one at a time
    pytest.mark.xdist_group("serial"),
]


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Chromium]:
    chromium = Chromium.launch(tmp_path / "chromium-profile")
    try:
        yield chromium
    finally:
        chromium.close()


def _main_screen(browser: Chromium, serve: ServeProcess) -> None:
    browser.open(serve.base_url + "/")
    shown = browser.wait_for(lambda text: "大纲" in text and "2/10章" in text)
    assert shown, f"{browser.screen_text()}\n{serve.stderr()}"


def _page_closed(browser: Chromium) -> bool:
    return bool(browser.evaluate("document.body.classList.contains('-closed')"))


def test_keys_work_without_a_click_and_chinese_reaches_search(browser: Chromium, serve: ServeProcess) -> None:
    _main_screen(browser, serve)
    # The page put the key focus in the terminal by itself (textual-serve's own page leaves it on <body>).
    assert browser.active_element() == "TEXTAREA.xterm-helper-textarea"
    assert "快捷键" not in (browser.screen_text() or "")
    browser.press("?")  # the first key of the session, no click before it
    assert browser.wait_text("快捷键"), browser.screen_text()  # the key help opened
    browser.press("Escape")
    assert browser.wait_for(lambda text: "快捷键" not in text), browser.screen_text()
    browser.press("/")
    assert browser.wait_text("搜索正文和摘要"), browser.screen_text()
    browser.insert_text("守灯司")  # what an input method commits
    assert browser.wait_for(lambda text: "守灯司" in text and "条结果" in text), browser.screen_text()
    assert not _page_closed(browser)


def test_a_chapter_streams_and_ctrl_c_on_serve_stops_it(browser: Chromium, serve: ServeProcess, sample: Path) -> None:
    _main_screen(browser, serve)
    sessions = serve.sessions()
    assert sessions and all(alive(pid) for pid in sessions)
    browser.press("c")
    # The draft of chapter 3 streams into the chapter pane: its first sentence, then the next one.
    assert browser.wait_text("写作中"), browser.screen_text()
    assert browser.wait_text("天已经黑透了"), browser.screen_text()
    assert browser.wait_text("眼下的事明摆着"), browser.screen_text()

    serve.interrupt()  # Ctrl+C in the terminal that runs serve
    assert serve.wait_exit() == 0, serve.stderr()
    assert wait_until(lambda: not [pid for pid in sessions if alive(pid)]), sessions
    assert wait_until(lambda: _page_closed(browser))  # the page lost its connection...
    ended = browser.evaluate("document.querySelector('.closed-dialog .message').innerText")
    assert "会话已结束" in str(ended)  # ...and says so in the author's language
    checkpoint = json.loads((sample / ".checkpoint.json").read_text(encoding="utf-8"))
    assert checkpoint.get("last_completed_chapter") == 2 and checkpoint.get("inflight_chapter") == 3, checkpoint
    assert not (sample / "chapters" / "chapter-003.md").exists()  # nothing committed after Ctrl+C
    log = (sample / ".novel-studio" / "logs" / "studio.log").read_text(encoding="utf-8")
    assert "interrupted by a signal" in log
    output = serve.stderr() + serve.stdout()
    assert "Traceback" not in output, output


def test_a_tab_that_navigates_away_ends_its_session(browser: Chromium, serve: ServeProcess) -> None:
    _main_screen(browser, serve)
    sessions = serve.sessions()
    assert sessions and all(alive(pid) for pid in sessions)
    browser.open("about:blank")
    assert wait_until(lambda: not [pid for pid in sessions if alive(pid)]), sessions
    assert serve.proc.poll() is None  # serve itself keeps serving
    serve.interrupt()
    assert serve.wait_exit() == 0, serve.stderr()


def test_the_page_connects_back_through_a_forward_to_another_port(browser: Chromium, serve: ServeProcess) -> None:
    """`ssh -L 9000:127.0.0.1:8000 server`, then the page opened at port 9000: no `--public-url` needed."""
    forward = PortForward(serve.port)
    try:
        browser.call("Network.enable")
        page = f"http://127.0.0.1:{forward.port}/"
        browser.open(page)
        assert browser.wait_for(lambda text: "大纲" in text and "2/10章" in text), browser.screen_text()
        created = browser.wait_event("Network.webSocketCreated")
        assert created is not None
        assert str(created["params"]["url"]).startswith(f"ws://127.0.0.1:{forward.port}/ws?"), created
        browser.press("?")
        assert browser.wait_text("快捷键"), browser.screen_text()
    finally:
        browser.open("about:blank")
        forward.close()
