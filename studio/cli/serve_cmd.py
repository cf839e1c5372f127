"""`novel-studio serve [--project DIR] [--offline] [--port 8000] [--host 127.0.0.1]`: the studio in a browser.

textual-serve (the optional extra `serve`: `pip install 'novel-studio[serve]'`) starts a small web server; each
browser tab runs `python -m studio.cli.main --project DIR --lang L [--offline]` in its own process and shows
it. Without textual-serve the command says how to install it and exits 1. The host defaults to 127.0.0.1, so
the studio is reachable from this machine only (over SSH: forward the port, `ssh -L 8000:127.0.0.1:8000`).

Stopping (Ctrl+C, SIGTERM): before the server shuts down, every session process (the server's descendants) gets
SIGINT, so a run in any tab is interrupted as `continue` is by Ctrl+C: the chapter stays resumable and the
session exits 130 at once, instead of waiting for textual-serve's polite "quit" while it keeps committing.
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
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
    "serving": (
        "在浏览器中打开 http://{host}:{port} ；按 Ctrl+C 停止",
        "Open http://{host}:{port} in a browser; press Ctrl+C to stop",
    ),
    "title": ("novel-studio：{name}", "novel-studio: {name}"),
}

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lang = help_lang()
    parser = subparsers.add_parser("serve", help=tr(MESSAGES, "help", lang), description=tr(MESSAGES, "help", lang))
    add_common_arguments(parser)  # --offline is a common flag (before or after `serve`)
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=tr(MESSAGES, "opt_port", lang))
    parser.add_argument("--host", default=DEFAULT_HOST, help=tr(MESSAGES, "opt_host", lang))
    parser.set_defaults(func=run)


def studio_command(root: Path, *, offline: bool, lang: Lang | None = None, python: str | None = None) -> str:
    """The shell command textual-serve runs for each browser session (quoted for the shell)."""
    parts = [python or sys.executable, "-m", "studio.cli.main", "--project", str(Path(root).resolve())]
    if lang is not None:
        parts += ["--lang", lang]
    if offline:
        parts.append("--offline")
    return shlex.join(parts)


def _load_server() -> Any:
    """textual_serve's `Server` class, or None when the optional extra is not installed."""
    try:
        from textual_serve.server import Server
    except ImportError:
        return None
    return Server


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
    print(tr(MESSAGES, "serving", lang, host=host, port=port))
    server = interrupting(server_cls)(command, host=host, port=port, title=tr(MESSAGES, "title", lang, name=root.name))
    server.serve()
    return int(ExitCode.OK)
