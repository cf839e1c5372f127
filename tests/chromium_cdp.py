"""A real headless Chromium driven over the Chrome DevTools Protocol, for the browser check of `serve`
(tests/test_serve_chromium.py, `bench/bench_serve.py --chromium`). No new dependency: the protocol is JSON
over a websocket, spoken with aiohttp (installed with textual-serve).

`Chromium.launch(profile)` runs `chromium --headless=new --remote-debugging-port=0 --user-data-dir=PROFILE
about:blank` (the kernel picks the port: no fixed port; the profile is a tmp dir, so parallel runs share
nothing) and reads the port Chromium writes to `PROFILE/DevToolsActivePort`; it then attaches to the one page
(`/json/list`). `call(method, **params)` sends a command and returns its result; events are kept for
`wait_event`. `open(url)` loads a page after installing `TERMINAL_HOOK`, so `screen_text()` can read the
xterm.js buffer of textual-serve's page: the text the browser shows, cell by cell, whatever the renderer
(textual.js draws with WebGL or canvas, so the DOM holds no text). `press(key)` sends a key as a keyboard
does (`Input.dispatchKeyEvent`, to whatever has the focus: no click, no focus set by the test) and
`insert_text(text)` commits text as an input method does (`Input.insertText`).

Where to find Chromium: `chromium_path()` (`$CHROMIUM`, else `chromium`, `chromium-browser`, `google-chrome`
on PATH); None when there is none (the check is then skipped with that reason).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

# Run before the page's scripts: textual.js keeps its terminal object in a closure, reachable from no global.
# Its constructor's `this.fitAddon = ...` is the first write of that name on the object, so a setter on
# Object.prototype sees the object once, keeps it as `window.__studioTerminal` and steps aside (an own
# property from then on: later writes are plain).
TERMINAL_HOOK = """
Object.defineProperty(Object.prototype, "fitAddon", {
  configurable: true,
  set(value) {
    if (this.terminal && this.terminal.buffer) { window.__studioTerminal = this; }
    Object.defineProperty(this, "fitAddon", {value, writable: true, configurable: true, enumerable: true});
  },
});
"""

# The xterm.js buffer as lines (a wide character's second cell is dropped by translateToString).
READ_SCREEN = """
(() => {
  const host = window.__studioTerminal;
  if (!host) { return null; }
  const buffer = host.terminal.buffer.active;
  const lines = [];
  for (let y = 0; y < host.terminal.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    lines.push(line ? line.translateToString(true) : "");
  }
  return lines.join("\\n");
})()
"""

# Keys as a US keyboard sends them: key, code, Windows virtual key code, the text it types.
KEYS: dict[str, tuple[str, str, int, str]] = {
    "Enter": ("Enter", "Enter", 13, "\r"),
    "Escape": ("Escape", "Escape", 27, ""),
    "Tab": ("Tab", "Tab", 9, "\t"),
    "?": ("?", "Slash", 191, "?"),
    "/": ("/", "Slash", 191, "/"),
}


def chromium_path() -> str | None:
    """The Chromium to drive: `$CHROMIUM`, else the first browser of `BROWSERS` on PATH."""
    given = os.environ.get("CHROMIUM")
    if given:
        return given if Path(given).is_file() else None
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return None


class Chromium:
    """One headless Chromium with one page, driven over CDP from a background event loop."""

    def __init__(self, proc: subprocess.Popen[bytes], profile: Path) -> None:
        self.proc = proc
        self.profile = profile
        self.events: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._next_id = 0
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._hooked = False
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._session: aiohttp.ClientSession | None = None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ life

    @classmethod
    def launch(cls, profile: Path, *, size: tuple[int, int] = (1280, 800), timeout: float = 120.0) -> Chromium:
        binary = chromium_path()
        if binary is None:
            raise FileNotFoundError("no Chromium on PATH (set $CHROMIUM)")
        profile.mkdir(parents=True, exist_ok=True)
        argv = [
            binary, "--headless=new", "--remote-debugging-port=0", f"--user-data-dir={profile}",
            f"--window-size={size[0]},{size[1]}", "--no-first-run", "--no-default-browser-check",
            "--disable-extensions", "--disable-background-networking", "--disable-sync",
            "--disable-component-update", "--mute-audio", "--no-proxy-server",
            "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
            # Chromium's sandbox refuses root and needs user namespaces a container may not have; the browser
            # only ever loads the test's own loopback pages.
            "--no-sandbox",
            "about:blank",
        ]
        with (profile / "chromium-stderr.txt").open("wb") as err:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                    start_new_session=True)
        browser = cls(proc, profile)
        try:
            port = browser._wait_port(timeout)
            target = browser._page_target(port, timeout)
            asyncio.run_coroutine_threadsafe(browser._connect(target), browser._loop).result(timeout)
        except BaseException:
            browser.close()
            raise
        return browser

    def _wait_port(self, timeout: float) -> int:
        """The DevTools port Chromium picked (it writes it to the profile's DevToolsActivePort)."""
        marker = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"Chromium exited {self.proc.returncode}:\n{self.stderr()}")
            with contextlib.suppress(OSError, ValueError, IndexError):
                return int(marker.read_text(encoding="utf-8").split()[0])
            time.sleep(0.05)
        raise TimeoutError(f"Chromium did not open its DevTools port:\n{self.stderr()}")

    def _page_target(self, port: int, timeout: float) -> str:
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError, ValueError):
                with direct.open(f"http://127.0.0.1:{port}/json/list", timeout=30) as reply:
                    targets = json.loads(reply.read().decode("utf-8"))
                for target in targets:
                    if target.get("type") == "page" and target.get("webSocketDebuggerUrl"):
                        return str(target["webSocketDebuggerUrl"])
            time.sleep(0.1)
        raise TimeoutError("Chromium shows no page")

    async def _connect(self, url: str) -> None:
        self._session = aiohttp.ClientSession()
        self._ws = await self._session.ws_connect(url, max_msg_size=0)
        self._loop.create_task(self._read())

    async def _read(self) -> None:
        ws = self._ws
        assert ws is not None
        async for message in ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            data = json.loads(message.data)
            future = self._pending.pop(data.get("id", -1), None)
            if future is not None:
                if not future.done():
                    future.set_result(data)
            elif "method" in data:
                with self._lock:
                    self.events.append(data)
        for future in self._pending.values():
            if not future.done():
                future.set_exception(ConnectionError("the DevTools connection closed"))

    def close(self) -> None:
        """Close the connection and end Chromium (its whole process group)."""
        async def shut() -> None:
            if self._ws is not None:
                await self._ws.close()
            if self._session is not None:
                await self._session.close()

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(shut(), self._loop).result(30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(30)
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, 15)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.proc.pid, 9)
                self.proc.wait()

    def stderr(self) -> str:
        try:
            return (self.profile / "chromium-stderr.txt").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    # ------------------------------------------------------------------ protocol

    def call(self, method: str, timeout: float = 60.0, **params: Any) -> dict[str, Any]:
        """Send one command; its result (raises with Chromium's message on an error reply)."""
        async def send() -> dict[str, Any]:
            ws = self._ws
            assert ws is not None
            self._next_id += 1
            future: asyncio.Future[dict[str, Any]] = self._loop.create_future()
            self._pending[self._next_id] = future
            await ws.send_str(json.dumps({"id": self._next_id, "method": method, "params": params}))
            return await future

        reply = asyncio.run_coroutine_threadsafe(send(), self._loop).result(timeout)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        result: dict[str, Any] = reply.get("result", {})
        return result

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (promises awaited)."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression!r}: {result['exceptionDetails']}")
        return result.get("result", {}).get("value")

    def wait_event(self, method: str, check: Callable[[dict[str, Any]], bool] = lambda _: True,
                   timeout: float = 120.0) -> dict[str, Any] | None:
        """The first event `method` (since launch) whose params pass `check`, waiting up to `timeout`."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                for event in self.events:
                    if event.get("method") == method and check(event.get("params", {})):
                        return event
            if time.monotonic() > deadline:
                return None
            time.sleep(0.05)

    # ------------------------------------------------------------------ the page

    def open(self, url: str) -> None:
        """Load `url` with `TERMINAL_HOOK` installed; returns once the page's load event fired."""
        if not self._hooked:
            self.call("Page.enable")
            self.call("Page.addScriptToEvaluateOnNewDocument", source=TERMINAL_HOOK)
            self._hooked = True
        with self._lock:
            self.events.clear()
        self.call("Page.navigate", url=url)
        if self.wait_event("Page.loadEventFired") is None:
            raise TimeoutError(f"the page did not load: {url}")

    def screen_text(self) -> str | None:
        """The terminal's text as the page shows it; None before textual.js made its terminal."""
        value = self.evaluate(READ_SCREEN)
        return None if value is None else str(value)

    def wait_for(self, check: Callable[[str], bool], timeout: float = 120.0) -> bool:
        """Poll the terminal's text until `check` holds (a generous limit, not a measure)."""
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen_text() or ""
            if check(text):
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.1)

    def wait_text(self, words: str, timeout: float = 120.0) -> bool:
        return self.wait_for(lambda text: words in text, timeout)

    def active_element(self) -> str:
        """What has the key focus: tag and class of `document.activeElement`."""
        return str(self.evaluate("(() => { const e = document.activeElement;"
                                 " return e ? e.tagName + '.' + e.className : ''; })()"))

    def press(self, key: str) -> None:
        """One key, down and up, sent to whatever has the focus (a letter or digit, or a name of `KEYS`)."""
        if key in KEYS:
            name, code, vk, text = KEYS[key]
        elif len(key) == 1 and key.isascii() and key.isalnum():
            name, code, vk, text = key, f"Key{key.upper()}" if key.isalpha() else f"Digit{key}", ord(key.upper()), key
        else:
            raise ValueError(f"no key for {key!r}")
        down: dict[str, Any] = {"type": "keyDown" if text else "rawKeyDown", "key": name, "code": code,
                                "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk}
        if text:
            down.update(text=text, unmodifiedText=text)
        self.call("Input.dispatchKeyEvent", **down)
        self.call("Input.dispatchKeyEvent", type="keyUp", key=name, code=code, windowsVirtualKeyCode=vk,
                  nativeVirtualKeyCode=vk)

    def insert_text(self, text: str) -> None:
        """Text committed by an input method (Chinese), to whatever has the focus."""
        self.call("Input.insertText", text=text)
