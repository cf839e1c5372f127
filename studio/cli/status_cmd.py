"""`novel-studio status`: where the novel stands (read-only; PRD `/novel:status`).

A repeat `status` with nothing changed prints the last output again (`studio.status_memo`): `early` runs before
the CLI resolves the language (which loads the settings' models) and imports only the memo module; a miss
runs the full report and keeps its output for the next time.
"""

from __future__ import annotations

import argparse
import json
import sys

from studio.cli.common import add_common_arguments, help_lang, looks_like_project, project_root, resolve_lang
from studio.i18n import Catalog, tr

MESSAGES: Catalog = {
    "help": (
        "查看进度：卷章、字数、评分、伏笔、故事线、锁与成本（只读）",
        "show progress: volume and chapter, word count, scores, foreshadowing, storylines, lock and cost (read-only)",
    ),
}

_MEMO = "_status_memo"  # the probe `early` made, for `run` to save the output under


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lang = help_lang()
    parser = subparsers.add_parser("status", help=tr(MESSAGES, "help", lang), description=tr(MESSAGES, "help", lang))
    add_common_arguments(parser)
    parser.set_defaults(func=run, early=early)


def early(args: argparse.Namespace) -> int | None:
    """Print the memoised output when nothing status depends on has changed (exit 0); None: run in full."""
    from studio.status_memo import StatusMemo, variant

    if "studio.prompt_pins" in sys.modules and sys.modules["studio.prompt_pins"].PROMPTS_FOLDER is not None:
        return None  # another prompt folder set in this process (tests): not part of the key
    root = project_root(args)
    if not looks_like_project(root):
        return None  # the full run says what is wrong; a home folder is never walked
    memo = StatusMemo.probe(root, variant(getattr(args, "lang", None), bool(getattr(args, "json", False))))
    text = memo.replay()
    if text is not None:
        sys.stdout.write(text + "\n")
        return 0
    setattr(args, _MEMO, memo)
    return None


def run(args: argparse.Namespace) -> int:
    """Print the status (text, or JSON with --json). A missing project or a broken file raises a
    StudioError, which main() reports without a traceback (exit 1)."""
    from studio.project import Project
    from studio.status import build_status, render_status

    root = project_root(args)
    lang = resolve_lang(args, root)
    project = Project.open(root, lang=lang)
    # Prompt versions from the installed prompt files' names (`studio.prompt_pins.installed_versions`): status
    # stays light (no `pipeline`, no template parsing); runs check the templates themselves.
    report = build_status(project, lang=lang)
    if getattr(args, "json", False):
        text = json.dumps(report.model_dump(mode="json"), ensure_ascii=False, indent=2)
    else:
        text = render_status(report, lang)
    print(text)
    memo = getattr(args, _MEMO, None)
    if memo is not None:
        memo.save(text)
    return 0
