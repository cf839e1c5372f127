"""A browser tab without a browser: drives `novel-studio serve` the way textual-serve's page does, for the
end-to-end tests and `bench/bench_serve.py`.

`ServeProcess.start(root, port, env)` runs `python -m studio.cli.main --project ROOT --offline serve --port P`
(P from `free_port()`: bound on port 0 first, never a fixed port) and `wait_listening()` polls until it
accepts. `serve.open_tab(size)` (`Tab.open(page, size, base_url=)`) fetches the page (`GET /`), reads the
websocket address from the terminal element's `data-session-websocket-url` (resolved against the page's
address when relative, as the page's script does) and connects to it with `?width=&height=` as textual.js
does; it then sends `["resize", {"width", "height"}]`. The protocol (textual_serve/server.py and
static/js/textual.js): text frames are JSON arrays (`["stdin", keys]`, `["resize", {...}]`, `["ping", t]`,
`["focus"]`, `["blur"]`) and the server's binary frames are the terminal output, fed here to a pyte screen.
A reader thread keeps the screen current; `wait_for(text, timeout)` waits for text on the screen (generous
timeouts: nothing is timed). Closing the tab (`close()`) closes the websocket as a closing browser tab does.

The serve tests' `serve` fixture (the studio served on conftest's `sample` novel) is defined here once; a test
module takes it with `serve = serve_client.serve`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import aiohttp
import pyte
import pytest

ROOT = Path(__file__).resolve().parents[1]
WS_URL = re.compile(r'data-session-websocket-url="([^"]+)"')


def free_port() -> int:
    """A port nobody listens on now: the kernel's pick for port 0 (closed again at once)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def children_of(pid: int) -> list[int]:
    """Every descendant process of `pid` (read from /proc)."""
    from studio.cli.serve_cmd import descendants

    return descendants(pid)


def alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def serve_env(work: Path, delay: float = 0.2) -> dict[str, str]:
    """The environment of a served studio under test: HOME and the XDG folders in `work`, no API key, and the
    offline provider paced at `delay` seconds per text delta (a draft then streams for a while, so a stop
    lands mid-run)."""
    env = dict(os.environ)
    home = work / "home"
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), XDG_CONFIG_HOME=str(home / ".config"),
               NOVEL_STUDIO_OFFLINE_DELAY=str(delay))
    env.pop("ANTHROPIC_API_KEY", None)
    return env


def wait_until(check: Callable[[], bool], timeout: float = 120.0) -> bool:
    """Poll `check` until it holds or `timeout` passes (a generous limit, not a measure)."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return check()
        time.sleep(0.05)
    return True


class ServeProcess:
    """`novel-studio serve` as a child process; stdout and stderr are collected in files."""

    def __init__(self, proc: subprocess.Popen[bytes], port: int, logs: Path) -> None:
        self.proc = proc
        self.port = port
        self.logs = logs
        self.base_url = f"http://127.0.0.1:{port}"

    @classmethod
    def start(cls, root: Path, logs: Path, *, env: dict[str, str], extra: tuple[str, ...] = ()) -> ServeProcess:
        port = free_port()
        logs.mkdir(parents=True, exist_ok=True)
        child_env = dict(env)
        child_env["PYTHONPATH"] = str(ROOT) + os.pathsep + child_env.get("PYTHONPATH", "")
        for name in ("TEXTUAL", "TEXTUAL_DRIVER", "NOVEL_STUDIO_SERVED"):
            child_env.pop(name, None)
        argv = [sys.executable, "-m", "studio.cli.main", "--project", str(root), "--offline", *extra,
                "serve", "--port", str(port)]
        with (logs / "stdout.txt").open("wb") as out, (logs / "stderr.txt").open("wb") as err:
            proc = subprocess.Popen(argv, stdout=out, stderr=err, env=child_env, cwd=str(ROOT),
                                    start_new_session=True)
        return cls(proc, port, logs)

    def wait_listening(self, timeout: float = 120.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return True
            time.sleep(0.05)
        return False

    def open_tab(self, size: tuple[int, int] = (100, 30)) -> Tab:
        """A new tab on this server: its page fetched, its websocket connected."""
        return Tab.open(self.page(), size, base_url=self.base_url)

    def page(self, path: str = "/") -> str:
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never via an HTTP(S)_PROXY
        with direct.open(self.base_url + path, timeout=60) as reply:
            body: bytes = reply.read()
        return body.decode("utf-8")

    def sessions(self) -> list[int]:
        return children_of(self.proc.pid)

    def interrupt(self) -> None:
        """Ctrl+C on the terminal running `serve` (SIGINT to serve)."""
        self.proc.send_signal(signal.SIGINT)

    def wait_exit(self, timeout: float = 60.0) -> int | None:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def stderr(self) -> str:
        return (self.logs / "stderr.txt").read_text(encoding="utf-8", errors="replace")

    def stdout(self) -> str:
        return (self.logs / "stdout.txt").read_text(encoding="utf-8", errors="replace")

    def close(self) -> None:
        """End serve and anything it left (a test that failed half-way)."""
        left = self.sessions()
        if self.proc.poll() is None:
            self.proc.terminate()
            if self.wait_exit(10) is None:
                self.proc.kill()
                self.proc.wait()
        for pid in left:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)


@contextlib.contextmanager
def serving(root: Path, work: Path, *, delay: float = 0.2, logs: str = "serve-logs") -> Iterator[ServeProcess]:
    """`novel-studio serve` on `root` (environment: `serve_env(work, delay)`), listening; ended on exit."""
    server = ServeProcess.start(root, work / logs, env=serve_env(work, delay))
    try:
        assert server.wait_listening(), server.stderr()
        yield server
    finally:
        server.close()


@pytest.fixture
def serve(tmp_path: Path, sample: Path) -> Iterator[ServeProcess]:
    """`novel-studio serve` on the fresh sample novel (`sample`), listening; ended after the test."""
    with serving(sample, tmp_path) as server:
        yield server


class PortForward:
    """A TCP forward from a free local port to `target_port`: what `ssh -L OTHER:127.0.0.1:PORT` gives the
    browser (the page is then reached at another port than the one serve listens on)."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._connect, "127.0.0.1", 0), self._loop).result(60)
        self.port: int = self._server.sockets[0].getsockname()[1]

    async def _connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.CancelledError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        with contextlib.suppress(OSError):
            writer.close()

    def close(self) -> None:
        async def shut() -> None:
            self._server.close()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(shut(), self._loop).result(30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(30)


class Tab:
    """One browser tab on the served studio: a websocket session, its screen read by pyte."""

    def __init__(self, size: tuple[int, int]) -> None:
        self.size = size
        self.screen = pyte.Screen(*size)
        self.stream = pyte.ByteStream(self.screen)
        self.lock = threading.Lock()
        self.first_frame_at: float | None = None
        self.opened_at = 0.0
        self.closed = threading.Event()
        self.ready = threading.Event()
        self.error: BaseException | None = None
        self._loop = asyncio.new_event_loop()
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()

    @classmethod
    def open(cls, page: str, size: tuple[int, int] = (100, 30), *, base_url: str = "") -> Tab:
        """Connect to the websocket named by `page` (the served HTML, fetched from `base_url`) as textual.js
        does: a relative address is resolved against the page's address, with the ws/wss scheme."""
        match = WS_URL.search(page)
        assert match, "the page names no websocket"
        tab = cls(size)
        tab.opened_at = time.perf_counter()
        address = urllib.parse.urljoin(base_url + "/", match.group(1))
        address = re.sub(r"^http(s?)://", r"ws\1://", address)
        url = f"{address}?width={size[0]}&height={size[1]}"
        asyncio.run_coroutine_threadsafe(tab._run(url), tab._loop)
        tab.ready.wait(60)
        if tab.error is not None:
            raise tab.error
        tab.send_json(["resize", {"width": size[0], "height": size[1]}])
        return tab

    async def _run(self, url: str) -> None:
        try:
            async with aiohttp.ClientSession() as session, session.ws_connect(url) as ws:
                self._ws = ws
                self.ready.set()
                async for message in ws:
                    if message.type == aiohttp.WSMsgType.BINARY:
                        with self.lock:
                            if self.first_frame_at is None and len(message.data) > 10:
                                self.first_frame_at = time.perf_counter()  # textual.js's "-first-byte"
                            self.stream.feed(message.data)
                    elif message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.ERROR):
                        break
        except BaseException as exc:  # noqa: BLE001 - reported to the test through `error`
            self.error = exc
        finally:
            self.ready.set()
            self.closed.set()

    # ------------------------------------------------------------------ reading

    def display(self) -> list[str]:
        with self.lock:
            return ["".join(cell.data for cell in (row[x] for x in range(self.screen.columns)) if cell.data != "")
                    for row in (self.screen.buffer[y] for y in range(self.screen.lines))]

    def text(self) -> str:
        return "\n".join(self.display())

    def wait_until(self, check: Callable[[], bool], timeout: float = 120.0) -> bool:
        deadline = time.monotonic() + timeout
        while not check():
            if time.monotonic() > deadline or self.closed.is_set():
                return check()
            time.sleep(0.05)
        return True

    def wait_for(self, text: str, timeout: float = 120.0) -> bool:
        return self.wait_until(lambda: text in self.text(), timeout)

    # ------------------------------------------------------------------ writing

    def send_json(self, envelope: list[object]) -> None:
        ws = self._ws
        assert ws is not None
        asyncio.run_coroutine_threadsafe(ws.send_str(json.dumps(envelope)), self._loop).result(30)

    def press(self, keys: str) -> None:
        """Keys as xterm.js sends them (`onData`): the characters a terminal would write."""
        self.send_json(["stdin", keys])

    def close(self) -> None:
        """Close the websocket as a closing tab does; the reader ends."""
        ws = self._ws
        if ws is not None and not ws.closed:
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(ws.close(), self._loop).result(30)
        self.closed.wait(30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(30)
