"""`novel-studio undo`: take back the last committed chapter (files backed up first; see pipeline.undo)."""

from __future__ import annotations

import argparse

from pipeline.undo import undo_last_chapter, undo_target
from studio.cli.common import ExitCode, emit
from studio.cli.confirmed_change import confirmed, locked_project, register_yes_command
from studio.i18n import Catalog, tr

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
    register_yes_command(subparsers, "undo", MESSAGES, run)


def run(args: argparse.Namespace) -> int:
    with locked_project(args, MESSAGES) as opened:
        if opened is None:
            return int(ExitCode.LOCKED)
        paths, lang = opened
        chapter = undo_target(paths, lang)
        if not confirmed(args, tr(MESSAGES, "confirm", lang, chapter=chapter), tr(MESSAGES, "cancelled", lang)):
            return int(ExitCode.OK)
        result = undo_last_chapter(paths, lang=lang)
    for warning in result.warnings:
        print(tr(MESSAGES, "warning", lang, message=warning))
    emit(
        args,
        {"chapter": result.chapter, "backup": str(result.backup_dir), "removed": [str(p) for p in result.removed]},
        tr(MESSAGES, "done", lang, chapter=result.chapter, backup=result.backup_dir),
    )
    return int(ExitCode.OK)
