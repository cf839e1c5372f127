"""`novel-studio undo`: take back the last committed chapter (files backed up first; see pipeline.undo)."""

from __future__ import annotations

import argparse

from pipeline.undo import undo_last_chapter, undo_target
from studio.cli.common import (
    ExitCode,
    add_common_arguments,
    ask_or_pause,
    emit,
    help_lang,
    require_project,
    resolve_lang,
    take_project_lock,
)
from studio.i18n import Catalog, tr
from studio.lock import ProjectLock
from studio.paths import ProjectPaths

MESSAGES: Catalog = {
    "help": ("撤销最后提交的一章（先备份）", "take back the last committed chapter (backed up first)"),
    "opt_yes": ("不确认，直接撤销", "do not ask for confirmation"),
    "confirm": (
        "撤销第 {chapter} 章？章节、摘要、评估和日志会被移到备份，状态、伏笔和故事线记忆回到写这章之前",
        "Take back chapter {chapter}? Its chapter, summary, evaluation and log move to a backup; state, "
        "foreshadowing and storyline memory go back to before it",
    ),
    "stale": ("项目锁的持有进程已不在：接管并撤销？", "The project lock's holder is gone: take it over and undo?"),
    "cancelled": ("已取消", "cancelled"),
    "done": ("已撤销第 {chapter} 章；备份在 {backup}", "took back chapter {chapter}; backup in {backup}"),
    "warning": ("提示：{message}", "Note: {message}"),
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lang = help_lang()
    parser = subparsers.add_parser("undo", help=tr(MESSAGES, "help", lang), description=tr(MESSAGES, "help", lang))
    parser.add_argument("--yes", "-y", action="store_true", help=tr(MESSAGES, "opt_yes", lang))
    add_common_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    root = require_project(args)
    lang = resolve_lang(args, root)
    paths = ProjectPaths(root)
    lock = ProjectLock(paths, heartbeat_interval=0)
    if not take_project_lock(args, lock, lang, tr(MESSAGES, "stale", lang), tr(MESSAGES, "cancelled", lang)):
        return int(ExitCode.LOCKED)
    try:
        chapter = undo_target(paths, lang)
        if not args.yes:
            answer = ask_or_pause(args, tr(MESSAGES, "confirm", lang, chapter=chapter), choices=["y", "n"], default="n")
            if answer != "y":
                print(tr(MESSAGES, "cancelled", lang))
                return int(ExitCode.OK)
        result = undo_last_chapter(paths, lang=lang)
    finally:
        lock.release()
    for warning in result.warnings:
        print(tr(MESSAGES, "warning", lang, message=warning))
    emit(
        args,
        {"chapter": result.chapter, "backup": str(result.backup_dir), "removed": [str(p) for p in result.removed]},
        tr(MESSAGES, "done", lang, chapter=result.chapter, backup=result.backup_dir),
    )
    return int(ExitCode.OK)
