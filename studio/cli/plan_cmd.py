"""`novel-studio plan [--volume N] [--volume-length K] [--note TEXT] [--yes] [--max-cost USD] [--json]`: plan a
volume with PlotArchitect, stage it, ask the author, apply it (issue 7 items 3-4, 7).

A thin terminal front of the one plan session (`pipeline.planning.session.run_plan_session`, shared with the
studio): this module takes the project lock, builds the provider, prints the session's events, and answers its
plan-approval question from the terminal:

- `y` approve and apply, `n` cancel, `k` a new chapter count (asked), `r` re-plan with a note (asked), `e` open
  `$VISUAL`/`$EDITOR` on the staged outline, then the session re-checks it and asks again;
- planning the next volume while the current one is finished but not reviewed first asks whether to plan
  anyway (`y`) or stop to review (`n`); `--yes` plans anyway; without a terminal the command stops with exit 3
  and says how to go on (`studio.planning.review.unreviewed_before`, asked by the session, so the studio asks too);
- `--yes` approves, except when the apply would replace files the author edited by hand (the question then has
  no recommended answer): the command stops with exit 3 and shows the differences;
- without a terminal (or with `--json`) the command stops with exit 3 and the question (as JSON with
  `--json`); the staged plan waits, and `plan --yes` approves it later.

`--volume` of the current volume re-plans only the chapters after the last committed one (the diff is shown
with the plan); `--volume-length` is then the length of the whole volume. With `--json` stdout carries one JSON
object (the result, or the pending question). The provider comes from `studio.cli.provider_seam` (tests inject
theirs there).
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from pipeline.decisions import Question, QuestionKind
from pipeline.events import Event, Notice, RetryWaiting
from pipeline.planning.prompt_context import DEFAULT_VOLUME_LENGTH
from pipeline.planning.session import PlanSessionResult, run_plan_session
from pipeline.providers.factory import is_offline
from studio.cli import provider_seam
from studio.cli.common import (
    ExitCode,
    JsonOut,
    PausedForAuthor,
    add_common_arguments,
    help_lang,
    is_interactive,
    require_project,
    resolve_lang,
)
from studio.errors import StudioError
from studio.fileio import sweep_temp_files
from studio.i18n import Catalog, Lang, tr
from studio.lock import ProjectLock, StaleLockError
from studio.paths import ProjectPaths
from studio.signals import termination_handlers

EditorRun = Callable[[list[str]], int]


def _run_editor(argv: list[str]) -> int:
    return subprocess.run(argv, check=False).returncode


EDITOR_RUN: EditorRun = _run_editor  # tests replace it

CHOICES = ("y", "k", "r", "e", "n")

MESSAGES: Catalog = {
    "help": ("规划下一卷（大纲、故事线调度、伏笔、章节契约），经作者批准后应用", "plan the next volume (outline, "
             "storyline schedule, threads, chapter contracts) and apply it once the author approves"),
    "opt_volume": (
        "要规划的卷号（默认：下一个未规划的卷；当前卷：重新规划未写的章节）",
        "the volume to plan (default: the next unplanned one; the current one: re-plan its unwritten chapters)",
    ),
    "opt_length": ("本卷章数（默认 {n}）", "chapters in the volume (default {n})"),
    "opt_yes": ("不提问，直接批准计划", "ask nothing: approve the plan"),
    "opt_note": ("对本卷规划的要求（本卷要发生的事、节奏）", "a note for the volume plan (what the volume must hold)"),
    "opt_cost": ("费用上限（美元）：预计超出时不调用模型", "stop before a call whose estimate passes this cost (USD)"),
    "locked_stale": (
        "项目锁的持有进程已经不在了；确认没有其他程序在写这部小说后，用 --yes 接管",
        "the project lock's holder is gone; once sure nothing else writes this novel, take it over with --yes",
    ),
    "offline": ("离线模式：计划由离线演示生成，不花钱", "offline mode: the plan comes from the offline demo, no cost"),
    "ask_count": ("新的章数：", "new chapter count: "),
    "ask_note": ("修改意见：", "what to change: "),
    "bad_count": ("请输入一个正整数", "please enter a positive whole number"),
    "edit_opened": ("已打开编辑器：{path}（保存并关闭后重新检查）", "opened the editor on {path} (checked again once you save and quit)"),
    "editor_failed": ("无法启动编辑器 {editor}：{error}", "could not start the editor {editor}: {error}"),
    "paused": (
        "已暂存第 {volume} 卷的计划，等待批准（当前不是交互终端）。批准：novel-studio plan --yes；"
        "取消：在终端运行 novel-studio plan 并选择 n",
        "The plan of volume {volume} is staged and waits for approval (stdin is not a terminal). Approve: "
        "`novel-studio plan --yes`; cancel: run `novel-studio plan` in a terminal and answer n",
    ),
    "paused_unreviewed": (
        "第 {volume} 卷还没有卷末回顾，未规划（当前不是交互终端）。先回顾：novel-studio review；"
        "不回顾直接规划第 {next} 卷：novel-studio plan --yes",
        "volume {volume} has not been reviewed; nothing was planned (stdin is not a terminal). Review it first: "
        "novel-studio review; plan volume {next} without the review: novel-studio plan --yes",
    ),
    "paused_edits": (
        "批准会覆盖手动修改过的文件（差异见上），--yes 不会替你决定；请在终端运行 novel-studio plan 回答",
        "approval would replace files edited by hand (differences above); --yes does not decide that for you: "
        "run `novel-studio plan` in a terminal to answer",
    ),
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lang = help_lang()
    parser = subparsers.add_parser("plan", help=tr(MESSAGES, "help", lang), description=tr(MESSAGES, "help", lang))
    parser.add_argument("--volume", type=int, default=None, metavar="N", help=tr(MESSAGES, "opt_volume", lang))
    parser.add_argument(
        "--volume-length", type=int, default=None, metavar="K",
        help=tr(MESSAGES, "opt_length", lang, n=DEFAULT_VOLUME_LENGTH),
    )
    parser.add_argument("--yes", "-y", action="store_true", help=tr(MESSAGES, "opt_yes", lang))
    parser.add_argument("--note", default="", metavar="TEXT", help=tr(MESSAGES, "opt_note", lang))
    parser.add_argument("--max-cost", type=float, default=None, metavar="USD", help=tr(MESSAGES, "opt_cost", lang))
    add_common_arguments(parser)
    parser.set_defaults(func=run)


class _Out(JsonOut):
    """`JsonOut` that also prints the plan session's events."""

    def event(self, event: Event) -> None:
        if isinstance(event, Notice):
            (self.err if event.level == "error" else self.say)(event.message)
        elif isinstance(event, RetryWaiting):
            self.err(f"{event.stage}: {event.kind} {event.message} (retry {event.attempt}, {event.wait_s:.0f} s)")


def _acquire(lock: ProjectLock, yes: bool) -> bool:
    try:
        lock.acquire()
    except StaleLockError:
        if not yes:
            return False
        lock.acquire(take_over_stale=True)
    return True


def plan_decider(out: _Out, lang: Lang, *, yes: bool) -> Callable[[Question], Any]:
    """The terminal side of the plan-approval question (the answers of `pipeline.decisions.PlanAnswer`)."""

    async def decide(question: Question) -> str:
        data = question.data
        plan = data.get("plan")
        out.data["plan"] = plan
        for key in ("diff", "overwrites"):
            if key in data:
                out.data[key] = data[key]
        title = question.title_zh if lang == "zh" else question.title_en
        options = [(o.key, o.label_zh if lang == "zh" else o.label_en) for o in question.options]
        volume = data.get("volume")
        if yes and question.recommended:
            for line in question.facts:
                out.say(line)
            return question.recommended
        interactive = is_interactive() and not out.json_mode
        if not interactive or yes:
            for line in question.facts:
                out.say(line)
            out.data.update(event="question", question=title, recommended=question.recommended,
                            options=[{"key": k, "label": f"{k} {label}"} for k, label in options])
            if question.kind is QuestionKind.PLAN_UNREVIEWED:
                raise PausedForAuthor(tr(MESSAGES, "paused_unreviewed", lang, volume=data.get("unreviewed"),
                                         next=volume))
            key = "paused_edits" if yes else "paused"
            raise PausedForAuthor(tr(MESSAGES, key, lang, volume=volume))
        for line in question.facts:
            print(line)
        print(title)
        for k, label in options:
            print(f"  {k} {label}")
        keys = [k for k, _ in options]
        while True:
            answer = input("> ").strip().lower()
            if answer not in keys:
                continue
            if answer == "k":
                return f"k:{_ask_count(lang)}"
            if answer == "r":
                note = ""
                while not note:
                    note = input(tr(MESSAGES, "ask_note", lang)).strip()
                return f"r:{note}"
            if answer == "e":
                if not _edit(str(data.get("outline_path", "")), lang):
                    continue
            return answer

    return decide


def _ask_count(lang: Lang) -> int:
    while True:
        text = input(tr(MESSAGES, "ask_count", lang)).strip()
        if text.isdigit() and int(text) > 0:
            return int(text)
        print(tr(MESSAGES, "bad_count", lang))


def _edit(path: str, lang: Lang) -> bool:
    from studio.tui.editor import editor_command  # loads Textual: only when the author edits

    argv = [*editor_command(), path]
    print(tr(MESSAGES, "edit_opened", lang, path=path))
    try:
        EDITOR_RUN(argv)
    except OSError as exc:
        print(tr(MESSAGES, "editor_failed", lang, editor=argv[0], error=exc), file=sys.stderr)
        return False
    return True


def _finish(out: _Out, result: PlanSessionResult) -> int:
    data: dict[str, Any] = {"estimate_usd": result.estimate_usd}
    if result.status == "applied":
        data.update(applied=True, activated=result.activated, backup=str(result.backup) if result.backup else None,
                    cost_usd=result.cost_usd)
        return out.finish(int(ExitCode.OK), **data)
    if result.status == "activated":
        return out.finish(int(ExitCode.OK), applied=False, activated=True, volume=result.volume, **data)
    if result.status == "cancelled":
        return out.finish(int(ExitCode.OK), cancelled=True, **data)
    if result.status == "stopped_by_cost":
        return out.finish(int(ExitCode.OK), stopped_by_cost=True, **data)
    if result.status == "usage":
        return out.finish(int(ExitCode.USAGE), error=result.message, **data)
    if result.status == "refused":
        return out.finish(int(ExitCode.ERROR), refused=result.errors, **data)
    return out.finish(int(ExitCode.ERROR), errors=result.errors, **data)


def run(args: argparse.Namespace) -> int:
    root = require_project(args)
    lang = resolve_lang(args, root)
    from studio.config import load_settings

    settings = load_settings(root)
    paths = ProjectPaths(root)
    out = _Out(bool(getattr(args, "json", False)))
    offline = is_offline(settings, bool(getattr(args, "offline", False)))
    if provider_seam.missing_key(settings, offline):
        out.err(provider_seam.no_key_text(settings, lang))
        return out.finish(int(ExitCode.ERROR), error="missing_api_key")
    if offline:
        out.say(tr(MESSAGES, "offline", lang))
    lock = ProjectLock(paths)
    if not _acquire(lock, bool(args.yes)):
        out.err(tr(MESSAGES, "locked_stale", lang))
        return out.finish(int(ExitCode.LOCKED))
    try:
        with termination_handlers():
            sweep_temp_files(root)
            provider = provider_seam.build(root, settings, offline)
            result = asyncio.run(
                run_plan_session(
                    root, settings, provider, plan_decider(out, lang, yes=bool(args.yes)), out.event,
                    volume=args.volume, volume_length=args.volume_length, note=args.note, max_cost=args.max_cost,
                    offline=offline, lang=lang,
                )
            )
            return _finish(out, result)
    except PausedForAuthor as exc:
        out.err(str(exc))
        return out.finish(int(ExitCode.PAUSED), message=str(exc))  # --json: how to go on
    except KeyboardInterrupt:
        return out.finish(int(ExitCode.INTERRUPTED))
    except StudioError as exc:
        out.err(exc.text(lang))
        return out.finish(int(ExitCode.ERROR), error=exc.text(lang))
    finally:
        lock.release()
