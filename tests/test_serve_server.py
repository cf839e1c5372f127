"""`studio.cli.serve_server`: the page the browser gets (focus on load, the author's language, no web font
from the internet) served by the real aiohttp app on an ephemeral port, and a session that ignores the
polite quit ended by signals when its tab closes."""

from __future__ import annotations

import asyncio
import logging
import shlex
import signal
import sys
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer
from textual_serve.download_manager import DownloadManager

from studio.cli import serve_cmd
from studio.cli.serve_server import StudioAppService, StudioServer, page_templates
from studio.i18n import Lang
from tests.serve_client import WS_URL, alive


async def served_page(lang: Lang, public_url: str | None = "http://127.0.0.1:8000") -> str:
    server = StudioServer("true", lang=lang, title="novel-studio：守灯人", public_url=public_url)
    async with TestClient(TestServer(await server._make_app())) as client:
        reply = await client.get("/")
        assert reply.status == 200
        return await reply.text()


def test_the_template_is_package_data() -> None:
    assert (page_templates() / "app_index.html").is_file()


async def test_the_page_takes_keys_without_a_click_and_speaks_chinese() -> None:
    page = await served_page("zh")
    assert 'lang="zh-CN"' in page
    assert "<title>novel-studio：守灯人</title>" in page
    assert ".xterm-helper-textarea" in page and "input.focus()" in page  # key focus on load
    assert 'window.addEventListener("load"' in page
    for words in ("会话已结束。", "重新打开", "正在打开工作室"):
        assert words in page
    for english in ("Session ended.", "Restart", ">Start<", "Textual Application"):
        assert english not in page
    assert "fonts.googleapis.com" not in page  # blocked in mainland China: the page would wait for it
    assert "fonts/RobotoMono-VariableFont_wght.ttf" in page  # the same font, served by serve itself


async def test_english_page() -> None:
    page = await served_page("en")
    assert 'lang="en"' in page
    assert "Session ended." in page and "Restart" in page and ">Start<" in page
    assert "会话" not in page


async def test_the_page_addresses_come_from_the_public_url() -> None:
    page = await served_page("zh", public_url="https://novel.example:9443")
    match = WS_URL.search(page)
    assert match and match.group(1) == "wss://novel.example:9443/ws"
    assert "https://novel.example:9443/static/css/xterm.css" in page


async def test_without_a_public_url_the_page_addresses_are_relative() -> None:
    """The browser resolves them against where it found the page: an SSH forward to another port, any name
    of a `--host 0.0.0.0` server, a proxy (the page's script gives the websocket the ws/wss scheme)."""
    page = await served_page("zh", public_url=None)
    match = WS_URL.search(page)
    assert match and match.group(1) == "ws"
    assert 'href="static/css/xterm.css"' in page and 'src="static/js/textual.js"' in page
    assert "127.0.0.1" not in page and "localhost" not in page
    assert "new URL(terminal.dataset.sessionWebsocketUrl, window.location.href)" in page


def test_no_english_access_log_per_request() -> None:
    server = StudioServer("true")
    try:
        server.initialize_logging()
        assert not logging.getLogger("aiohttp.access").isEnabledFor(logging.INFO)
        assert logging.getLogger("aiohttp.access").isEnabledFor(logging.WARNING)
    finally:
        logging.getLogger("aiohttp.access").setLevel(logging.NOTSET)
        for handler in list(logging.getLogger().handlers):
            if handler.__class__.__name__ == "RichHandler":
                logging.getLogger().removeHandler(handler)


def test_serve_uses_the_studio_server() -> None:
    assert serve_cmd._load_server() is StudioServer


STUBBORN = """
import signal, sys, time
signal.signal(signal.SIGINT, signal.SIG_IGN)  # a studio stuck on its event loop: not even SIGINT helps
sys.stdout.write("__GANGLION__\\n"); sys.stdout.flush()
while sys.stdin.buffer.read(1):  # reads the "quit" packet and ignores it
    pass
time.sleep(600)
"""


def ignores_sigint(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    mask = int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigIgn:")), 16)
    return bool(mask & (1 << (signal.SIGINT - 1)))


async def test_a_closed_tab_ends_a_session_that_ignores_quit(tmp_path: Path) -> None:
    """textual-serve waits forever for a session that does not quit; ours escalates to signals. The session
    is the command itself, not a shell around it."""
    script = tmp_path / "stubborn.py"
    script.write_text(STUBBORN, encoding="utf-8")
    sent: list[bytes] = []

    async def write_bytes(data: bytes) -> None:
        sent.append(data)

    async def write_str(data: str) -> None:
        sent.append(data.encode())

    async def close() -> None:
        return None

    service = StudioAppService(
        shlex.join([sys.executable, str(script)]), write_bytes=write_bytes, write_str=write_str, close=close,
        download_manager=DownloadManager(),
    )
    service.quit_grace_s = 0.2
    service.signal_grace_s = 0.5
    await service.start(80, 24)
    process = service._process
    assert process is not None

    def argv() -> list[str]:  # empty while the shell's exec is under way (read too early under load)
        return Path(f"/proc/{process.pid}/cmdline").read_text(errors="replace").split("\0")

    for _ in range(6000):  # until the shell has exec'd the command in its place (same pid; its argv[0])
        if argv()[0] == sys.executable:
            break
        await asyncio.sleep(0.02)
    assert argv()[:2] == [sys.executable, str(script)]  # the session is the command, not `sh -c` around it
    for _ in range(6000):  # until the script ignores SIGINT (a slow start must not look like a quick death)
        if ignores_sigint(process.pid):
            break
        await asyncio.sleep(0.02)
    assert ignores_sigint(process.pid)
    await asyncio.wait_for(service.stop(), timeout=120)  # never returned before: the test failed by timing out
    assert process.returncode is not None
    assert process.returncode == -signal.SIGTERM  # SIGINT ignored, SIGTERM ended it: SIGKILL not needed
    assert not alive(process.pid)


async def test_a_session_that_quits_is_not_signalled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The polite quit is enough for a session that honours it: no signal is sent."""
    script = tmp_path / "polite.py"
    script.write_text('import sys\nsys.stdout.write("__GANGLION__\\n"); sys.stdout.flush()\nsys.stdin.buffer.read(1)\n',
                      encoding="utf-8")
    signals: list[int] = []

    def record(pids: set[int], sig: signal.Signals) -> list[int]:
        signals.append(sig)
        return []

    monkeypatch.setattr("studio.cli.serve_server.signal_tree", record)

    async def ignore(data: object) -> None:
        return None

    async def close() -> None:
        return None

    service = StudioAppService(
        shlex.join([sys.executable, str(script)]), write_bytes=ignore, write_str=ignore, close=close,
        download_manager=DownloadManager(),
    )
    service.quit_grace_s = 120.0  # generous: the session ends on its own long before
    await service.start(80, 24)
    process = service._process
    assert process is not None
    await asyncio.wait_for(service.stop(), timeout=120)
    assert process.returncode == 0 and signals == []


def test_the_readme_tells_what_the_browser_mode_needs() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    zh = readme.split("### 浏览器模式", 1)[1].split("\n### ", 1)[0]
    en = readme.split("### The browser mode", 1)[1].split("\n### ", 1)[0]
    for section, font in ((zh, "中文字体"), (en, "CJK font")):
        assert font in section
        assert "Ctrl+C" in section and "--public-url" in section and "--host" in section


async def test_a_session_starts_with_sigint_ignored(tmp_path: Path) -> None:
    """A Ctrl+C on serve while a session is still starting must not end it with a KeyboardInterrupt traceback
    from the interpreter's start: the session starts with SIGINT ignored (the studio takes it over later)."""
    script = tmp_path / "plain.py"
    script.write_text('import sys\nsys.stdout.write("__GANGLION__\\n"); sys.stdout.flush()\nsys.stdin.buffer.read(1)\n',
                      encoding="utf-8")

    async def ignore(data: object) -> None:
        return None

    async def close() -> None:
        return None

    service = StudioAppService(shlex.join([sys.executable, str(script)]), write_bytes=ignore, write_str=ignore,
                               close=close, download_manager=DownloadManager())
    service.quit_grace_s = 0.2
    await service.start(80, 24)
    process = service._process
    assert process is not None

    def argv() -> list[str]:
        return Path(f"/proc/{process.pid}/cmdline").read_text(errors="replace").split("\0")

    for _ in range(6000):  # until the shell has exec'd the command in its place (same pid; its argv[0])
        if argv()[0] == sys.executable:
            break
        await asyncio.sleep(0.02)
    assert argv()[:2] == [sys.executable, str(script)]
    assert ignores_sigint(process.pid)
    await asyncio.wait_for(service.stop(), timeout=120)
    assert not alive(process.pid)
