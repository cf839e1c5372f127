"""The quick start (state QUICK_START; seed 000 §2.2 Layer 1, §7 Layer 1, §8.2; issue 7 item 2): from the
author's brief to three confirmed trial chapters, as ONE async flow shared by `novel-studio start` and the
studio's new-novel path.

Steps, in the seed's order (`studio.planning.quick_start_progress.QUICK_START_STEPS`):

1. `world`       WorldBuilder (light): at most 3 L1 rules into `world/rules.json`, its notes `world/*.md`, the
                 names it registers (`world/names.json`), `world/changelog.md`; it reads `research/*.md`.
2. `characters`  CharacterWeaver: the protagonist and 1-2 others, L2 contracts and aliases (the names the
                 checks' NameRegistry reads), `characters/relationships.json`, `characters/changelog.md`.
3. `storyline`   `main-arc` (type `main_arc`, WorldBuilder's suggestion, the protagonist as POV), its memory and
                 the LS spec. No model call.
4. `style`       per `QuickStartRequest.style_source` (`pipeline.planning.style_analysis`); write_then_extract
                 writes a provisional profile (`source_type: "write_then_extract"`, numbers null) and no call.
5. `opening`     PlotArchitect plans chapters 1-3 (the 黄金三章 note: a hook in chapter 1, a 爽点 and a
                 chapter-end hook in each), checked and staged like a volume plan and applied as volume 1's
                 outline, schedule and contracts in one journaled step (`studio.planning.staged`).
6. `trial`       the existing Orchestrator writes chapters 1-3 with the same agents and provider; in QUICK_START
                 it does not stop at the outline's end as a volume end (the confirm question comes instead).
7. `extract`     write_then_extract only: StyleAnalyzer on the trial chapters (numbers by code, anchors cut
                 from them). Skipped for the other sources.
8. `confirm`     `QuestionKind.TRIAL_CONFIRM` through `decide`; the answers (`TrialAnswer`):
                 `confirm` -> the checkpoint goes to VOL_PLANNING with chapters 1-3 committed, the progress file
                 is removed, the outcome says volume planning comes next;
                 `adjust:brief` -> the author changed `brief.md` (the decider side edited it): asked again;
                 `adjust:style[:note]` -> the style step runs again with the note (extract for
                 write_then_extract), then asked again;
                 `adjust:character:<id>[:note]` -> CharacterWeaver updates that one character, then asked again;
                 `rewrite[:note]` -> the trial chapters are taken back (`pipeline.undo`, backups kept) and
                 written again with the note;
                 `restart` -> world, characters, storylines, style, plan and chapters are backed up under
                 `.novel-studio/quick-start-backup/` and cleared; the brief stays; the flow ends.

Every step is resumable after a kill (see `studio.planning.quick_start_progress`); nothing is half applied.
Every model call: its estimate is emitted first (`QuickStartStep.estimate_usd`), `max_cost_usd` stops before
a call that could pass it, and the provider books the spend (`build_provider` wraps it in the ledger).
A reply that fails its checks after two repair rounds ends the flow with status `error` and nothing of that
step written. The caller holds the project lock (pass it as `lock`, so the trial run does not take it again).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel

from pipeline.agents.fresh import FreshProjectAgents
from pipeline.agents.protocol import Agents, CallRecord
from pipeline.agents.requests import AgentRequests
from pipeline.decisions import Decider, Option, Question, QuestionKind
from pipeline.estimate import estimate_chapter_cost
from pipeline.events import Event, QuickStartStep
from pipeline.orchestrator import Orchestrator, RunResult
from pipeline.planning.invoke import RetryHook, priced_invoke
from pipeline.planning.plan_volume import PlanRejected, estimate_plan_cost, plan_request, plan_volume
from pipeline.planning.prompt_context import PlanTarget, character_weaver_context, world_builder_context
from pipeline.planning.style_analysis import (
    StyleSampleError,
    analyze_style,
    profile_summary,
    read_samples,
    style_request,
)
from pipeline.prompts_registry import PromptRegistry, project_registry
from pipeline.providers.base import ModelRequest, Provider, ProviderError
from pipeline.structured import StructuredReplyError, run_structured
from pipeline.undo import undo_last_chapter
from studio.author_brief import load_brief
from studio.errors import StudioError
from studio.fileio import dumps_json, read_text
from studio.i18n import Catalog, Lang, chars_text, tr
from studio.lock import ProjectLock
from studio.models.checkpoint import Checkpoint, OrchestratorState
from studio.models.evaluation import Evaluation
from studio.models.quick_start import QuickStartRequest, StyleSource
from studio.models.settings import Settings
from studio.models.style_profile import StyleProfile
from studio.paths import ProjectPaths
from studio.planning.quick_start_files import cast_files, main_arc_files, protagonist_of, world_files
from studio.planning.quick_start_progress import (
    QUICK_START_STEPS,
    QuickStartProgress,
    apply_staged_step,
    clear_for_restart,
    finish_restart,
    load_progress,
    remove_progress,
    request_path,
    save_progress,
    set_state,
    stage_step,
)
from studio.planning.quick_start_replies import CastReply, LightWorldReply, character_update_reply
from studio.planning.staged import (
    apply_staged_plan,
    pending_plan_applies,
    resume_plan_applies,
    stage_plan,
    staged_plans,
)
from studio.project import Project
from studio.wordcount import word_count

__all__ = [
    "GOLDEN_THREE_NOTE",
    "TRIAL_CHAPTERS",
    "QuickStartOutcome",
    "QuickStartRefused",
    "TrialAnswer",
    "parse_trial_answer",
    "run_quick_start",
    "trial_question",
]

TRIAL_CHAPTERS = 3
LANGS: tuple[Lang, ...] = ("zh", "en")
ADJUST_CHARACTER = "adjust-character"
WORLD_REQUEST = (
    "快速起步（轻量模式）：只给出最核心的世界观，最多 3 条 L1 规则；给出 1 条主线故事线建议（id 为 main-arc，"
    "type 为 main_arc）；列出设定中的专有名词。"
)
CAST_REQUEST = (
    "快速起步：按创作纲领设计主角与一到两名重要角色（共 2-3 人，role 标出 protagonist），每人至少一条 L2 契约，"
    "写明正文会用到的别称（aliases），并给出他们之间的关系。"
)
GOLDEN_THREE_NOTE = (
    "这是全书开篇的黄金三章（第1-3章），只规划这三章：第1章开头就要有抓住读者的钩子，尽快亮出主角的处境与核心冲突；"
    "每章都要有一个爽点（Payoff）和一个章末钩子（Hook）；三章之内主线必须明显推进。"
)

MESSAGES: Catalog = {
    "empty_brief": (
        "创作纲领（brief.md）还是空的：至少写下题材、主角和核心冲突，再开始快速起步",
        "the brief (brief.md) is empty: write at least the genre, the protagonist and the core conflict first",
    ),
    "has_chapters": (
        "项目已有 {n} 章已提交的章节；快速起步不会在已有章节的项目上重做（需要作者明确确认重来）",
        "the project has {n} committed chapters; the quick start is not redone on it without the author's "
        "explicit confirmation to start over",
    ),
    "step_world": ("世界观（轻量）", "world (light)"),
    "step_characters": ("主角与配角", "protagonist and cast"),
    "step_storyline": ("主线 main-arc", "main storyline main-arc"),
    "step_style": ("风格", "style"),
    "step_opening": ("开篇三章大纲", "3-chapter opening sketch"),
    "step_trial": ("试写三章", "three trial chapters"),
    "step_extract": ("从试写章节提取风格", "style from the trial chapters"),
    "step_confirm": ("确认试写", "confirm the trial chapters"),
    "over_cost": (
        "“{step}”这一步预计 ${cost:.2f}，加上已花的 ${spent:.2f} 会超过上限 ${limit:.2f}；已停止，进度已保存",
        "step \"{step}\" is estimated at ${cost:.2f}; with ${spent:.2f} spent it would pass the limit of "
        "${limit:.2f}; stopped, progress saved",
    ),
    "reply_failed": (
        "“{step}”这一步的模型回复经过两轮修正仍不合格，未写入任何内容：{errors}",
        "the model's reply for step \"{step}\" still failed its checks after two repairs; nothing was written: "
        "{errors}",
    ),
    "model_error": ("“{step}”这一步调用模型出错（进度已保存）：{message}", "step \"{step}\": the model call failed "
                    "(progress saved): {message}"),
    "sample_error": ("{message}", "{message}"),
    # names the chapters, so the dialog adds no "第 3 章 ·" / "Chapter 3 ·" of its own (the question is on all three)
    "q_title": (
        "试写的第 1-{n} 章已完成：确认、调整还是重来？",
        "Trial chapters 1-{n} are written: confirm, adjust or start over?",
    ),
    "o_confirm": ("确认，进入卷规划（第1-3章保留）", "confirm: go on to volume planning (chapters 1-3 stay)"),
    "o_adjust": ("调整（纲领 / 某个角色 / 风格 / 重写试写章节）", "adjust (brief / a character / style / rewrite the trial chapters)"),
    "o_restart": ("重来（备份并清空设定、角色、风格、大纲和章节；纲领保留）", "start over (back up and clear world, "
                  "characters, style, plan and chapters; the brief stays)"),
    "fact_chapter": ("第{n}章 {words} 评分 {score}", "chapter {n}: {words}, score {score}"),
    "fact_style": ("风格：{summary}", "style: {summary}"),
    "fact_cast": ("角色：{names}", "characters: {names}"),
    "fact_rules": ("世界规则：{n} 条", "world rules: {n}"),
    "bad_answer": ("无法理解的回答：{answer}", "cannot understand the answer: {answer}"),
    "unknown_character": ("没有这个角色：{id}", "no such character: {id}"),
    "confirmed": (
        "快速起步完成：第1-3章已确认。下一步：规划第 1 卷的其余章节（novel-studio plan）",
        "quick start done: chapters 1-3 confirmed. Next: plan the rest of volume 1 (novel-studio plan)",
    ),
    "restarted": (
        "已重来：原有设定、角色、风格、大纲和章节备份在 {backup}；纲领保留。修改 brief.md 后再运行 novel-studio start",
        "started over: world, characters, style, plan and chapters are backed up in {backup}; the brief stays. "
        "Edit brief.md if you like, then run novel-studio start",
    ),
    "paused": ("试写暂停，等待作者（进度已保存，novel-studio start 接着做）", "the trial chapters wait for the author "
               "(progress saved; novel-studio start goes on)"),
}

M = TypeVar("M", bound=BaseModel)
Status = Literal["confirmed", "restarted", "paused", "stopped_by_cost", "error"]


class QuickStartRefused(StudioError):
    """The quick start cannot begin (empty brief, a project with committed chapters); nothing was written."""


@dataclass
class QuickStartOutcome:
    status: Status
    message: str
    steps_done: list[str] = field(default_factory=list)
    chapters: list[int] = field(default_factory=list)  # the committed trial chapters
    calls: list[CallRecord] = field(default_factory=list)  # the planning calls (the trial run's are in `runs`)
    runs: list[RunResult] = field(default_factory=list)
    next_action: str = ""  # "plan" after confirm, "start" to go on, "" when nothing follows
    backup: str | None = None  # restart: where the old files went
    errors: list[str] = field(default_factory=list)

    @property
    def cost_usd(self) -> float:
        return round(sum(c.cost_usd or 0.0 for c in self.calls) + sum(r.cost_usd for r in self.runs), 6)

    @property
    def exit_code(self) -> int:
        return {"confirmed": 0, "restarted": 0, "stopped_by_cost": 0, "paused": 3}.get(self.status, 1)


@dataclass(frozen=True)
class TrialAnswer:
    """An answer to TRIAL_CONFIRM (see the module docstring for the strings)."""

    action: Literal["confirm", "adjust", "rewrite", "restart"]
    target: str = ""  # adjust: "brief" | "style" | "character"
    character: str = ""
    note: str = ""

    def encode(self) -> str:
        if self.action == "adjust":
            parts = ["adjust", self.target] + ([self.character] if self.target == "character" else [])
            return ":".join(parts + ([self.note] if self.note else []))
        if self.action == "rewrite" and self.note:
            return f"rewrite:{self.note}"
        return self.action


def parse_trial_answer(answer: str) -> TrialAnswer:
    """The `TrialAnswer` in a decider's string; ValueError for anything else."""
    head, _, rest = answer.strip().partition(":")
    if head == "confirm" and not rest:
        return TrialAnswer("confirm")
    if head == "restart" and not rest:
        return TrialAnswer("restart")
    if head == "rewrite":
        return TrialAnswer("rewrite", note=rest.strip())
    if head == "adjust":
        target, _, more = rest.partition(":")
        if target == "brief" and not more:
            return TrialAnswer("adjust", "brief")
        if target == "style":
            return TrialAnswer("adjust", "style", note=more.strip())
        if target == "character":
            slug, _, note = more.partition(":")
            if slug.strip():
                return TrialAnswer("adjust", "character", character=slug.strip(), note=note.strip())
    raise ValueError(f"not a trial-confirm answer: {answer!r}")


def _steps(request: QuickStartRequest) -> list[str]:
    return [s for s in QUICK_START_STEPS if s != "extract" or request.style_source == "write_then_extract"]


def trial_question(paths: ProjectPaths) -> Question:
    """TRIAL_CONFIRM with the facts the author decides on (chapters, scores, cast, style)."""
    project = Project.open(paths.root)
    facts: dict[Lang, list[str]] = {"zh": [], "en": []}
    chapters = []
    for n in range(1, TRIAL_CHAPTERS + 1):
        evaluation = paths.evaluation(n)
        score = f"{Evaluation.load(evaluation).overall:.1f}" if evaluation.is_file() else "-"
        words = word_count(read_text(paths.chapter(n))) if paths.chapter(n).is_file() else 0
        chapters.append({"chapter": n, "chars": words, "score": score})
        for lang in LANGS:
            facts[lang].append(tr(MESSAGES, "fact_chapter", lang, n=n, words=chars_text(words, lang), score=score))
    for lang in LANGS:
        sep, left, right = ("、", "（", "）") if lang == "zh" else (", ", " (", ")")
        names = sep.join(f"{c.display_name}{left}{slug}{right}" for slug, c in project.characters.items())
        facts[lang] += [
            tr(MESSAGES, "fact_cast", lang, names=names),
            tr(MESSAGES, "fact_rules", lang, n=len(project.world_rules.rules)),
            tr(MESSAGES, "fact_style", lang, summary=profile_summary(project.style_profile, lang)),
        ]
    return Question(
        kind=QuestionKind.TRIAL_CONFIRM,
        chapter=TRIAL_CHAPTERS,
        title_zh=tr(MESSAGES, "q_title", "zh", n=TRIAL_CHAPTERS),
        title_en=tr(MESSAGES, "q_title", "en", n=TRIAL_CHAPTERS),
        facts=facts["zh"],
        options=[Option(k, tr(MESSAGES, f"o_{k}", "zh"), tr(MESSAGES, f"o_{k}", "en"))
                 for k in ("confirm", "adjust", "restart")],
        recommended="confirm",
        data={
            "chapters": chapters,
            "facts_en": facts["en"],
            "characters": sorted(project.characters),
            "answers": ["confirm", "adjust:brief", "adjust:style[:<note>]", "adjust:character:<id>[:<note>]",
                        "rewrite[:<note>]", "restart"],
        },
    )


class _Flow:
    def __init__(
        self,
        root: Path,
        settings: Settings,
        provider: Provider,
        request: QuickStartRequest,
        decide: Decider,
        emit: Callable[[Event], None],
        *,
        lock: ProjectLock | None,
        lang: Lang,
        offline: bool,
        registry: PromptRegistry,
        max_cost_usd: float | None,
        agents: Agents | None,
        on_retry: RetryHook | None,
    ) -> None:
        self.paths = ProjectPaths(root)
        self.root = root
        self.settings = settings
        self.provider = provider
        self.request = request
        self.decide = decide
        self.emit = emit
        self.lock = lock
        self.lang = lang
        self.offline = offline
        self.registry = registry
        self.max_cost_usd = max_cost_usd
        self.agents = agents
        self.on_retry = on_retry
        self.steps = _steps(request)
        self.outcome = QuickStartOutcome("error", "")

    # ------------------------------------------------------------------ helpers

    def _say(self, step: str, status: str, estimate: float | None = None, detail: str = "") -> None:
        index = self.steps.index(step) + 1 if step in self.steps else len(self.steps)
        self.emit(QuickStartStep(step, status, index, len(self.steps), estimate, detail))

    def _name(self, step: str) -> str:
        return tr(MESSAGES, f"step_{step}", self.lang)

    def _finish(self, status: Status, message: str, progress: QuickStartProgress | None, **kw: object) -> QuickStartOutcome:
        o = self.outcome
        o.status, o.message = status, message
        o.steps_done = list(progress.done) if progress is not None else o.steps_done
        o.chapters = list(range(1, min(Checkpoint.load_or_default(self.paths.checkpoint).last_completed_chapter,
                                       TRIAL_CHAPTERS) + 1))
        for key, value in kw.items():
            setattr(o, key, value)
        return o

    def _spent(self) -> float:
        return self.outcome.cost_usd

    def _over(self, step: str, estimate: float) -> str | None:
        limit = self.max_cost_usd
        if limit is None or self._spent() + estimate <= limit:
            return None
        return tr(MESSAGES, "over_cost", self.lang, step=self._name(step), cost=estimate, spent=self._spent(),
                  limit=limit)

    async def _structured(self, step: str, request: ModelRequest, model_cls: type[M]) -> M:
        result = await run_structured(self.provider, request, model_cls, registry=self.registry, stage=step,
                                      invoke=priced_invoke(self.provider, self.settings, self.on_retry))
        self.outcome.calls += result.calls
        return result.value

    # ------------------------------------------------------------------ the flow

    async def run(self) -> QuickStartOutcome:
        paths = self.paths
        if load_brief(paths.brief).is_empty:
            raise QuickStartRefused(tr(MESSAGES, "empty_brief", self.lang))
        progress = load_progress(paths)
        if progress is not None and progress.restart_backup:
            finish_restart(paths)  # a restart a kill cut short
            return self._finish("restarted", tr(MESSAGES, "restarted", self.lang, backup=progress.restart_backup),
                                None, backup=progress.restart_backup, next_action="start")
        if progress is None:
            done = Checkpoint.load_or_default(paths.checkpoint).last_completed_chapter
            if done > 0:
                raise QuickStartRefused(tr(MESSAGES, "has_chapters", self.lang, n=done))
            progress = QuickStartProgress()
            self.request.save(request_path(paths))
            save_progress(paths, progress)
        set_state(paths, OrchestratorState.QUICK_START)
        if apply_staged_step(paths, progress, ADJUST_CHARACTER):
            self._say("confirm", "resumed", detail=ADJUST_CHARACTER)
        while (step := progress.next_step()) is not None:
            if apply_staged_step(paths, progress, step):
                self._say(step, "resumed")
                continue
            if step not in self.steps:
                progress.done.append(step)
                save_progress(paths, progress)
                self._say(step, "skipped")
                continue
            try:
                stopped = await getattr(self, f"_{step}")(progress)
            except StructuredReplyError as exc:
                message = tr(MESSAGES, "reply_failed", self.lang, step=self._name(step), errors="；".join(exc.errors))
                self.outcome.calls += exc.calls
                return self._finish("error", message, progress, errors=list(exc.errors), next_action="start")
            except PlanRejected as exc:
                self.outcome.calls += exc.calls
                return self._finish("error", str(exc), progress, errors=list(exc.errors), next_action="start")
            except ProviderError as exc:
                message = tr(MESSAGES, "model_error", self.lang, step=self._name(step), message=str(exc))
                return self._finish("error", message, progress, errors=[str(exc)], next_action="start")
            except StyleSampleError as exc:
                return self._finish("error", str(exc), progress, errors=[str(exc)], next_action="start")
            if stopped is not None:
                return stopped
        return self._finish("confirmed", tr(MESSAGES, "confirmed", self.lang), progress, next_action="plan")

    # ------------------------------------------------------------------ steps

    async def _world(self, progress: QuickStartProgress) -> QuickStartOutcome | None:
        project = Project.open(self.root)
        bundle = world_builder_context(project, request=WORLD_REQUEST, registry=self.registry)
        request = replace(AgentRequests(project, self.settings, self.registry).build(bundle, "world_builder"),
                          stage="world")
        if (stop := self._gate("world", request, progress)) is not None:
            return stop
        reply = await self._structured("world", request, LightWorldReply)
        files, fields = world_files(self.paths, reply)
        self._apply("world", progress, files, fields)
        return None

    async def _characters(self, progress: QuickStartProgress) -> QuickStartOutcome | None:
        project = Project.open(self.root)
        bundle = character_weaver_context(project, request=CAST_REQUEST, registry=self.registry)
        request = replace(AgentRequests(project, self.settings, self.registry).build(bundle, "character_weaver"),
                          stage="characters")
        if (stop := self._gate("characters", request, progress)) is not None:
            return stop
        reply = await self._structured("characters", request, CastReply)
        self._apply("characters", progress, cast_files(self.paths, reply), {"protagonist": protagonist_of(reply)})
        return None

    async def _storyline(self, progress: QuickStartProgress) -> QuickStartOutcome | None:
        self._say("storyline", "started", 0.0)
        self._apply("storyline", progress, main_arc_files(self.paths, progress.main_arc, progress.protagonist))
        return None

    async def _style(self, progress: QuickStartProgress, note: str = "") -> QuickStartOutcome | None:
        source = self.request.style_source
        project = Project.open(self.root)
        if source == "write_then_extract":
            self._say("style", "started", 0.0)
            data = project.style_profile.to_data()
            data.update(source_type="write_then_extract", avg_sentence_length=None, dialogue_ratio=None)
            profile = StyleProfile.parse_data(data)
            self._apply("style", progress, {"style-profile.json": dumps_json(profile.to_data())})
            return None
        samples = read_samples([self._sample_path(p) for p in self.request.sample_paths]) if source == "samples" else []
        return await self._analyze("style", progress, source, samples, note or progress.style_note)

    async def _extract(self, progress: QuickStartProgress, note: str = "") -> QuickStartOutcome | None:
        samples = [(self.paths.chapter(n).name, read_text(self.paths.chapter(n))) for n in range(1, TRIAL_CHAPTERS + 1)
                   if self.paths.chapter(n).is_file()]
        return await self._analyze("extract", progress, "write_then_extract", samples, note or progress.style_note)

    async def _analyze(self, step: str, progress: QuickStartProgress, source: StyleSource,
                       samples: list[tuple[str, str]], note: str) -> QuickStartOutcome | None:
        project = Project.open(self.root)
        ref, preset = self.request.reference_author, self.request.preset
        request = style_request(project, self.settings, source, samples=samples, reference_author=ref, preset=preset,
                                note=note, registry=self.registry)
        if (stop := self._gate(step, request, progress)) is not None:
            return stop
        outcome = await analyze_style(project, self.settings, self.provider, source, samples=samples,
                                      reference_author=ref, preset=preset, note=note, registry=self.registry,
                                      on_retry=self.on_retry)
        self.outcome.calls += outcome.calls
        self._apply(step, progress, {"style-profile.json": dumps_json(outcome.profile.to_data())}, {"style_note": ""})
        return None

    async def _opening(self, progress: QuickStartProgress) -> QuickStartOutcome | None:
        paths = self.paths
        if 1 in pending_plan_applies(paths):
            resume_plan_applies(paths)
            self._say("opening", "resumed")
        elif 1 in staged_plans(paths):
            apply_staged_plan(paths, 1, lang=self.lang)
            self._say("opening", "resumed")
        elif not self._opening_applied():
            project = Project.open(self.root)
            target = PlanTarget(1, 1, TRIAL_CHAPTERS)
            request = plan_request(project, self.settings, target, note=GOLDEN_THREE_NOTE, registry=self.registry)
            if (stop := self._gate("opening", request, progress)) is not None:
                return stop
            planned = await plan_volume(project, self.settings, self.provider, target, note=GOLDEN_THREE_NOTE,
                                        registry=self.registry, on_retry=self.on_retry)
            self.outcome.calls += planned.calls
            stage_plan(paths, planned.plan, warnings=[f.line("zh") for f in planned.report.warnings],
                       warnings_en=[f.line("en") for f in planned.report.warnings], note=GOLDEN_THREE_NOTE)
            apply_staged_plan(paths, 1, lang=self.lang)
        set_state(paths, OrchestratorState.QUICK_START)
        self._mark("opening", progress)
        return None

    def _opening_applied(self) -> bool:
        project = Project.open(self.root)
        outline = project.outline
        return outline is not None and outline.chapter_range is not None and outline.chapter_range[0] == 1 and all(
            self.paths.contract(1, n).is_file() for n in range(1, TRIAL_CHAPTERS + 1)
        )

    async def _trial(self, progress: QuickStartProgress) -> QuickStartOutcome | None:
        paths = self.paths
        if progress.rewrite_pending:
            while Checkpoint.load_or_default(paths.checkpoint).last_completed_chapter > 0:
                undo_last_chapter(paths, lang=self.lang)
            progress.rewrite_pending = False
            save_progress(paths, progress)
        set_state(paths, OrchestratorState.QUICK_START)
        remaining = TRIAL_CHAPTERS - Checkpoint.load_or_default(paths.checkpoint).last_completed_chapter
        if remaining > 0:
            estimate = estimate_chapter_cost(paths, self.settings, offline=self.offline).for_chapters(remaining)
            over = self._over("trial", estimate)
            if over is not None:
                return self._finish("stopped_by_cost", over, progress, next_action="start")
            self._say("trial", "started", estimate, str(remaining))
            agents = self.agents or FreshProjectAgents(self.root, self.settings, self.provider, self.on_retry)
            orchestrator = Orchestrator(self.root, agents, decider=self.decide, emit=self.emit, settings=self.settings,
                                        lock=self.lock, lang=self.lang, offline=self.offline)
            limit = None if self.max_cost_usd is None else max(0.0, self.max_cost_usd - self._spent())
            result = await orchestrator.run(remaining, note=progress.trial_note or None, max_cost_usd=limit)
            self.outcome.runs.append(result)
            done = Checkpoint.load_or_default(paths.checkpoint).last_completed_chapter
            if done < TRIAL_CHAPTERS:
                if result.stopped_by_cost:
                    message = result.messages[-1] if result.messages else ""
                    return self._finish("stopped_by_cost", message, progress, next_action="start")
                if result.error is not None or result.lock_cancelled:
                    return self._finish("error", result.error or "", progress, errors=[result.error or "locked"],
                                        next_action="start")
                return self._finish("paused", tr(MESSAGES, "paused", self.lang), progress, next_action="start")
        set_state(paths, OrchestratorState.QUICK_START)
        progress.trial_note = ""
        self._mark("trial", progress)
        return None

    async def _confirm(self, progress: QuickStartProgress) -> QuickStartOutcome | None:
        paths = self.paths
        self._say("confirm", "started", 0.0)
        question = trial_question(paths)
        raw = await self.decide(question)
        try:
            answer = parse_trial_answer(raw)
        except ValueError:
            answer = None
        if answer is None or (answer.action == "adjust" and answer.target == "character"
                              and answer.character not in Project.open(self.root).characters):
            detail = (tr(MESSAGES, "unknown_character", self.lang, id=answer.character) if answer is not None
                      else tr(MESSAGES, "bad_answer", self.lang, answer=raw))
            self._say("confirm", "started", 0.0, detail)
            return None  # asked again
        if answer.action == "confirm":
            set_state(paths, OrchestratorState.VOL_PLANNING)
            progress.done.append("confirm")
            remove_progress(paths)
            self._say("confirm", "done")
            return None
        if answer.action == "restart":
            backup = clear_for_restart(paths, progress)
            rel = backup.relative_to(self.root).as_posix()
            self._say("confirm", "done", detail="restart")
            return self._finish("restarted", tr(MESSAGES, "restarted", self.lang, backup=rel), None, backup=rel,
                                next_action="start")
        if answer.action == "rewrite":
            progress.done = [s for s in progress.done if s not in ("trial", "extract")]
            progress.trial_note = answer.note
            progress.rewrite_pending = True
            save_progress(paths, progress)
            return None
        if answer.target == "style":
            again = "extract" if self.request.style_source == "write_then_extract" else "style"
            progress.done = [s for s in progress.done if s != again]
            progress.style_note = answer.note
            save_progress(paths, progress)
            return None
        if answer.target == "character":
            return await self._adjust_character(progress, answer.character, answer.note)
        return None  # adjust:brief: brief.md was edited by the decider side; ask again

    async def _adjust_character(self, progress: QuickStartProgress, slug: str, note: str) -> QuickStartOutcome | None:
        project = Project.open(self.root)
        ask = f"只更新角色 {slug}（{project.characters[slug].display_name}），id 不变，其余角色不要输出：{note or '按作者意见调整'}"
        bundle = character_weaver_context(project, request=ask, registry=self.registry)
        request = AgentRequests(project, self.settings, self.registry).build(bundle, "character_weaver")
        context = {**request.context, "update_id": slug, "update_name": project.characters[slug].display_name,
                   "note": note}
        request = replace(request, stage="characters", context=context)
        if (stop := self._gate("confirm", request, progress)) is not None:
            return stop
        reply = await self._structured("characters", request, character_update_reply(slug))
        files = {k: v for k, v in cast_files(self.paths, reply).items()
                 if k.startswith(f"characters/active/{slug}.") or k == "characters/changelog.md"}
        stage_step(self.paths, ADJUST_CHARACTER, files)
        apply_staged_step(self.paths, progress, ADJUST_CHARACTER)
        return None

    # ------------------------------------------------------------------ step plumbing

    def _gate(self, step: str, request: ModelRequest, progress: QuickStartProgress) -> QuickStartOutcome | None:
        """Emit the step with its estimate; stop (progress kept) when the estimate passes `max_cost_usd`."""
        estimate = estimate_plan_cost(request, self.settings, offline=self.offline)
        over = self._over(step, estimate)
        if over is not None:
            return self._finish("stopped_by_cost", over, progress, next_action="start")
        self._say(step, "started", estimate)
        return None

    def _apply(self, step: str, progress: QuickStartProgress, files: dict[str, str],
               fields: dict[str, object] | None = None) -> None:
        stage_step(self.paths, step, files, dict(fields or {}))
        apply_staged_step(self.paths, progress, step)
        self._say(step, "done")

    def _mark(self, step: str, progress: QuickStartProgress) -> None:
        if step not in progress.done:
            progress.done.append(step)
            save_progress(self.paths, progress)
        self._say(step, "done")

    def _sample_path(self, raw: str) -> Path:
        path = Path(raw).expanduser()
        return path if path.is_absolute() else self.root / path


async def run_quick_start(
    root: Path,
    settings: Settings,
    provider: Provider,
    request: QuickStartRequest,
    decide: Decider,
    emit: Callable[[Event], None],
    *,
    lock: ProjectLock | None = None,
    lang: Lang = "zh",
    offline: bool | None = None,
    registry: PromptRegistry | None = None,
    max_cost_usd: float | None = None,
    agents: Agents | None = None,
    on_retry: RetryHook | None = None,
) -> QuickStartOutcome:
    """Run (or go on with) the quick start of the project at `root` (see the module docstring).

    Raises QuickStartRefused (nothing written) for an empty brief or a project with committed chapters and no
    quick start under way; `PausedForAuthor` from `decide` propagates (progress is saved)."""
    is_offline = bool(getattr(provider, "offline", False)) if offline is None else offline
    flow = _Flow(Path(root), settings, provider, request, decide, emit, lock=lock, lang=lang, offline=is_offline,
                 registry=registry or project_registry(Path(root)), max_cost_usd=max_cost_usd, agents=agents, on_retry=on_retry)
    return await flow.run()
