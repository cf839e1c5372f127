"""`novel-studio demo [DIR]`: the bundled sample novel in a fresh folder, ready to explore.

Until the studio (TUI) lands, the demo creates the sample project and prints its status; the studio will
open on it with the offline provider once it exists.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from studio.cli.common import add_common_arguments, resolve_lang
from studio.i18n import Catalog, tr
from studio.init_project import init_project
from studio.project import Project
from studio.status import build_status, render_status

MESSAGES: Catalog = {
    "help": ("创建示例小说并展示（离线，无需 API key）", "create the sample novel and show it (offline, no API key)"),
    "created": ("示例小说已创建：{path}", "Sample novel created at {path}"),
    "next": (
        "下一步：novel-studio status --project {path}",
        "Next: novel-studio status --project {path}",
    ),
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("demo", help=tr(MESSAGES, "help", "zh"))
    add_common_arguments(parser)
    parser.add_argument("dir", nargs="?", type=Path, help="target folder (default: a new temporary folder)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    target: Path = args.dir or Path(tempfile.mkdtemp(prefix="novel-studio-demo-")) / "sample-novel"
    init_project(target, sample=True)
    lang = resolve_lang(args, target)
    print(tr(MESSAGES, "created", lang, path=target))
    print()
    print(render_status(build_status(Project.open(target)), lang))
    print()
    print(tr(MESSAGES, "next", lang, path=target))
    return 0
