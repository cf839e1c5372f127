"""`novel-studio serve [--project DIR] [--offline] [--port 8000] [--host 127.0.0.1] [--public-url URL]`: the studio
in a browser.

textual-serve (the optional extra `serve`: `pip install 'novel-studio[serve]'`) starts a small web server; each
browser tab runs `python -m studio.cli.serve_exit --project DIR --lang L [--offline]` (the studio, as
`novel-studio --project DIR ...` opens it, ending without the interpreter's teardown: `studio.cli.serve_exit`)
in its own process and shows it. Without textual-serve the command says how to install it and exits 1. The host defaults to 127.0.0.1, so
the studio is reachable from this machine only (over SSH: forward the port, `ssh -L 8000:127.0.0.1:8000`).

Before anything is printed the port is checked: `--port` must be 1-65535 (a usage error otherwise), and a port
already in use is said so in plain words (exit 1) instead of a file error after the "open this URL" line.
The "open" line prints the public URL: `--public-url` when given, else `http://<this machine's name>:<port>`
when listening on every address (`--host 0.0.0.0`), else `http://host:port`. The page itself connects back
wherever the browser found it (relative addresses: an SSH forward to another port works with no option);
only a `--public-url` fixes its addresses (`serve_server.StudioServer`). Session processes inherit `NOVEL_STUDIO_SERVED=1`, so
the studio's advice fits the browser (a missing key is set where `serve` runs, then `serve` restarted).

Stopping (Ctrl+C, SIGTERM): before the server shuts down, every session process (the server's descendants) gets
SIGINT, so a run in any tab is interrupted as `continue` is by Ctrl+C: the chapter stays resumable and the
session exits 130 at once, instead of waiting for textual-serve's polite "quit" while it keeps committing.
The page, its Chinese words, its key focus on load, and a tab that closes ending its session: see
`studio.cli.serve_server` (imported only when textual-serve is installed).
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import socket
import sys
from pathlib import Path
from typing import Any

from studio.cli.common import ExitCode, add_common_arguments, help_lang, require_project, resolve_lang
from studio.i18n import Catalog, Lang, tr

MESSAGES: Catalog = {
    "help": (
        "在浏览器中打开工作室（需要可选依赖 textual-serve）",
        "open the studio in a browser (needs the optional textual-serve)",
    ),
    "opt_port": ("端口（默认 8000）", "port (default 8000)"),
    "opt_host": (
        "监听地址（默认 127.0.0.1，只允许本机访问）",
        "address to listen on (default 127.0.0.1: this machine only)",
    ),
    "missing": (
        "浏览器模式需要 textual-serve，请先安装：pip install 'novel-studio[serve]'",
        "The browser mode needs textual-serve. Install it with: pip install 'novel-studio[serve]'",
    ),
    "serving_url": (
        "在浏览器中打开 {url} ；按 Ctrl+C 停止（浏览器需要中文字体，否则汉字显示为方框）",
        "Open {url} in a browser; press Ctrl+C to stop (the browser needs a Chinese font, else characters show as boxes)",
    ),
    "title": ("novel-studio：{name}", "novel-studio: {name}"),
    "opt_public_url": (
        "固定页面使用的地址并打印它（默认页面按浏览器打开它的地址连接，SSH 转发到其他端口也无需设置），"
        "例如 http://localhost:9000",
        "fix the address the page uses, and print it (by default the page connects where the browser opened it, "
        "an SSH forward to another port included), e.g. http://localhost:9000",
    ),
    "bad_port": ("端口必须是 1 到 65535 之间的整数：{value}", "the port must be a whole number from 1 to 65535: {value}"),
    "port_busy": (
        "无法在 {host}:{port} 上启动浏览器模式：{error}。换一个端口，例如 novel-studio serve --port {other}",
        "Cannot start the browser mode on {host}:{port}: {error}. Try another port, e.g. novel-studio serve --port {other}",
    ),
    "bad_public_url": (
        "--public-url 必须以 http:// 或 https:// 开头：{value}",
        "--public-url must start with http:// or https://: {value}",
    ),
}

SERVED_ENV = "NOVEL_STUDIO_SERVED"  # set for the session processes: the studio runs in a browser tab
WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", ""})

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lang = help_lang()
    parser = subparsers.add_parser("serve", help=tr(MESSAGES, "help", lang), description=tr(MESSAGES, "help", lang))
    add_common_arguments(parser)  # --offline is a common flag (before or after `serve`)
    parser.add_argument("--port", type=port_number, default=DEFAULT_PORT, help=tr(MESSAGES, "opt_port", lang))
    parser.add_argument("--host", default=DEFAULT_HOST, help=tr(MESSAGES, "opt_host", lang))
    parser.add_argument("--public-url", metavar="URL", default=None, help=tr(MESSAGES, "opt_public_url", lang))
    parser.set_defaults(func=run)


def port_number(text: str) -> int:
    """argparse type of `--port`: 1-65535."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(tr(MESSAGES, "bad_port", help_lang(), value=text))
    return value


def port_problem(host: str, port: int) -> str | None:
    """Why the server could not listen on (host, port), found by binding it once; None when it can."""
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as exc:
        return str(exc.strerror or exc)
    family, kind, proto, _, address = infos[0]
    try:
        with socket.socket(family, kind, proto) as probe:
            if os.name != "nt":
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server itself binds
            probe.bind(address)
    except OSError as exc:
        return str(exc.strerror or exc)
    return None


def public_url(host: str, port: int, given: str | None) -> str:
    """The URL printed (see the module rules)."""
    if given:
        return given.rstrip("/")
    if host in WILDCARD_HOSTS:
        return f"http://{socket.gethostname()}:{port}"
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def studio_command(root: Path, *, offline: bool, lang: Lang | None = None, python: str | None = None) -> str:
    """The shell command textual-serve runs for each browser session (quoted for the shell)."""
    parts = [python or sys.executable, "-m", "studio.cli.serve_exit", "--project", str(Path(root).resolve())]
    if lang is not None:
        parts += ["--lang", lang]
    if offline:
        parts.append("--offline")
    return shlex.join(parts)


def _load_server() -> Any:
    """The studio's server class (`serve_server.StudioServer`, a textual_serve `Server`), or None when the
    optional extra is not installed."""
    try:
        import textual_serve.server  # noqa: F401 - the optional extra
    except ImportError:
        return None
    from studio.cli.serve_server import StudioServer

    return StudioServer


def descendants(pid: int, proc: Path = Path("/proc")) -> list[int]:
    """Every descendant process of `pid` (children first), read from /proc; [] where there is no /proc."""
    children: dict[int, list[int]] = {}
    try:
        entries = list(proc.iterdir())
    except OSError:
        return []
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text(encoding="utf-8", errors="replace")
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile, or not ours to read
        children.setdefault(ppid, []).append(int(entry.name))
    out: list[int] = []
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(0), []):
            out.append(child)
            todo.append(child)
    return out


def interrupt_sessions(pid: int | None = None) -> list[int]:
    """Send SIGINT to every session process of this server; returns the pids signalled."""
    signalled: list[int] = []
    for child in descendants(os.getpid() if pid is None else pid):
        try:
            os.kill(child, signal.SIGINT)
        except (ProcessLookupError, PermissionError):
            continue
        signalled.append(child)
    return signalled


def interrupting(server_cls: Any) -> Any:
    """`server_cls` whose exit (Ctrl+C, SIGTERM) first interrupts every session (see the module docstring)."""

    class StudioServer(server_cls):
        def request_exit(self) -> None:
            interrupt_sessions()
            super().request_exit()

    return StudioServer


def run(args: argparse.Namespace) -> int:
    lang = resolve_lang(args)
    server_cls = _load_server()
    if server_cls is None:
        print(tr(MESSAGES, "missing", lang), file=sys.stderr)
        return int(ExitCode.ERROR)
    root = require_project(args)  # not a project: the usual clear error (exit 1), before a server starts
    lang = resolve_lang(args, root)
    command = studio_command(root, offline=bool(getattr(args, "offline", False)), lang=lang)
    host = str(args.host)
    port = int(args.port)
    given = getattr(args, "public_url", None)
    if given and not str(given).startswith(("http://", "https://")):
        print(tr(MESSAGES, "bad_public_url", lang, value=given), file=sys.stderr)
        return int(ExitCode.USAGE)
    problem = port_problem(host, port)
    if problem is not None:
        other = port + 1 if port < 65535 else 8000
        print(tr(MESSAGES, "port_busy", lang, host=host, port=port, error=problem, other=other), file=sys.stderr)
        return int(ExitCode.ERROR)
    url = public_url(host, port, given)
    print(tr(MESSAGES, "serving_url", lang, url=url))
    os.environ[SERVED_ENV] = "1"  # inherited by every session process
    server = interrupting(server_cls)(
        command, lang=lang, host=host, port=port, title=tr(MESSAGES, "title", lang, name=root.name),
        public_url=url if given else None,
    )
    server.serve()
    return int(ExitCode.OK)
