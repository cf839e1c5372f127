"""The studio's textual-serve server: our page, Chinese framework text, and sessions that end with their tab.

Imported only when textual-serve is installed (`serve_cmd._load_server`). `StudioServer` is textual_serve's
`Server` with these changes (besides, SIGINT to every session when `serve` stops is
`serve_cmd.interrupting`, wrapped around this class):

- The page is ours: `templates/serve/app_index.html` (package data), a copy of textual-serve's page that
  puts the key focus in the terminal as soon as the page loads (textual-serve's page only takes keys after a
  click, and that first click could land on a button of the studio), names itself after the novel, loads
  no web font from the internet (a render-blocking stylesheet from Google Fonts, unreachable from mainland
  China, would hold the page back until it times out), and
  shows its own words ("Session ended." / "Restart" / "Start") in the author's language: the template reads
  them from the Jinja global `page` (`page_text(lang)`) and the `<html lang>` from `page_lang`.
- A tab that closes or navigates away ends its session: when the websocket closes the session gets
  textual-serve's polite "quit"; a session still there after `QUIT_GRACE_S` gets SIGINT (the studio's
  resumable stop), then SIGTERM, then SIGKILL, `SIGNAL_GRACE_S` apart. textual-serve itself waits forever
  for a session that does not quit (a studio busy on its event loop), leaving it running, hidden. The session
  is the studio process itself (textual-serve runs `sh -c COMMAND`; ours `exec`s the command, `shlex.join`ed
  by `serve_cmd.studio_command` so it splits back exactly, in place of the shell), started with SIGINT
  ignored until the studio handles it (a Ctrl+C on serve during a session's start ends nothing half-way).
- The page finds the server where the browser found the page: without `--public-url` its addresses are
  relative (`static/...`, and the websocket `ws`, which the page resolves against its own location with the
  ws/wss scheme), so an SSH forward to another port, `--host 0.0.0.0` opened by any name or address, or a
  proxy all connect with no option (textual-serve writes absolute addresses from one fixed URL, which the
  browser often cannot reach). With `--public-url` the addresses are absolute on that URL, as textual-serve's.
- No English banner at start: `serve` prints its own line (where to open, how to stop) in the author's language,
  and no English access log line per request (aiohttp's access log logs warnings only).
- Once the server has stopped (every session reaped), `serve` ends at once, without the interpreter's
  teardown: `studio.cli.serve_exit.exit_at_once`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shlex
import signal
from asyncio.subprocess import Process
from importlib import resources
from pathlib import Path

import aiohttp_jinja2
from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from studio.cli.common import ExitCode
from studio.cli.serve_cmd import descendants
from studio.cli.serve_exit import exit_at_once
from studio.i18n import Catalog, Lang, tr

log = logging.getLogger("textual-serve")

MESSAGES: Catalog = {  # the page's own words (the `page` Jinja global: key -> text)
    "start": ("开始", "Start"),
    "ended": ("会话已结束。", "Session ended."),
    "ended_hint": (
        "工作室已退出，或 novel-studio serve 已停止。",
        "The studio has quit, or novel-studio serve has stopped.",
    ),
    "restart": ("重新打开", "Restart"),
    "loading": ("正在打开工作室……", "Opening the studio…"),
}


def page_text(lang: Lang) -> dict[str, str]:
    """Every word of the page in `lang` (the template's `page.KEY`)."""
    return {key: tr(MESSAGES, key, lang) for key in MESSAGES}


QUIT_GRACE_S = 1.5  # a quitting studio is gone in well under a second when idle
SIGNAL_GRACE_S = 1.0  # between SIGINT, SIGTERM and SIGKILL
SIGINT_IGNORED_EXEC = 'trap "" INT; exec "$@"'  # sh -c SCRIPT sh ARGV...: ARGV run in the shell's place
ESCALATION: tuple[signal.Signals, ...] = (signal.SIGINT, signal.SIGTERM, signal.SIGKILL)


def page_templates() -> Path:
    """The folder of our page template (package data of `templates`)."""
    return Path(str(resources.files("templates").joinpath("serve")))


def signal_tree(pids: set[int], sig: signal.Signals) -> list[int]:
    """Send `sig` to every process of `pids` and to their descendants now (who are added to `pids`, so a
    child orphaned by its parent's end still gets the next signal); returns the pids signalled."""
    for pid in list(pids):
        pids.update(descendants(pid))
    signalled: list[int] = []
    for target in sorted(pids, reverse=True):  # children (higher pids, as a rule) before their parents
        try:
            os.kill(target, sig)
        except (ProcessLookupError, PermissionError):
            continue
        signalled.append(target)
    return signalled


class StudioAppService(AppService):
    """One session process; `stop()` ends it for sure (see the module rules)."""

    quit_grace_s: float = QUIT_GRACE_S
    signal_grace_s: float = SIGNAL_GRACE_S

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Process:
        """The studio itself, not `sh -c COMMAND` around it (textual-serve's way): the signals of `stop()` and
        of Ctrl+C on `serve` reach the studio, and no shell is left to die first and orphan it. It starts with
        SIGINT ignored (`trap "" INT`, then the shell `exec`s the studio in its place, same pid; an ignored
        signal stays ignored across exec and Python keeps it so): a Ctrl+C on `serve` while the session is
        still starting would otherwise end it with a KeyboardInterrupt traceback from the interpreter's start
        (printed into serve's terminal). The studio takes SIGINT over once it runs (its own handler: the
        resumable stop); until then `stop()`'s SIGTERM ends a session that does not quit."""
        environment = self._build_environment(width=width, height=height)
        self._process = process = await asyncio.create_subprocess_exec(
            "/bin/sh", "-c", SIGINT_IGNORED_EXEC, "sh", *shlex.split(self.command),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=environment,
        )
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    async def stop(self) -> None:
        task = self._task
        process = self._process
        if task is None:
            return
        await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)
        await self.send_meta({"type": "quit"})
        pids = {process.pid} if process is not None else set()
        grace = self.quit_grace_s
        for sig in ESCALATION:
            done, _ = await asyncio.wait({task}, timeout=grace)
            if done:  # the session's output ended: it and anything holding its pipe are gone
                break
            log.info("session %s did not end, sending %s", sorted(pids), sig.name)
            signal_tree(pids, sig)
            grace = self.signal_grace_s
        await task
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                await process.wait()  # reaped: no zombie left behind
        self._task = None


class StudioServer(Server):
    """textual-serve's Server with our page, text and session ending (see the module rules)."""

    def __init__(
        self,
        command: str,
        *,
        lang: Lang = "zh",
        host: str = "localhost",
        port: int = 8000,
        title: str | None = None,
        public_url: str | None = None,
    ) -> None:
        super().__init__(command, host=host, port=port, title=title, public_url=public_url)
        self.templates_path = page_templates()
        self.lang: Lang = lang
        self.fixed_url = public_url.rstrip("/") if public_url else None  # None: the page's addresses are relative

    def initialize_logging(self) -> None:
        super().initialize_logging()
        logging.getLogger("aiohttp.access").setLevel(logging.WARNING)  # no English line per request

    @aiohttp_jinja2.template("app_index.html")
    async def handle_index(self, request: web.Request) -> dict[str, object]:
        """The page's context as textual-serve's (1.1) builds it, with relative addresses unless a public URL
        is fixed (see the module rules)."""
        base = self.fixed_url
        static = request.app.router["static"].url_for(filename="/")
        websocket = request.app.router["websocket"].url_for()
        if base is None:
            static_url = str(static).lstrip("/").rstrip("/") + "/"
            websocket_url = str(websocket).lstrip("/")
        else:
            static_url = f"{base}{static}".rstrip("/") + "/"
            scheme = "wss:" if base.startswith("https") else "ws:"
            websocket_url = scheme + f"{base}{websocket}".split(":", 1)[1]
        return {
            "font_size": to_int(request.query.get("fontsize", "16"), 16),
            "app_websocket_url": websocket_url,
            "config": {"static": {"url": static_url}},
            "application": {"name": self.title},
        }

    def serve(self, debug: bool = False) -> None:
        """Serve until Ctrl+C or SIGTERM, then end the process at once (see the module rules)."""
        super().serve(debug=debug)
        exit_at_once(int(ExitCode.OK))

    async def on_startup(self, app: web.Application) -> None:
        """Nothing more to print: `serve` has said where to open and how to stop in the author's language
        (textual-serve prints an English banner, the shell command and "Press Ctrl+C to quit")."""

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        env = aiohttp_jinja2.get_env(app)
        env.globals["page"] = page_text(self.lang)
        env.globals["page_lang"] = "zh-CN" if self.lang == "zh" else "en"
        return app

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """textual-serve's handler (1.1), with `StudioAppService` for the session."""
        websocket = web.WebSocketResponse(heartbeat=15)
        width = to_int(request.query.get("width", "80"), 80)
        height = to_int(request.query.get("height", "24"), 24)
        app_service: StudioAppService | None = None
        try:
            await websocket.prepare(request)
            app_service = StudioAppService(
                self.command,
                write_bytes=websocket.send_bytes,
                write_str=websocket.send_str,
                close=websocket.close,  # type: ignore[arg-type]  # textual-serve passes it so (returns bool)
                download_manager=self.download_manager,
                debug=self.debug,
            )
            await app_service.start(width, height)
            try:
                await self._process_messages(websocket, app_service)
            finally:
                await app_service.stop()
        except asyncio.CancelledError:
            await websocket.close()
        except Exception as error:
            log.exception(error)
        finally:
            if app_service is not None:
                await app_service.stop()
        return websocket
