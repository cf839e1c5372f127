"""`novel-studio repair`: fix the state, changelog and checkpoint where that is safe, report the rest
(see `studio.repair`). Shows the plan and asks first (`--yes` skips the question); every changed file is
backed up under `.novel-studio/repair/`. Exit 0 when the project is consistent afterwards, 1 when
something is left that needs the author, 3 when a question could not be asked, 4 when locked."""

from __future__ import annotations

import argparse

from studio.cli.common import ExitCode, emit
from studio.cli.confirmed_change import confirmed, locked_project, register_yes_command
from studio.i18n import Catalog, tr
from studio.repair import apply_repair, plan_repair

MESSAGES: Catalog = {
    "help": (
        "修复状态、变更日志和检查点中能安全修复的问题（先备份），并报告无法自动修复的问题",
        "fix what can be fixed safely in the state, changelog and checkpoint (backed up first) and report the rest",
    ),
    "opt_yes": ("不确认，直接修复", "do not ask for confirmation"),
    "nothing": ("未发现需要修复的问题", "nothing to repair"),
    "will_fix": ("可以修复：", "can be fixed:"),
    "fixed": ("已修复（备份在 {backup}）：", "fixed (backup in {backup}):"),
    "cannot": ("无法自动修复，需要作者处理：", "cannot be fixed automatically; needs the author:"),
    "confirm": ("执行以上修复？", "Apply these fixes?"),
    "cancelled": ("已取消，未做任何改动", "cancelled; nothing was changed"),
    "stale": ("项目锁的持有进程已不在：接管并修复？", "The project lock's holder is gone: take it over and repair?"),
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    register_yes_command(subparsers, "repair", MESSAGES, run)


def run(args: argparse.Namespace) -> int:
    with locked_project(args, MESSAGES) as opened:
        if opened is None:
            return int(ExitCode.LOCKED)
        paths, lang = opened
        plan = plan_repair(paths)
        if plan.fixes and not args.yes:
            lines = [tr(MESSAGES, "will_fix", lang), *(f"- {i.describe(lang)}" for i in plan.fixes)]
            if plan.cannot:
                lines += [tr(MESSAGES, "cannot", lang), *(f"- {i.describe(lang)}" for i in plan.cannot)]
            print("\n".join(lines))
        if plan.fixes and not confirmed(args, tr(MESSAGES, "confirm", lang), tr(MESSAGES, "cancelled", lang)):
            return int(ExitCode.ERROR)
        backup = apply_repair(paths, plan)
    text: list[str] = []
    if plan.fixes:
        text += [tr(MESSAGES, "fixed", lang, backup=backup), *(f"- {i.describe(lang)}" for i in plan.fixes)]
    if plan.cannot:
        text += [tr(MESSAGES, "cannot", lang), *(f"- {i.describe(lang)}" for i in plan.cannot)]
    data = {
        "fixed": [{"key": i.key, "text": i.describe(lang)} for i in plan.fixes],
        "cannot": [{"key": i.key, "text": i.describe(lang)} for i in plan.cannot],
        "backup": str(backup) if backup else None,
    }
    emit(args, data, "\n".join(text) or tr(MESSAGES, "nothing", lang))
    return int(ExitCode.ERROR if plan.cannot else ExitCode.OK)
