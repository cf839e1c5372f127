"""`novel-studio plan [--volume N] [--volume-length K] [--yes] [--max-cost USD] [--json]`: plan the next
unplanned volume with PlotArchitect, stage it, ask the author, apply it (issue 7 items 3-4, 7).

Flow, under the project lock:
1. finish an apply a kill cut short (`studio.planning.staged.resume_plan_applies`); refuse what the cold-start
   check refuses, except the planning findings this command resolves itself;
2. a plan already staged (an earlier `plan` paused for approval) is shown again, no model call; otherwise
   the target is the next unplanned volume (`pipeline.planning.prompt_context.next_plan_target`): the
   estimate of the call is printed first and `--max-cost` stops before a call that could pass it; the
   reply is checked by code and repaired at most twice (`pipeline.planning.plan_volume`); a plan that still
   has errors is reported and nothing is staged (exit 1);
3. the staged plan is shown chapter by chapter with the checks' warnings and the estimated cost of writing
   the volume, and the author answers: approve (y), change the chapter count (k), re-plan with a note (r)
   or cancel (n). `--yes` approves. Without a terminal (or with `--json`) the command stops with exit 3 and
   the question (as JSON with `--json`); the staged plan waits, and `plan --yes` approves it later;
4. approval applies the plan in one journaled step; `continue` then writes the new volume's first chapter.

A volume planned ahead (applied while the current one was still being written) becomes the current one
when `plan` runs after the current volume's last chapter, without a new call. Committed chapters are never
touched. `--volume` names the volume to plan; only the next unplanned one can
be planned here (re-planning a volume that has an outline is not built yet, and says so).

With `--json` stdout carries one JSON object (the result, or the pending question).
Tests inject the provider through `PROVIDER_FACTORY` (a module-level seam): `(root, settings, offline) -> Provider`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pipeline.estimate import estimate_chapter_cost
from pipeline.planning.plan_volume import PlanRejected, estimate_plan_cost, plan_request, plan_volume
from pipeline.planning.prompt_context import DEFAULT_VOLUME_LENGTH, PlanTarget, next_plan_target
from pipeline.providers.base import Provider, ProviderError
from pipeline.providers.factory import build_provider, is_offline
from studio.cli.common import (
    ExitCode,
    add_common_arguments,
    help_lang,
    is_interactive,
    require_project,
    resolve_lang,
)
from studio.coldstart import PLANNING_KEYS, check_cold_start, refusals
from studio.errors import StudioError
from studio.fileio import read_text, sweep_temp_files
from studio.i18n import Catalog, Lang, tr
from studio.lock import ProjectLock, StaleLockError
from studio.models.settings import Settings
from studio.models.volume_plan import VolumePlan, hook, payoff
from studio.outline import parse_outline
from studio.paths import ProjectPaths
from studio.planning.quick_start_files import write_main_arc
from studio.planning.staged import (
    ApplyOutcome,
    PlanApplyRefused,
    StagedPlanMeta,
    activate_volume,
    apply_staged_plan,
    discard_staged_plan,
    load_staged_plan,
    resume_plan_applies,
    stage_plan,
    staged_plans,
)
from studio.project import Project
from studio.signals import termination_handlers

ProviderFactory = Callable[[Path, Settings, bool], Provider]
PROVIDER_FACTORY: ProviderFactory | None = None

CHOICES = ("y", "k", "r", "n")

MESSAGES: Catalog = {
    "help": ("规划下一卷（大纲、故事线调度、伏笔、章节契约），经作者批准后应用", "plan the next volume (outline, "
             "storyline schedule, threads, chapter contracts) and apply it once the author approves"),
    "opt_volume": ("要规划的卷号（默认：下一个未规划的卷）", "the volume to plan (default: the next unplanned one)"),
    "opt_length": ("本卷章数（默认 {n}）", "chapters in the volume (default {n})"),
    "opt_yes": ("不提问，直接批准计划", "ask nothing: approve the plan"),
    "opt_note": ("给 PlotArchitect 的要求（本卷要发生的事、节奏）", "a note for PlotArchitect (what the volume must hold)"),
    "opt_cost": ("费用上限（美元）：预计超出时不调用模型", "stop before a call whose estimate passes this cost (USD)"),
    "no_key": (
        "没有找到 API 密钥：环境变量 {env} 未设置。请先执行 export {env}=你的密钥，或使用 --offline 离线演示",
        "No API key: the environment variable {env} is not set. Run `export {env}=<your key>` first, "
        "or use --offline for the demo",
    ),
    "locked_stale": (
        "项目锁的持有进程已经不在了；确认没有其他程序在写这部小说后，用 --yes 接管",
        "the project lock's holder is gone; once sure nothing else writes this novel, take it over with --yes",
    ),
    "resumed": ("已完成上次被中断的第 {volume} 卷计划应用", "finished the interrupted apply of volume {volume}'s plan"),
    "refused": ("项目状态不一致，未开始规划：\n{findings}", "the project is inconsistent; nothing was planned:\n{findings}"),
    "bad_volume": (
        "只能规划下一个未规划的卷（第 {next} 卷）；重新规划已有大纲的卷尚未支持",
        "only the next unplanned volume (volume {next}) can be planned; re-planning a volume with an outline is "
        "not supported yet",
    ),
    "estimate": (
        "规划第 {volume} 卷（第 {first}-{last} 章）：预计最多 ${cost:.2f}（{model}）",
        "planning volume {volume} (chapters {first}-{last}): at most ${cost:.2f} estimated ({model})",
    ),
    "offline": ("离线模式：计划由离线演示生成，不花钱", "offline mode: the plan comes from the offline demo, no cost"),
    "over_cost": (
        "预计费用 ${cost:.2f} 超过上限 ${limit:.2f}，未调用模型",
        "the estimate ${cost:.2f} passes the limit ${limit:.2f}; no model was called",
    ),
    "rejected": ("计划未通过检查：{message}", "the plan failed the checks: {message}"),
    "model_error": ("调用模型出错（未暂存任何内容）：{message}", "the model call failed (nothing staged): {message}"),
    "header": ("第 {volume} 卷计划（第 {first}-{last} 章，共 {n} 章）", "Plan of volume {volume} (chapters {first}-{last}, {n} chapters)"),
    "chapter": ("第{n}章 {title}", "Ch {n} {title}"),
    "f_line": ("故事线", "storyline"),
    "f_pov": ("视角", "POV"),
    "f_place": ("地点", "location"),
    "f_conflict": ("冲突", "conflict"),
    "f_payoff": ("爽点", "payoff"),
    "f_hook": ("章末钩子", "hook"),
    "f_threads": ("伏笔", "foreshadowing"),
    "threads": ("本卷新伏笔：{items}", "new threads: {items}"),
    "warnings": ("提醒（不阻止批准）：", "warnings (approval is still possible):"),
    "no_warnings": ("检查通过，没有提醒", "checks passed, no warnings"),
    "write_cost": ("写完本卷预计 ${total:.2f}（每章约 ${per:.2f}）", "writing the volume: about ${total:.2f} (${per:.2f} a chapter)"),
    "question": ("批准第 {volume} 卷的计划吗？", "Approve the plan of volume {volume}?"),
    "o_y": ("y 批准并应用", "y approve and apply"),
    "o_k": ("k 修改章数后重新规划", "k change the chapter count and re-plan"),
    "o_r": ("r 附上修改意见重新规划", "r re-plan with a note"),
    "o_n": ("n 取消（丢弃这份计划）", "n cancel (discard the plan)"),
    "ask_count": ("新的章数：", "new chapter count: "),
    "ask_note": ("修改意见：", "what to change: "),
    "bad_count": ("请输入一个正整数", "please enter a positive whole number"),
    "paused": (
        "已暂存第 {volume} 卷的计划，等待批准（当前不是交互终端）。批准：novel-studio plan --yes；"
        "取消：在终端运行 novel-studio plan 并选择 n",
        "The plan of volume {volume} is staged and waits for approval (stdin is not a terminal). Approve: "
        "`novel-studio plan --yes`; cancel: run `novel-studio plan` in a terminal and answer n",
    ),
    "applied": (
        "已应用第 {volume} 卷计划（第 {first}-{last} 章）；原文件备份在 {backup}",
        "applied the plan of volume {volume} (chapters {first}-{last}); replaced files backed up in {backup}",
    ),
    "next": ("下一步：novel-studio continue 写第 {first} 章", "next: novel-studio continue writes chapter {first}"),
    "ahead": (
        "本卷从第 {first} 章开始，当前卷还没写完；写完当前卷后会接着写它",
        "the volume starts at chapter {first}; the current volume is not finished yet and comes first",
    ),
    "activated": (
        "第 {volume} 卷已提前规划好（第 {first}-{last} 章），现在转入该卷；novel-studio continue 写第 {first} 章",
        "volume {volume} was planned ahead (chapters {first}-{last}) and is now the current one; "
        "novel-studio continue writes chapter {first}",
    ),
    "cancelled": ("已取消，计划已丢弃", "cancelled; the plan was discarded"),
    "spent": ("规划花费 ${cost:.4f}（{calls} 次调用）", "planning cost ${cost:.4f} ({calls} calls)"),
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


class _Out:
    """Text lines on stdout, or (with --json) nothing until the one JSON object at the end."""

    def __init__(self, json_mode: bool) -> None:
        self.json_mode = json_mode
        self.data: dict[str, Any] = {"event": "result"}

    def say(self, text: str) -> None:
        if not self.json_mode:
            print(text)

    def err(self, text: str) -> None:
        if not self.json_mode:
            print(text, file=sys.stderr)

    def finish(self, code: int, **data: Any) -> int:
        self.data.update(data, exit_code=code)
        if self.json_mode:
            print(json.dumps(self.data, ensure_ascii=False, indent=2, default=str))
        return code


def plan_lines(plan: VolumePlan, meta: StagedPlanMeta, lang: Lang, names: dict[str, str]) -> list[str]:
    """The staged plan as the author reads it: one block per chapter, the new threads, the warnings."""
    lines = [tr(MESSAGES, "header", lang, volume=plan.volume, first=plan.first_chapter, last=plan.last_chapter,
                n=len(plan.outline.chapters))]
    if plan.outline.synopsis.strip():
        lines.append(plan.outline.synopsis.strip())
    for ch in plan.outline.chapters:
        title = ch.heading.split(" ", 1)[1] if " " in ch.heading else ""
        lines.append("")
        lines.append(tr(MESSAGES, "chapter", lang, n=ch.number, title=title).rstrip())
        fields = [
            ("f_line", ch.storyline),
            ("f_pov", names.get(ch.pov or "", ch.pov)),
            ("f_place", ch.location),
            ("f_conflict", ch.conflict),
            ("f_payoff", payoff(ch)),
            ("f_hook", hook(ch)),
            ("f_threads", ch.foreshadowing),
        ]
        sep = "：" if lang == "zh" else ": "
        lines += [f"  {tr(MESSAGES, key, lang)}{sep}{value}" for key, value in fields if value]
    if plan.foreshadowing:
        items = "、".join(f"{t.id}（{t.description}）" for t in plan.foreshadowing)
        lines += ["", tr(MESSAGES, "threads", lang, items=items)]
    warnings = meta.warnings if lang == "zh" else (meta.warnings_en or meta.warnings)
    lines.append("")
    if warnings:
        lines.append(tr(MESSAGES, "warnings", lang))
        lines += [f"  - {w}" for w in warnings]
    else:
        lines.append(tr(MESSAGES, "no_warnings", lang))
    return lines


def plan_data(plan: VolumePlan, meta: StagedPlanMeta) -> dict[str, Any]:
    return {
        "volume": plan.volume,
        "first_chapter": plan.first_chapter,
        "last_chapter": plan.last_chapter,
        "chapters": [
            {
                "chapter": ch.number,
                "heading": ch.heading,
                "storyline": ch.storyline,
                "pov": ch.pov,
                "location": ch.location,
                "conflict": ch.conflict,
                "payoff": payoff(ch),
                "hook": hook(ch),
                "foreshadowing": ch.foreshadowing,
            }
            for ch in plan.outline.chapters
        ],
        "threads": [t.id for t in plan.foreshadowing],
        "warnings": meta.warnings,
        "warnings_en": meta.warnings_en,
        "estimated_write_cost_usd": meta.estimated_cost_usd,
    }


def _acquire(lock: ProjectLock, yes: bool) -> bool:
    try:
        lock.acquire()
    except StaleLockError:
        if not yes:
            return False
        lock.acquire(take_over_stale=True)
    return True


class _Planner:
    """One `plan` run: the project, its provider, and the output."""

    def __init__(self, args: argparse.Namespace, root: Path, settings: Settings, offline: bool, out: _Out,
                 lang: Lang) -> None:
        self.args = args
        self.root = root
        self.paths = ProjectPaths(root)
        self.settings = settings
        self.offline = offline
        self.out = out
        self.lang = lang
        self._provider: Provider | None = None
        self.spent = 0.0
        self.calls = 0

    def provider(self) -> Provider:
        if self._provider is None:
            factory = PROVIDER_FACTORY
            self._provider = (
                factory(self.root, self.settings, self.offline) if factory is not None
                else build_provider(self.settings, self.root, offline=self.offline)
            )
        return self._provider

    def plan(self, target: PlanTarget, note: str) -> int | None:
        """Plan and stage `target`; an exit code when it stopped, None when a plan is staged."""
        project = Project.open(self.root)
        request = plan_request(project, self.settings, target, note=note)
        cost = estimate_plan_cost(request, self.settings, offline=self.offline)
        self.out.data["estimate_usd"] = cost
        self.out.say(tr(MESSAGES, "estimate", self.lang, volume=target.volume, first=target.first, last=target.last,
                        cost=cost, model=request.model))
        limit = self.args.max_cost
        if limit is not None and self.spent + cost > limit:
            self.out.say(tr(MESSAGES, "over_cost", self.lang, cost=cost, limit=limit))
            return self.out.finish(int(ExitCode.OK), stopped_by_cost=True)
        try:
            outcome = asyncio.run(plan_volume(project, self.settings, self.provider(), target, note=note))
        except PlanRejected as exc:
            self.spent += sum(c.cost_usd or 0.0 for c in exc.calls)
            self.out.err(tr(MESSAGES, "rejected", self.lang, message=str(exc)))
            return self.out.finish(int(ExitCode.ERROR), errors=exc.errors)
        except ProviderError as exc:
            self.out.err(tr(MESSAGES, "model_error", self.lang, message=str(exc)))
            return self.out.finish(int(ExitCode.ERROR), error=str(exc))
        self.spent += outcome.cost_usd
        self.calls += len(outcome.calls)
        per = estimate_chapter_cost(self.paths, self.settings, offline=self.offline).per_chapter_usd
        count = len(outcome.plan.outline.chapters)
        stage_plan(
            self.paths,
            outcome.plan,
            warnings=[f.line("zh") for f in outcome.report.warnings],
            warnings_en=[f.line("en") for f in outcome.report.warnings],
            note=note,
            estimated_cost_usd=round(per * count, 4),
        )
        return None

    def approve_loop(self, volume: int) -> int:
        while True:
            plan, meta = load_staged_plan(self.paths, volume)
            names = {slug: c.display_name for slug, c in Project.open(self.root).characters.items()}
            for line in plan_lines(plan, meta, self.lang, names):
                self.out.say(line)
            per = (meta.estimated_cost_usd or 0.0) / max(1, len(plan.outline.chapters))
            self.out.say(tr(MESSAGES, "write_cost", self.lang, total=meta.estimated_cost_usd or 0.0, per=per))
            self.out.data["plan"] = plan_data(plan, meta)
            answer = self._answer(volume)
            if answer is None:
                return self.out.finish(int(ExitCode.PAUSED))
            if answer == "y":
                return self._apply(volume)
            if answer == "n":
                discard_staged_plan(self.paths, volume)
                self.out.say(tr(MESSAGES, "cancelled", self.lang))
                return self.out.finish(int(ExitCode.OK), cancelled=True)
            if answer == "k":
                count = self._ask_count()
                stopped = self.plan(PlanTarget(volume, plan.first_chapter, plan.first_chapter + count - 1), meta.note)
            else:
                note = input(tr(MESSAGES, "ask_note", self.lang)).strip()
                length = plan.last_chapter - plan.first_chapter + 1
                stopped = self.plan(PlanTarget(volume, plan.first_chapter, plan.first_chapter + length - 1), note)
            if stopped is not None:
                return stopped

    def _answer(self, volume: int) -> str | None:
        if self.args.yes:
            return "y"
        question = tr(MESSAGES, "question", self.lang, volume=volume)
        options = [tr(MESSAGES, f"o_{c}", self.lang) for c in CHOICES]
        if self.out.json_mode or not is_interactive():
            self.out.data.update(
                event="question",
                question=question,
                options=[{"key": c, "label": o} for c, o in zip(CHOICES, options, strict=True)],
                recommended="y",
            )
            print(tr(MESSAGES, "paused", self.lang, volume=volume), file=sys.stderr)
            return None
        print(question)
        for option in options:
            print(f"  {option}")
        while True:
            answer = input("> ").strip().lower()
            if answer in CHOICES:
                return answer

    def _ask_count(self) -> int:
        while True:
            text = input(tr(MESSAGES, "ask_count", self.lang)).strip()
            if text.isdigit() and int(text) > 0:
                return int(text)
            print(tr(MESSAGES, "bad_count", self.lang))

    def _apply(self, volume: int) -> int:
        outcome: ApplyOutcome = apply_staged_plan(self.paths, volume, lang=self.lang)
        backup = outcome.backup.relative_to(self.root)
        self.out.say(tr(MESSAGES, "applied", self.lang, volume=volume, first=outcome.first_chapter,
                        last=outcome.last_chapter, backup=backup))
        key = "next" if outcome.activated else "ahead"
        self.out.say(tr(MESSAGES, key, self.lang, first=outcome.first_chapter))
        if self.calls:
            self.out.say(tr(MESSAGES, "spent", self.lang, cost=self.spent, calls=self.calls))
        return self.out.finish(int(ExitCode.OK), applied=True, activated=outcome.activated, backup=str(backup),
                               cost_usd=round(self.spent, 6))


def _planned_ahead(project: Project, args: argparse.Namespace) -> tuple[int, int, int] | None:
    """(volume, first, last) of the next volume when it was planned ahead and the current one is written."""
    current = project.outline.chapter_range if project.outline is not None else None
    nxt = project.current_volume + 1
    path = project.paths.outline(nxt)
    if current is None or project.last_completed_chapter < current[1] or not path.is_file():
        return None
    if args.volume not in (None, nxt) or args.volume_length or args.note:
        return None
    ahead = parse_outline(read_text(path), path).chapter_range
    if ahead is None or ahead[0] != project.last_completed_chapter + 1:
        return None
    return nxt, ahead[0], ahead[1]


def _target(project: Project, args: argparse.Namespace, lang: Lang) -> PlanTarget | str:
    length = args.volume_length if args.volume_length and args.volume_length > 0 else DEFAULT_VOLUME_LENGTH
    target = next_plan_target(project, length)
    if args.volume is not None and args.volume != target.volume:
        return tr(MESSAGES, "bad_volume", lang, next=target.volume)
    return target


def run(args: argparse.Namespace) -> int:
    root = require_project(args)
    lang = resolve_lang(args, root)
    from studio.config import load_settings

    settings = load_settings(root)
    paths = ProjectPaths(root)
    out = _Out(bool(getattr(args, "json", False)))
    offline = is_offline(settings, bool(getattr(args, "offline", False)))
    if not offline and PROVIDER_FACTORY is None and settings.api_key(os.environ) is None:
        out.err(tr(MESSAGES, "no_key", lang, env=settings.provider.api_key_env))
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
            for outcome in resume_plan_applies(paths):
                out.say(tr(MESSAGES, "resumed", lang, volume=outcome.volume))
            refused = [f for f in refusals(check_cold_start(paths)) if f.key not in PLANNING_KEYS]
            if refused:
                findings = "\n".join(f"- {f.describe(lang)}" for f in refused)
                out.err(tr(MESSAGES, "refused", lang, findings=findings))
                return out.finish(int(ExitCode.ERROR), refused=[f.key for f in refused])
            planner = _Planner(args, root, settings, offline, out, lang)
            staged = staged_plans(paths)
            keep = [v for v in staged if args.volume in (None, v) and not args.volume_length and not args.note]
            for volume in staged:
                if volume not in keep:
                    discard_staged_plan(paths, volume)  # a new plan was asked for
            if keep:
                return planner.approve_loop(keep[0])
            project = Project.open(root)
            ready = _planned_ahead(project, args)
            if ready is not None:
                activate_volume(paths, ready[0])
                out.say(tr(MESSAGES, "activated", lang, volume=ready[0], first=ready[1], last=ready[2]))
                return out.finish(int(ExitCode.OK), applied=False, activated=True, volume=ready[0])
            if not project.storylines.storylines:  # a fresh project: the plan's line must exist in storylines.json
                write_main_arc(paths)
                project = Project.open(root)
            target = _target(project, args, lang)
            if isinstance(target, str):
                out.err(target)
                return out.finish(int(ExitCode.USAGE), error=target)
            stopped = planner.plan(target, args.note)
            if stopped is not None:
                return stopped
            return planner.approve_loop(target.volume)
    except KeyboardInterrupt:
        return out.finish(int(ExitCode.INTERRUPTED))
    except (PlanApplyRefused, StudioError) as exc:
        out.err(str(exc))
        return out.finish(int(ExitCode.ERROR), error=str(exc))
    finally:
        lock.release()
