"""`novel-studio demo [DIR]`: the bundled sample novel in a fresh folder, ready to explore.

Creates the sample project and opens the studio on it with the offline provider, and says where the folder is
(before the studio opens and again after it closes, with the command that opens it again); with `--no-tui`, or
when stdout is not a terminal, it prints the project's status instead.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from studio.cli.common import add_common_arguments, help_lang, resolve_lang
from studio.i18n import Catalog, tr
from studio.init_project import init_project
from studio.project import Project
from studio.status import build_status, render_status

MESSAGES: Catalog = {
    "help": ("创建示例小说并展示（离线，无需 API key）", "create the sample novel and show it (offline, no API key)"),
    "created": ("示例小说已创建：{path}", "Sample novel created at {path}"),
    "no_tui": ("只打印状态，不打开工作室", "print the status instead of opening the studio"),
    "opt_dir": ("示例小说的文件夹（默认：新建一个临时文件夹）", "target folder (default: a new temporary folder)"),
    "next": (
        "下一步：novel-studio status --project {path}",
        "Next: novel-studio status --project {path}",
    ),
    "where": (
        "示例小说在：{path}\n再次打开：novel-studio --project {path} --offline",
        "The sample novel is at: {path}\nOpen it again: novel-studio --project {path} --offline",
    ),
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lang = help_lang()
    parser = subparsers.add_parser("demo", help=tr(MESSAGES, "help", lang), description=tr(MESSAGES, "help", lang))
    add_common_arguments(parser)
    parser.add_argument("dir", nargs="?", type=Path, metavar="DIR", help=tr(MESSAGES, "opt_dir", lang))
    parser.add_argument("--no-tui", action="store_true", help=tr(MESSAGES, "no_tui", lang))
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    target: Path = args.dir or Path(tempfile.mkdtemp(prefix="novel-studio-demo-")) / "sample-novel"
    init_project(target, sample=True)
    lang = resolve_lang(args, target)
    if not getattr(args, "no_tui", False) and _stdout_is_terminal():
        from studio.cli.main import launch_studio

        print(tr(MESSAGES, "created", lang, path=target), flush=True)
        code = launch_studio(target, lang=lang, offline=True)
        print(tr(MESSAGES, "where", lang, path=target))  # the studio's screen is gone: say it where it stays
        return code
    print(tr(MESSAGES, "created", lang, path=target))
    print()
    print(render_status(build_status(Project.open(target)), lang))
    print()
    print(tr(MESSAGES, "next", lang, path=target))
    return 0


def _stdout_is_terminal() -> bool:
    try:
        return sys.stdout is not None and sys.stdout.isatty()
    except (ValueError, OSError):
        return False
