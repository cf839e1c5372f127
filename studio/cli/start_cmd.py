"""`novel-studio start [DIR]`: the state-aware entry point (seed 000 §2.2 `/novel:start`; issue 7 items 2, 7).

    novel-studio start [DIR] [--volume-length K] [--style samples|reference|preset|write] [--sample FILE]...
                       [--reference NAME] [--preset NAME] [--brief-field key=value]... [--answer TEXT]
                       [--restart] [--yes] [--offline] [--json] [--max-cost USD]

What it does, by the project's state:
- no project in DIR (or `--project`, default the current folder): `init`, the brief from `--brief-field`s (or
  asked field by field on a terminal), then the quick start;
- a quick start under way (`.novel-studio/quick-start-progress.json`): it goes on from its step, with the
  choices it started with (`.novel-studio/quick-start.json`);
- a project without chapters: the quick start (an empty brief is asked for first);
- a volume open: says so and which chapter `continue` writes next (on a terminal it offers to write one now);
- a volume finished, or planning due: says to review / plan;
- committed chapters and `--restart`: the quick start again, only after an explicit confirmation (typed `yes`
  on a terminal, or `--yes`); the old files are backed up under `.novel-studio/quick-start-backup/`.
- a progress file that cannot be read: which steps are done is unknown. The problem is named, with the way
  out `start --restart`, which (after the same confirmation) backs the file up with everything the quick start
  wrote and begins again; on a terminal it is offered at once. A request file (the stored choices) that cannot
  be read is copied into that backup folder and replaced by this run's options, said aloud.
Never redoes a quick start on a project with committed chapters otherwise.

The brief: `--brief-field key=value` (keys of `studio.author_brief.BRIEF_FIELDS`) fills `brief.md`, keeping
the sections already written. With `--yes`, `--json` or no terminal, an empty brief is not asked for: the
command exits 3 with the question (as JSON with `--json`) and writes nothing.

The quick start itself is `pipeline.planning.quick_start.run_quick_start` (the studio runs the same flow). Its
trial-confirm question is answered on the terminal, by `--answer` (e.g. `confirm`, `adjust:style:多些对话`,
`rewrite:节奏再快一点`, `restart`; see `TrialAnswer`), or by `--yes` (confirm). Without any of them and no
terminal it stops with exit 3 and the question; `start --answer ...` later goes on from there.

Under the project lock; every write is an own-write (the watcher knows them). With `--json` stdout carries one
JSON object per line: the events (`pipeline.events.event_data`, text deltas left out), last the result or the
question (`"event": "question"`, exit 3). Exit: 0 done, 1 error (resumable), 2 usage, 3 paused for the author,
4 locked, 130 interrupted.
Tests inject the provider through `studio.cli.provider_seam` and the trial agents through `AGENTS_FACTORY`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pipeline.agents.protocol import Agents
from pipeline.decisions import Decider, Question, QuestionKind
from pipeline.events import Event, QuickStartStep, event_data
from pipeline.planning.quick_start import (
    QuickStartOutcome,
    QuickStartRefused,
    parse_trial_answer,
    run_quick_start,
)
from pipeline.providers.factory import is_offline
from studio.author_brief import BRIEF_FIELDS, brief_from_answers, clean_brief, load_brief
from studio.cli import provider_seam
from studio.cli.common import (
    ExitCode,
    PausedForAuthor,
    add_common_arguments,
    cold_start_refused,
    help_lang,
    is_interactive,
    looks_like_project,
    project_root,
    resolve_lang,
    take_project_lock,
)
from studio.cli.continue_cmd import EventPrinter
from studio.cli.terminal_decider import cli_decider, title_of
from studio.coldstart import PLANNING_KEYS, QUICK_START_KEYS
from studio.errors import FormatError, StudioError
from studio.fileio import atomic_write_bytes, atomic_write_text, read_text, sweep_temp_files
from studio.i18n import Catalog, Lang, tr
from studio.init_project import init_project
from studio.lock import ProjectLock
from studio.models.checkpoint import Checkpoint, OrchestratorState
from studio.models.quick_start import TONE_PRESETS, QuickStartRequest
from studio.models.settings import Settings
from studio.models.validation_text import error_text
from studio.paths import ProjectPaths
from studio.planning.quick_start_progress import (
    QuickStartProgress,
    clear_for_restart,
    load_progress,
    request_backup_path,
    request_path,
)
from studio.project import Project
from studio.signals import termination_handlers

AgentsFactory = Callable[[Path, Settings, bool], Agents]
AGENTS_FACTORY: AgentsFactory | None = None

STYLES = {"samples": "samples", "reference": "reference", "preset": "preset", "write": "write_then_extract"}

MESSAGES: Catalog = {
    "help": ("开始：新建项目并快速起步（设定、角色、主线、风格、试写三章），或告诉你下一步做什么",
             "start: create a project and run the quick start (world, cast, main storyline, style, three trial "
             "chapters), or say what comes next"),
    "opt_dir": ("项目文件夹（默认：--project 或当前文件夹）", "project folder (default: --project or the current folder)"),
    "opt_length": ("第 1 卷计划的章数（含试写三章，默认 {n}）", "chapters planned for volume 1 (trial chapters included; default {n})"),
    "opt_style": ("风格来源：samples 自己的样本章节 / reference 参考作者 / preset 预置基调 / write 先写后提",
                  "style source: samples (your chapters) / reference (an author) / preset (a tone) / write "
                  "(extracted from the trial chapters)"),
    "opt_sample": ("风格样本文件（1-3 个，可重复）", "a style sample file (1-3, repeatable)"),
    "opt_reference": ("参考作者（只提取风格指令，不保存原文）", "a reference author (directives only, no prose kept)"),
    "opt_preset": ("预置基调：{presets}", "a tone preset: {presets}"),
    "opt_brief": ("纲领字段 key=value（{keys}）", "a brief field key=value ({keys})"),
    "opt_answer": ("回答试写确认（confirm / adjust:style[:意见] / adjust:character:id[:意见] / adjust:brief / "
                   "rewrite[:意见] / restart）", "answer the trial confirmation (confirm / adjust:style[:note] / "
                   "adjust:character:id[:note] / adjust:brief / rewrite[:note] / restart)"),
    "opt_restart": ("在已有章节的项目上重新快速起步（需确认；旧文件先备份）",
                    "redo the quick start on a project with chapters (asks first; old files are backed up)"),
    "opt_yes": ("不提问：采用推荐选项（试写确认 = confirm）", "ask nothing: take the recommended answers (confirm the trial)"),
    "opt_cost": ("费用上限（美元）：预计超出前停止", "stop before the estimate passes this cost (USD)"),
    "bad_field": ("纲领字段格式应为 key=value，key 取 {keys}：{item}", "a brief field is key=value with key one of {keys}: {item}"),
    "bad_request": ("快速起步选项有误：{message}", "bad quick start options: {message}"),
    "bad_answer": ("无法理解的 --answer：{answer}（见 --help）", "cannot understand --answer {answer} (see --help)"),
    "bad_sample": ("找不到风格样本文件：{path}", "style sample file not found: {path}"),
    "brief_question": ("请填写创作纲领（至少题材、主角、核心冲突）", "Fill in the brief (at least genre, protagonist, core conflict)"),
    "brief_paused": (
        "创作纲领是空的，未写入任何内容。用 --brief-field genre=... --brief-field protagonist=... "
        "--brief-field conflict=... 提供，或在终端运行 novel-studio start 逐项填写",
        "The brief is empty; nothing was written. Give it with --brief-field genre=... --brief-field "
        "protagonist=... --brief-field conflict=..., or run novel-studio start in a terminal to fill it in",
    ),
    "ask_field": ("{label}（回车跳过）：", "{label} (Enter to skip): "),
    "brief_not_merged": (
        "brief.md 里有不属于模板的小节（{headings}），不会用 --brief-field 改写它；请直接编辑 brief.md",
        "brief.md has sections outside the template ({headings}); --brief-field does not rewrite it; edit "
        "brief.md directly",
    ),
    "offline": ("离线模式：内容由离线演示生成，不花钱", "offline mode: content comes from the offline demo, no cost"),
    "created": ("已新建项目：{root}", "created the project: {root}"),
    "resuming": ("接着上次的快速起步（已完成：{done}）", "going on with the quick start (done: {done})"),
    "stored_choices": ("沿用开始时的选择（风格来源：{style}）；新的风格选项被忽略", "keeping the choices it started "
                       "with (style source: {style}); the new style options are ignored"),
    "step_started": ("[{i}/{n}] {name}……", "[{i}/{n}] {name}..."),
    "step_estimate": ("[{i}/{n}] {name}：预计最多 ${cost:.2f}", "[{i}/{n}] {name}: at most ${cost:.2f} estimated"),
    "step_done": ("[{i}/{n}] {name} ✓", "[{i}/{n}] {name} ✓"),
    "step_resumed": ("[{i}/{n}] {name} ✓（从中断处完成）", "[{i}/{n}] {name} ✓ (finished from where it stopped)"),
    "step_skipped": ("[{i}/{n}] {name}：不需要", "[{i}/{n}] {name}: not needed"),
    "volume_open": ("第 {volume} 卷正在写（已完成 {done} 章）：novel-studio continue 写第 {next} 章",
                    "volume {volume} is open ({done} chapters done): novel-studio continue writes chapter {next}"),
    "offer_continue": ("现在写第 {next} 章吗？[y/N] ", "write chapter {next} now? [y/N] "),
    "offer_plan": ("现在规划第 {volume} 卷吗？[y/N] ", "plan volume {volume} now? [y/N] "),
    "volume_done": ("第 {volume} 卷已写完：novel-studio review 回顾本卷，然后 novel-studio plan 规划下一卷",
                    "volume {volume} is finished: novel-studio review it, then novel-studio plan the next one"),
    "plan_due": ("下一步是卷规划：novel-studio plan", "volume planning is next: novel-studio plan"),
    "has_chapters": (
        "项目已有 {n} 章；不会重新快速起步。要重来请加 --restart（会先备份）",
        "the project has {n} chapters; the quick start is not redone. To start over add --restart (a backup "
        "is made first)",
    ),
    "restart_question": (
        "确定要重新快速起步吗？设定、角色、风格、大纲和全部 {n} 章会备份后清空（纲领保留）。输入 yes 确认：",
        "Start the quick start over? World, characters, style, plan and all {n} chapters are backed up and "
        "cleared (the brief stays). Type yes to confirm: ",
    ),
    "restart_paused": (
        "重新快速起步需要确认：在终端运行，或加 --yes",
        "starting over needs a confirmation: run it in a terminal, or add --yes",
    ),
    "restart_cancelled": ("已取消，什么都没改", "cancelled; nothing changed"),
    "progress_broken": (
        "快速起步进度文件无法读取，不知道哪些步骤已完成：{problem}\n"
        "运行 novel-studio start --restart 重新开始快速起步：这个文件和快速起步已写的文件先备份到 "
        ".novel-studio/quick-start-backup/，纲领和设置保留",
        "the quick start's progress file cannot be read, so which steps are done is unknown: {problem}\n"
        "run novel-studio start --restart to begin the quick start again: this file and what the quick start "
        "wrote are first backed up in .novel-studio/quick-start-backup/; the brief and settings stay",
    ),
    "progress_broken_question": (
        "快速起步进度文件无法读取：{problem}\n重新开始快速起步吗？这个文件和快速起步已写的文件会先备份到 "
        ".novel-studio/quick-start-backup/（纲领和设置保留）。输入 yes 确认：",
        "the quick start's progress file cannot be read: {problem}\nBegin the quick start again? This file and "
        "what the quick start wrote are first backed up in .novel-studio/quick-start-backup/ (the brief and "
        "settings stay). Type yes to confirm: ",
    ),
    "request_broken": (
        "快速起步开始时保存的选择无法读取：{problem}\n原文件已备份到 {backup}；改用这次的选项（风格来源：{style}）",
        "the choices saved when the quick start began cannot be read: {problem}\nthe file is backed up in "
        "{backup}; this run's options are used (style source: {style})",
    ),
    "restart_backup": ("旧文件已备份到 {backup}", "the old files are backed up in {backup}"),
    "refused": ("项目状态不一致，未开始：\n{findings}", "the project is inconsistent; nothing was started:\n{findings}"),
    "locked_cancelled": ("已取消", "cancelled"),
    "take_over": ("接管项目锁吗？", "take over the project lock?"),
    "trial_paused": (
        "试写三章已完成，等待确认（当前不是交互终端）。确认：novel-studio start --yes；或 --answer 见 --help",
        "The trial chapters are written and wait for confirmation (stdin is not a terminal). Confirm: "
        "novel-studio start --yes; other answers: --answer, see --help",
    ),
    "adjust_what": ("调整什么？1 纲领  2 某个角色  3 风格  4 重写试写章节：", "adjust what? 1 brief  2 a character  "
                    "3 style  4 rewrite the trial chapters: "),
    "adjust_brief": ("编辑 {path} 后按回车：", "edit {path}, then press Enter: "),
    "adjust_character": ("哪个角色（{ids}）：", "which character ({ids}): "),
    "adjust_note": ("要怎么改：", "what to change: "),
    "confirm_restart": ("确定重来？输入 yes：", "start over? type yes: "),
    "spent": ("快速起步花费 ${cost:.4f}", "quick start cost ${cost:.4f}"),
    "interrupted": ("已中断，进度已保存；novel-studio start 接着做", "interrupted; progress saved; novel-studio start goes on"),
}

STEP_NAMES: dict[str, tuple[str, str]] = {
    "world": ("世界观（轻量）", "world (light)"),
    "characters": ("主角与配角", "protagonist and cast"),
    "storyline": ("主线 main-arc", "main storyline"),
    "style": ("风格", "style"),
    "opening": ("开篇三章大纲", "opening sketch"),
    "trial": ("试写三章", "trial chapters"),
    "extract": ("从试写章节提取风格", "style from the trial chapters"),
    "confirm": ("确认试写", "confirm the trial"),
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lang = help_lang()
    keys = ", ".join(k for k, _ in BRIEF_FIELDS)
    p = subparsers.add_parser("start", help=tr(MESSAGES, "help", lang), description=tr(MESSAGES, "help", lang))
    p.add_argument("dir", nargs="?", type=Path, default=None, metavar="DIR", help=tr(MESSAGES, "opt_dir", lang))
    p.add_argument("--volume-length", type=int, default=None, metavar="K",
                   help=tr(MESSAGES, "opt_length", lang, n=30))
    p.add_argument("--style", choices=sorted(STYLES), default=None, help=tr(MESSAGES, "opt_style", lang))
    p.add_argument("--sample", action="append", default=[], metavar="FILE", help=tr(MESSAGES, "opt_sample", lang))
    p.add_argument("--reference", default="", metavar="NAME", help=tr(MESSAGES, "opt_reference", lang))
    p.add_argument("--preset", default="", metavar="NAME",
                   help=tr(MESSAGES, "opt_preset", lang, presets=("、" if lang == "zh" else ", ").join(TONE_PRESETS)))
    p.add_argument("--brief-field", action="append", default=[], metavar="KEY=VALUE",
                   help=tr(MESSAGES, "opt_brief", lang, keys=keys))
    p.add_argument("--answer", default=None, metavar="TEXT", help=tr(MESSAGES, "opt_answer", lang))
    p.add_argument("--restart", action="store_true", help=tr(MESSAGES, "opt_restart", lang))
    p.add_argument("--yes", "-y", action="store_true", help=tr(MESSAGES, "opt_yes", lang))
    p.add_argument("--max-cost", type=float, default=None, metavar="USD", help=tr(MESSAGES, "opt_cost", lang))
    add_common_arguments(p)
    p.set_defaults(func=run)


class _Out:
    """Text lines, or with --json one JSON object per line (events, then the result or the question)."""

    def __init__(self, json_mode: bool) -> None:
        self.json_mode = json_mode

    def say(self, text: str, *, err: bool = False) -> None:
        if not self.json_mode:
            print(text, file=sys.stderr if err else sys.stdout)

    def line(self, data: dict[str, Any]) -> None:
        if self.json_mode:
            print(json.dumps(data, ensure_ascii=False, default=str))

    def finish(self, code: int, event: str = "result", **data: Any) -> int:
        self.line({"event": event, "exit_code": code, **data})
        return code


def _brief_answers(items: list[str], lang: Lang) -> dict[str, str] | str:
    keys = {k for k, _ in BRIEF_FIELDS}
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or key.strip() not in keys or not value.strip():
            return tr(MESSAGES, "bad_field", lang, keys=", ".join(sorted(keys)), item=item)
        out[key.strip()] = value.strip()
    return out


def _brief_question(lang: Lang) -> dict[str, Any]:
    return {
        "kind": "brief",
        "question": tr(MESSAGES, "brief_question", lang),
        "fields": [{"key": k, "label": heading} for k, heading in BRIEF_FIELDS],
        "answer_with": "--brief-field key=value",
    }


def _ask_brief(lang: Lang) -> dict[str, str]:
    answers = {}
    for key, heading in BRIEF_FIELDS:
        value = input(tr(MESSAGES, "ask_field", lang, label=heading)).strip()
        if value:
            answers[key] = value
    return answers


def _merged_brief(path: Path, title: str, answers: dict[str, str], lang: Lang) -> str:
    """brief.md with `answers` over the sections already written (all of them template sections)."""
    existing = clean_brief(read_text(path)) if path.is_file() else None
    by_heading = {heading: key for key, heading in BRIEF_FIELDS}
    merged: dict[str, str] = {}
    odd = []
    for heading, body in existing.sections if existing is not None else ():
        if heading in by_heading:
            merged[by_heading[heading]] = body
        elif heading not in ("书名", ""):
            odd.append(heading)
    if odd:
        raise StudioError(tr(MESSAGES, "brief_not_merged", lang, headings="、".join(odd)))
    merged.update(answers)
    return brief_from_answers(title, merged)


def _request(args: argparse.Namespace, lang: Lang) -> QuickStartRequest | str:
    style = STYLES[args.style] if args.style else ("samples" if args.sample else "reference" if args.reference
                                                   else "preset" if args.preset else "write_then_extract")
    samples = []
    for raw in args.sample:
        path = Path(raw).expanduser().resolve()
        if not path.is_file():
            return tr(MESSAGES, "bad_sample", lang, path=raw)
        samples.append(str(path))
    data: dict[str, Any] = {"style_source": style, "sample_paths": samples, "reference_author": args.reference,
                            "preset": args.preset}
    if args.volume_length is not None:
        data["volume_length"] = args.volume_length
    try:
        return QuickStartRequest.model_validate(data)
    except ValidationError as exc:
        sep = "；" if lang == "zh" else "; "
        return tr(MESSAGES, "bad_request", lang, message=sep.join(
            (f"{'.'.join(map(str, e['loc']))}: " if e["loc"] else "") + error_text(e, lang) for e in exc.errors()
        ))


def _trial_decider(args: argparse.Namespace, lang: Lang, out: _Out, project: Path) -> Decider:
    """TRIAL_CONFIRM from --answer, --yes or the terminal (with follow-up questions for adjust); the
    orchestrator's questions as `continue` answers them."""
    base = cli_decider(lang, yes=bool(args.yes), on_low_score=None)
    given = {"answer": args.answer}

    async def decide(question: Question) -> str:
        if question.kind is not QuestionKind.TRIAL_CONFIRM:
            return await base(question)
        if given["answer"]:
            answer, given["answer"] = given["answer"], None  # used once: a second ask comes after an adjustment
            return str(answer)
        if args.yes:
            return question.recommended
        if out.json_mode or not is_interactive():
            out.line({"event": "question", "kind": question.kind.value, "question": title_of(question, lang),
                      "facts": question.facts, "options": [o.key for o in question.options],
                      "recommended": question.recommended, "data": question.data})
            raise PausedForAuthor(tr(MESSAGES, "trial_paused", lang))
        choice = await base(question)
        if choice == "restart":
            return "restart" if input(tr(MESSAGES, "confirm_restart", lang)).strip().lower() == "yes" else "_again"
        if choice != "adjust":
            return choice
        what = input(tr(MESSAGES, "adjust_what", lang)).strip()
        if what == "1":
            input(tr(MESSAGES, "adjust_brief", lang, path=project / "brief.md"))
            return "adjust:brief"
        if what == "2":
            ids = ", ".join(str(i) for i in question.data.get("characters", []))  # type: ignore[attr-defined]
            slug = input(tr(MESSAGES, "adjust_character", lang, ids=ids)).strip()
            note = input(tr(MESSAGES, "adjust_note", lang)).strip()
            return f"adjust:character:{slug}" + (f":{note}" if note else "")
        note = input(tr(MESSAGES, "adjust_note", lang)).strip() if what in ("3", "4") else ""
        if what == "3":
            return "adjust:style" + (f":{note}" if note else "")
        if what == "4":
            return "rewrite" + (f":{note}" if note else "")
        return "_again"  # not understood: the flow asks again

    return decide


def _printer(lang: Lang, out: _Out) -> Callable[[Event], None]:
    events = EventPrinter(lang, json_lines=out.json_mode)

    def on_event(event: Event) -> None:
        if not isinstance(event, QuickStartStep):
            events(event)
            return
        if out.json_mode:
            out.line(event_data(event))
            return
        name = STEP_NAMES.get(event.step, (event.step, event.step))[0 if lang == "zh" else 1]
        key = {"done": "step_done", "resumed": "step_resumed", "skipped": "step_skipped"}.get(event.status)
        if key is None:
            key = "step_estimate" if event.estimate_usd else "step_started"
        out.say(tr(MESSAGES, key, lang, i=event.index, n=event.total, name=name, cost=event.estimate_usd or 0.0))
        if event.detail and event.status == "started" and event.step == "confirm":
            out.say(event.detail)

    return on_event


def _state_message(root: Path, lang: Lang) -> tuple[str, str, int]:
    """(state, message, next chapter) of a project that needs no quick start."""
    project = Project.open(root)
    cp = Checkpoint.load_or_default(project.paths.checkpoint)
    outline = project.outline
    last = outline.chapter_range[1] if outline is not None and outline.chapter_range is not None else None
    if cp.orchestrator_state is OrchestratorState.VOL_PLANNING or last is None:
        return "plan", tr(MESSAGES, "plan_due", lang), cp.next_chapter
    if cp.orchestrator_state is OrchestratorState.VOL_REVIEW or cp.last_completed_chapter >= last:
        return "volume_finished", tr(MESSAGES, "volume_done", lang, volume=cp.current_volume), cp.next_chapter
    return "volume_open", tr(MESSAGES, "volume_open", lang, volume=cp.current_volume, done=cp.last_completed_chapter,
                             next=cp.next_chapter), cp.next_chapter


def run(args: argparse.Namespace) -> int:
    root = (args.dir or project_root(args)).expanduser()
    lang = resolve_lang(args, root if root.is_dir() else None)
    out = _Out(bool(getattr(args, "json", False)))
    answers = _brief_answers(list(args.brief_field), lang)
    if isinstance(answers, str):
        out.say(answers, err=True)
        return out.finish(int(ExitCode.USAGE), error=answers)
    if args.answer is not None:
        try:
            parse_trial_answer(args.answer)
        except ValueError:
            message = tr(MESSAGES, "bad_answer", lang, answer=args.answer)
            out.say(message, err=True)
            return out.finish(int(ExitCode.USAGE), error=message)
    asks = not args.yes and not out.json_mode and is_interactive()
    if not looks_like_project(root):
        request = _request(args, lang)
        if isinstance(request, str):
            out.say(request, err=True)
            return out.finish(int(ExitCode.USAGE), error=request)
        if not answers:
            if not asks:
                out.say(tr(MESSAGES, "brief_paused", lang), err=True)
                return out.finish(int(ExitCode.PAUSED), event="question", **_brief_question(lang))
            answers = _ask_brief(lang)
            if not answers:
                out.say(tr(MESSAGES, "brief_paused", lang), err=True)
                return out.finish(int(ExitCode.PAUSED), event="question", **_brief_question(lang))
        init_project(root)
        out.say(tr(MESSAGES, "created", lang, root=root))
        atomic_write_text(root / "brief.md", brief_from_answers(root.resolve().name, answers))
    return _in_project(args, root.resolve(), lang, out, answers)


def _in_project(args: argparse.Namespace, root: Path, lang: Lang, out: _Out, answers: dict[str, str]) -> int:
    from studio.config import load_settings

    settings = load_settings(root)
    paths = ProjectPaths(root)
    offline = is_offline(settings, bool(getattr(args, "offline", False)))
    lock = ProjectLock(paths)
    if not take_project_lock(args, lock, lang, tr(MESSAGES, "take_over", lang), tr(MESSAGES, "locked_cancelled", lang)):
        return out.finish(int(ExitCode.LOCKED))
    try:
        with termination_handlers():
            sweep_temp_files(root)
            try:
                progress = load_progress(paths)
            except FormatError as exc:
                code = _set_aside_broken_progress(args, paths, exc, lang, out)
                if code is not None:
                    return code
                progress = None
            done = Checkpoint.load_or_default(paths.checkpoint).last_completed_chapter
            if progress is None and (done > 0 or Project.open(root).outline is not None):
                if not args.restart:
                    if done > 0:
                        out.say(tr(MESSAGES, "has_chapters", lang, n=done))
                    state, message, nxt = _state_message(root, lang)
                    out.say(message)
                    if state in ("volume_open", "plan") and not args.yes and not out.json_mode and is_interactive():
                        if state == "volume_open":
                            offer, command = tr(MESSAGES, "offer_continue", lang, next=nxt), ["continue", "1"]
                        else:
                            volume = Checkpoint.load_or_default(paths.checkpoint).current_volume or 1
                            offer, command = tr(MESSAGES, "offer_plan", lang, volume=volume), ["plan"]
                        if input(offer).strip().lower() == "y":
                            lock.release()
                            return _hand_over(command, root, lang, offline=offline)
                    return out.finish(int(ExitCode.OK), state=state, message=message, chapters=done)
                confirmed = args.yes or (not out.json_mode and is_interactive() and input(
                    tr(MESSAGES, "restart_question", lang, n=done)).strip().lower() == "yes")
                if not confirmed:
                    key = "restart_cancelled" if is_interactive() and not out.json_mode else "restart_paused"
                    out.say(tr(MESSAGES, key, lang), err=True)
                    code = ExitCode.OK if key == "restart_cancelled" else ExitCode.PAUSED
                    return out.finish(int(code), event="result" if code == ExitCode.OK else "question",
                                      kind="restart", question=tr(MESSAGES, "restart_question", lang, n=done))
                backup = clear_for_restart(paths, QuickStartProgress())
                out.say(tr(MESSAGES, "restart_backup", lang, backup=backup.relative_to(root)))
                progress = None
            refused, findings = cold_start_refused(paths, lang, allowed=QUICK_START_KEYS | PLANNING_KEYS)
            if refused:
                out.say(tr(MESSAGES, "refused", lang, findings=findings), err=True)
                return out.finish(int(ExitCode.ERROR), refused=refused)
            stored = _stored_request(args, paths, lang, out) if progress is not None else None
            if isinstance(stored, int):
                return stored
            if progress is not None and stored is not None:
                request = stored
                out.say(tr(MESSAGES, "resuming", lang, done="、".join(progress.done) or "-"))
                if args.style or args.sample or args.reference or args.preset:
                    out.say(tr(MESSAGES, "stored_choices", lang, style=request.style_source))
            else:
                built = _request(args, lang)
                if isinstance(built, str):
                    out.say(built, err=True)
                    return out.finish(int(ExitCode.USAGE), error=built)
                request = built
                if answers:
                    atomic_write_text(paths.brief, _merged_brief(paths.brief, root.name, answers, lang))
                if load_brief(paths.brief).is_empty:
                    typed = _ask_brief(lang) if not args.yes and not out.json_mode and is_interactive() else {}
                    if not typed:
                        out.say(tr(MESSAGES, "brief_paused", lang), err=True)
                        return out.finish(int(ExitCode.PAUSED), event="question", **_brief_question(lang))
                    atomic_write_text(paths.brief, _merged_brief(paths.brief, root.name, typed, lang))
            return _quick_start(args, root, settings, offline, request, lock, lang, out)
    except KeyboardInterrupt:
        out.say(tr(MESSAGES, "interrupted", lang), err=True)
        return out.finish(int(ExitCode.INTERRUPTED))
    finally:
        lock.release()


def _set_aside_broken_progress(
    args: argparse.Namespace, paths: ProjectPaths, exc: FormatError, lang: Lang, out: _Out
) -> int | None:
    """A progress file that cannot be read: which steps are done is unknown, so the quick start begins again,
    only with `--restart` (or a typed yes on a terminal), after the file and everything the quick start
    wrote are backed up (`clear_for_restart`). Returns the exit code when it stops here, None to go on."""
    problem = exc.text(lang)
    asks = not args.yes and not out.json_mode and is_interactive()
    if not args.restart and not asks:
        message = tr(MESSAGES, "progress_broken", lang, problem=problem)
        out.say(message, err=True)
        return out.finish(int(ExitCode.ERROR), error="quick_start_progress_unreadable", message=message)
    question = tr(MESSAGES, "progress_broken_question", lang, problem=problem)
    if not args.yes and not (asks and input(question).strip().lower() == "yes"):
        key = "restart_cancelled" if asks else "restart_paused"
        out.say(tr(MESSAGES, key, lang), err=True)
        code = ExitCode.OK if asks else ExitCode.PAUSED
        return out.finish(int(code), event="result" if asks else "question", kind="restart", question=question)
    backup = clear_for_restart(paths, QuickStartProgress())
    out.say(tr(MESSAGES, "restart_backup", lang, backup=backup.relative_to(paths.root)))
    return None


def _stored_request(args: argparse.Namespace, paths: ProjectPaths, lang: Lang, out: _Out) -> QuickStartRequest | int | None:
    """The choices a quick start under way began with; None when there are none. A file that cannot be read
    is copied into `.novel-studio/quick-start-backup/` and replaced by this run's options, said aloud (an
    int: the exit code when this run's options are not usable either)."""
    path = request_path(paths)
    if not path.is_file():
        return None
    try:
        return QuickStartRequest.load(path)
    except FormatError as exc:
        problem = exc.text(lang)
    built = _request(args, lang)
    if isinstance(built, str):
        out.say(built, err=True)
        return out.finish(int(ExitCode.USAGE), error=built)
    backup = request_backup_path(paths)
    atomic_write_bytes(backup, path.read_bytes())
    built.save(path)
    out.say(tr(MESSAGES, "request_broken", lang, problem=problem, backup=backup.relative_to(paths.root),
               style=built.style_source))
    return built


def _hand_over(command: list[str], root: Path, lang: Lang, *, offline: bool) -> int:
    """Run the next command (`continue`, `plan`) on the project as the author would type it, with this run's
    `--offline` and language: a quick start tried offline never goes on to spend money."""
    from studio.cli.main import main

    argv = [*command, "--project", str(root), "--lang", lang]
    return main([*argv, "--offline"] if offline else argv)


def _quick_start(args: argparse.Namespace, root: Path, settings: Settings, offline: bool, request: QuickStartRequest,
                 lock: ProjectLock, lang: Lang, out: _Out) -> int:
    if provider_seam.missing_key(settings, offline):
        message = provider_seam.no_key_text(settings, lang)
        out.say(message, err=True)
        return out.finish(int(ExitCode.ERROR), error="missing_api_key", message=message)
    if offline:
        out.say(tr(MESSAGES, "offline", lang))
    provider = provider_seam.build(root, settings, offline)
    agents = AGENTS_FACTORY(root, settings, offline) if AGENTS_FACTORY is not None else None
    decide = _trial_decider(args, lang, out, root)
    try:
        outcome = asyncio.run(run_quick_start(
            root, settings, provider, request, decide, _printer(lang, out), lock=lock, lang=lang, offline=offline,
            max_cost_usd=args.max_cost, agents=agents,
        ))
    except PausedForAuthor as exc:
        out.say(str(exc), err=True)
        return int(ExitCode.PAUSED) if out.json_mode else out.finish(int(ExitCode.PAUSED))
    except QuickStartRefused as exc:
        out.say(str(exc), err=True)
        return out.finish(int(ExitCode.ERROR), error=str(exc))
    code = _report(outcome, lang, out)
    if outcome.next_action == "plan" and code == int(ExitCode.OK) and not args.yes and not out.json_mode \
            and is_interactive():
        volume = Checkpoint.load_or_default(ProjectPaths(root).checkpoint).current_volume or 1
        if input(tr(MESSAGES, "offer_plan", lang, volume=volume)).strip().lower() == "y":
            lock.release()
            return _hand_over(["plan"], root, lang, offline=offline)
    return code


def _report(outcome: QuickStartOutcome, lang: Lang, out: _Out) -> int:
    # each trial chapter's line was printed as it committed (the event printer); not again here
    out.say(outcome.message, err=outcome.status == "error")
    if outcome.cost_usd:
        out.say(tr(MESSAGES, "spent", lang, cost=outcome.cost_usd))
    return out.finish(
        outcome.exit_code,
        status=outcome.status,
        message=outcome.message,
        steps_done=outcome.steps_done,
        chapters=outcome.chapters,
        next=outcome.next_action,
        backup=outcome.backup,
        errors=outcome.errors,
        cost_usd=outcome.cost_usd,
    )


__all__ = ["AGENTS_FACTORY", "parse_trial_answer", "register", "run"]
