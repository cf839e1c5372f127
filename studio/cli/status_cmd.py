"""`novel-studio status`: where the novel stands (read-only; PRD `/novel:status`)."""

from __future__ import annotations

import argparse
import json

from studio.cli.common import add_common_arguments, help_lang, project_root, resolve_lang
from studio.i18n import Catalog, tr
from studio.project import Project
from studio.status import build_status, render_status

MESSAGES: Catalog = {
    "help": (
        "查看进度：卷章、字数、评分、伏笔、故事线、锁与成本（只读）",
        "show progress: volume and chapter, word count, scores, foreshadowing, storylines, lock and cost (read-only)",
    ),
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lang = help_lang()
    parser = subparsers.add_parser("status", help=tr(MESSAGES, "help", lang), description=tr(MESSAGES, "help", lang))
    add_common_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the status (text, or JSON with --json). A missing project or a broken file raises a
    StudioError, which main() reports without a traceback (exit 1)."""
    root = project_root(args)
    lang = resolve_lang(args, root)
    project = Project.open(root, lang=lang)
    # Prompt versions from the installed prompt files' names (`studio.prompt_pins.installed_versions`): status
    # stays light (no `pipeline`, no template parsing); runs check the templates themselves.
    report = build_status(project, lang=lang)
    if getattr(args, "json", False):
        print(json.dumps(report.model_dump(mode="json"), ensure_ascii=False, indent=2))
    else:
        print(render_status(report, lang))
    return 0
