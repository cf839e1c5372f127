"""The one plan session, shared by `novel-studio plan` and the studio (issue 7 items 3-4; seed 004 plan ->
validate -> apply).

    result = await run_plan_session(root, settings, provider, decide, emit,
                                    volume=None, volume_length=None, note="", max_cost=None,
                                    offline=False, lang="zh")

The caller holds the project lock (the CLI takes it; the studio holds it while open) and builds the provider
(`pipeline.providers.factory.build_provider` books every call in the spend ledger). The session:

1. finishes an apply a kill cut short (`studio.planning.staged.resume_plan_applies`) and refuses what the
   cold-start check refuses, except the planning findings it resolves itself;
2. takes up a plan already staged (an earlier session paused at the approval), with no model call, unless
   `volume_length` or `note` ask for a new one; or makes a volume planned ahead the current one once the
   current volume is written; otherwise chooses the target:
   - `volume` None (or the next unplanned volume): the next unplanned volume, `volume_length` chapters;
   - `volume` = the current volume: re-plan only the chapters after the last committed one (to the end of its
     outline, or to `volume_length` chapters counted from the volume's first chapter); the written chapters'
     outline entries stay as they are (a volume without an outline gets entries made from the chapters'
     summaries, marked as written, `studio.planning.written`);
3. emits the estimate (outline call + contract batches) and stops before a call whose estimate would take the
   session's spend past `max_cost`; plans (`pipeline.planning.plan_volume`: outline, contracts in batches,
   checks, repairs); the new characters the outline names are created by CharacterWeaver
   (`pipeline.planning.plan_characters`, its estimate emitted first) and staged with the plan; a plan that
   still has errors stages nothing;
4. stages the plan and asks `QuestionKind.PLAN_APPROVAL` through `decide` (answers: `PlanAnswer`; the
   question's `data` holds "volume", "plan" (`plan_data`), "outline_path" (the staged outline file), and, when
   they exist, "diff" (the volume's outline now -> as planned) and "overwrites" (files the author edited that
   the apply would replace, each with its diff; the question then has no recommended answer, so that no
   automatic decider approves it));
5. on `k:<n>` / `r:<note>` plans again; on `e` re-reads the staged outline (the decider side edited it),
   re-checks it, re-derives the contracts of the chapters whose entry changed (their cost emitted first) and
   asks again; errors are emitted and the question asked again, nothing applied; on `n` discards the staged
   plan; on `y` applies it in one journaled step (`studio.planning.staged.apply_staged_plan`).

Everything the author should read is emitted as `pipeline.events` events (`Notice` lines in `lang`,
`RetryWaiting` for a retried call); the result says how the session ended. A decider that cannot ask raises
`studio.errors.PausedForAuthor`, which leaves the plan staged and propagates.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pipeline.decisions import Decider, Option, PlanAnswer, Question, QuestionKind, parse_plan_answer
from pipeline.estimate import estimate_chapter_cost
from pipeline.events import Event, Notice, RetryWaiting
from pipeline.planning.plan_characters import StagedCharacter, weave_characters, weaver_request
from pipeline.planning.plan_volume import (
    NewCharacter,
    PlanRejected,
    derive_contracts,
    estimate_contracts_cost,
    estimate_plan_cost,
    estimate_volume_plan,
    final_check,
    plan_request,
    plan_volume,
)
from pipeline.planning.prompt_context import DEFAULT_VOLUME_LENGTH, PlanTarget, next_plan_target
from pipeline.providers.base import Provider, ProviderError
from pipeline.providers.retry import stage_wait_s
from studio.coldstart import PLANNING_KEYS, check_cold_start, refusals
from studio.errors import FormatError, PausedForAuthor, StudioError
from studio.fileio import read_text
from studio.i18n import Catalog, Lang, tr
from studio.models.quick_start import QuickStartRequest
from studio.models.settings import Settings
from studio.models.storylines import Storylines
from studio.models.volume_plan import VolumePlan
from studio.outline import VolumeOutline, parse_outline, render_outline
from studio.paths import ProjectPaths
from studio.planning.plan_view import MESSAGES as VIEW_MESSAGES
from studio.planning.plan_view import chapter_span, outline_diff, plan_data, plan_lines
from studio.planning.quick_start_files import write_main_arc
from studio.planning.quick_start_progress import request_path
from studio.planning.review import unreviewed_before
from studio.planning.staged import (
    StagedPlanMeta,
    activate_volume,
    apply_staged_plan,
    discard_staged_plan,
    hand_edits,
    load_staged_plan,
    resume_plan_applies,
    stage_plan,
    staged_character_files,
    staged_outline_edited,
    staged_outline_path,
    staged_plans,
)
from studio.planning.written import written_entries
from studio.project import Project

__all__ = ["MESSAGES", "PlanSessionResult", "SessionStatus", "run_plan_session"]

Emit = Callable[[Event], None]
SessionStatus = Literal["applied", "activated", "cancelled", "stopped_by_cost", "rejected", "refused", "usage"]
MAX_BAD_ANSWERS = 3

MESSAGES: Catalog = {
    "resumed": ("已完成上次被中断的第 {volume} 卷计划应用", "finished the interrupted apply of volume {volume}'s plan"),
    "refused": ("项目状态不一致，未开始规划：\n{findings}", "the project is inconsistent; nothing was planned:\n{findings}"),
    "bad_volume": (
        "只能规划下一个未规划的卷（第 {next} 卷），或重新规划当前卷（第 {current} 卷）未写的章节",
        "only the next unplanned volume (volume {next}) can be planned, or the unwritten chapters of the "
        "current volume (volume {current}) re-planned",
    ),
    "nothing_left": (
        "第 {volume} 卷写到了第 {last} 章，没有剩下可以重新规划的章节；用 --volume-length 加长本卷",
        "volume {volume} is written up to chapter {last}; no chapter is left to re-plan (lengthen it with "
        "--volume-length)",
    ),
    "estimate": (
        "规划第 {volume} 卷（第 {first}-{last} 章）：预计最多 ${cost:.2f}（{model}；大纲 1 次调用 + 章节契约 {batches} 批）",
        "planning volume {volume} (chapters {first}-{last}): at most ${cost:.2f} estimated ({model}; one outline "
        "call + {batches} contract batch(es))",
    ),
    "replan": (
        "重新规划第 {volume} 卷第 {first} 章之后的章节；已写的第 {fixed} 章保持不变",
        "re-planning volume {volume} from chapter {first}; the written chapters {fixed} stay as they are",
    ),
    "from_summaries": (
        "本卷还没有大纲：已写的第 {fixed} 章按摘要生成大纲条目（标为已写）",
        "the volume has no outline yet: entries for the written chapters {fixed} are made from their summaries "
        "(marked as written)",
    ),
    "calling_outline": (
        "正在规划第 {first}-{last} 章的大纲、故事线调度和伏笔……",
        "planning the outline, schedule and threads of chapters {first}-{last}...",
    ),
    "calling_contracts": ("正在派生第 {first}-{last} 章的章节契约……", "deriving the contracts of chapters {first}-{last}..."),
    "weave": (
        "本卷需要新角色 {names}：由模型创建角色卡，预计最多 ${cost:.2f}",
        "the volume needs new characters {names}: the model creates their cards, at most ${cost:.2f} estimated",
    ),
    "over_cost": (
        "预计费用 ${cost:.2f} 超过上限 ${limit:.2f}，未调用模型",
        "the estimate ${cost:.2f} passes the limit ${limit:.2f}; no model was called",
    ),
    "rejected": ("计划未通过检查：{message}", "the plan failed the checks: {message}"),
    "model_error": ("调用模型出错（未暂存任何内容）：{message}", "the model call failed (nothing staged): {message}"),
    "question": ("批准第 {volume} 卷的计划吗？", "Approve the plan of volume {volume}?"),
    "o_y": ("批准并应用", "approve and apply"),
    "o_k": ("修改章数后重新规划", "change the chapter count and re-plan"),
    "o_r": ("附上修改意见重新规划", "re-plan with a note"),
    "o_e": ("在编辑器中修改暂存的大纲", "edit the staged outline in the editor"),
    "o_n": ("取消（丢弃这份计划）", "cancel (discard the plan)"),
    "bad_answer": ("无法理解的回答：{answer}", "not an answer to the plan question: {answer}"),
    "edit_errors": (
        "修改后的大纲有错误，未应用任何内容；请再次修改或选择其他操作：\n{errors}",
        "the edited outline has errors; nothing was applied. Edit it again or choose another answer:\n{errors}",
    ),
    "edit_unchanged": ("大纲没有变化", "the outline did not change"),
    "edit_changed": (
        "大纲改动了第 {chapters} 章：重新派生这些章的章节契约，预计最多 ${cost:.2f}",
        "the outline changed chapters {chapters}: their contracts are derived again, at most ${cost:.2f} estimated",
    ),
    "edit_range": (
        "修改后的大纲必须从第 {first} 章开始（已写的章节不能改动）",
        "the edited outline must start at chapter {first} (written chapters cannot change)",
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
        "第 {volume} 卷已提前规划（第 {first}-{last} 章），现在转入该卷；novel-studio continue 写第 {first} 章",
        "volume {volume} was planned ahead (chapters {first}-{last}) and is now the current one; "
        "novel-studio continue writes chapter {first}",
    ),
    "cancelled": ("已取消，计划已丢弃", "cancelled; the plan was discarded"),
    "unreviewed_question": (
        "第 {volume} 卷还没有做卷末回顾。仍要规划第 {next} 卷吗？",
        "volume {volume} has not been reviewed. Plan volume {next} anyway?",
    ),
    "unreviewed_fact": (
        "卷末回顾总结本卷、提出下一卷的建议并清理临时状态：novel-studio review（工作室里在卷末选「回顾」）",
        "the volume review sums up the volume, suggests what comes next and clears temporary state: "
        "novel-studio review (in the studio: \"review\" at the volume end)",
    ),
    "o_unreviewed_y": ("仍然规划第 {next} 卷", "plan volume {next} anyway"),
    "o_unreviewed_n": ("先回顾（停止）", "review first (stop)"),
    "unreviewed_stop": (
        "未规划：先运行 novel-studio review 回顾第 {volume} 卷，再规划第 {next} 卷",
        "nothing planned: run novel-studio review for volume {volume} first, then plan volume {next}",
    ),
    "spent": ("规划花费 ${cost:.4f}（{calls} 次调用）", "planning cost ${cost:.4f} ({calls} calls)"),
}


@dataclass
class PlanSessionResult:
    """How a plan session ended. `status`: applied (the plan is in `volumes/`), activated (a volume planned
    ahead became the current one, no call), cancelled, stopped_by_cost (nothing called), rejected (the plan
    still had errors, or the model failed: nothing staged), refused (the project is inconsistent), usage (a
    volume that cannot be planned here)."""

    status: SessionStatus
    volume: int | None = None
    first_chapter: int | None = None
    last_chapter: int | None = None
    activated: bool = False
    backup: Path | None = None
    cost_usd: float = 0.0
    calls: int = 0
    estimate_usd: float | None = None
    errors: list[str] = field(default_factory=list)
    message: str = ""

    @property
    def ok(self) -> bool:
        return self.status in ("applied", "activated", "cancelled", "stopped_by_cost")


# ------------------------------------------------------------------------------------------ session


class _Session:
    def __init__(self, root: Path, settings: Settings, provider: Provider, decide: Decider, emit: Emit, *,
                 max_cost: float | None, offline: bool, lang: Lang) -> None:
        self.root = root
        self.paths = ProjectPaths(root)
        self.settings = settings
        self.provider = provider
        self.decide = decide
        self.emit_event = emit
        self.max_cost = max_cost
        self.offline = offline
        self.lang = lang
        self.spent = 0.0
        self.calls = 0
        self.estimate: float | None = None

    def say(self, key: str, level: str = "info", **params: object) -> None:
        self.emit_event(Notice(None, tr(MESSAGES, key, self.lang, **params), level))

    def result(self, status: SessionStatus, **fields: Any) -> PlanSessionResult:
        return PlanSessionResult(status, cost_usd=round(self.spent, 6), calls=self.calls,
                                 estimate_usd=self.estimate, **fields)

    def _on_call(self, stage: str, chapters: list[int]) -> None:
        key = "calling_outline" if stage == "plan" else "calling_contracts"
        self.say(key, first=chapters[0], last=chapters[-1])

    def _on_retry(self, stage: str, attempt: int, error: ProviderError) -> None:
        wait = stage_wait_s(error, self.settings.provider.stage_retry_wait_s)
        self.emit_event(RetryWaiting(None, stage, attempt, wait, type(error).__name__, str(error)))

    # ------------------------------------------------------------------ planning

    async def plan(self, target: PlanTarget, note: str, fixed: VolumeOutline | None) -> PlanSessionResult | None:
        """Plan and stage `target`; a result when it stopped, None when a plan is staged."""
        project = Project.open(self.root)
        fixed_text = render_outline(fixed) if fixed is not None and fixed.chapters else ""
        request = plan_request(project, self.settings, target, note=note, fixed_outline=fixed_text)
        estimate = estimate_volume_plan(request, self.settings, target.last - target.first + 1, offline=self.offline)
        self.estimate = estimate.total_usd
        self.say("estimate", volume=target.volume, first=target.first, last=target.last, cost=estimate.total_usd,
                 model=estimate.model, batches=estimate.batches)
        if self.max_cost is not None and self.spent + estimate.total_usd > self.max_cost:
            self.say("over_cost", cost=estimate.total_usd, limit=self.max_cost)
            return self.result("stopped_by_cost", volume=target.volume)
        try:
            outcome = await plan_volume(project, self.settings, self.provider, target, note=note,
                                        fixed_outline=fixed_text, on_retry=self._on_retry, on_call=self._on_call)
        except (PlanRejected, ProviderError) as exc:
            return self._call_failed(exc, target.volume)
        self._book(outcome.calls)
        characters: list[StagedCharacter] = []
        if outcome.new_characters:
            request = weaver_request(project, self.settings, outcome.new_characters)
            cost = estimate_plan_cost(request, self.settings, offline=self.offline)
            self.say("weave", names="、".join(c.display_name for c in outcome.new_characters), cost=cost)
            if self.max_cost is not None and self.spent + cost > self.max_cost:
                self.say("over_cost", cost=cost, limit=self.max_cost)
                return self.result("stopped_by_cost", volume=target.volume)
            try:
                characters, calls = await weave_characters(project, self.settings, self.provider,
                                                           outcome.new_characters, on_retry=self._on_retry)
            except (PlanRejected, ProviderError) as exc:
                return self._call_failed(exc, target.volume)
            self._book(calls)
        self._stage(outcome.plan, outcome.report.warnings, note, fixed, outcome.new_characters,
                    [(c.id, c.data, c.profile_md) for c in characters])
        return None

    def _book(self, calls: list[Any]) -> None:
        self.spent += sum(c.cost_usd or 0.0 for c in calls)
        self.calls += len(calls)

    def _call_failed(self, exc: PlanRejected | ProviderError, volume: int) -> PlanSessionResult:
        """A planning call (the plan, its new characters) that failed: said, its paid calls booked, the result."""
        if isinstance(exc, PlanRejected):
            self._book(exc.calls)
            self.say("rejected", "error", message=str(exc))
            return self.result("rejected", volume=volume, errors=exc.errors, message=str(exc))
        self.say("model_error", "error", message=str(exc))
        return self.result("rejected", volume=volume, errors=[str(exc)], message=str(exc))

    def _stage(self, plan: VolumePlan, warnings: list[Any], note: str, fixed: VolumeOutline | None,
               new_characters: list[NewCharacter],
               character_files: list[tuple[str, dict[str, object], str]]) -> StagedPlanMeta:
        per = estimate_chapter_cost(self.paths, self.settings, offline=self.offline).per_chapter_usd
        count = plan.last_chapter - plan.first_chapter + 1
        try:  # the warnings name storylines as the author does (a project without the file yet: by id)
            names = Storylines.load_or_default(self.paths.storylines).names()
        except (OSError, StudioError):
            names = {}
        return stage_plan(
            self.paths,
            plan,
            fixed=fixed,
            warnings=[f.line("zh", names) for f in warnings],
            warnings_en=[f.line("en", names) for f in warnings],
            note=note,
            estimated_cost_usd=round(per * count, 4),
            new_characters=[c.model_dump() for c in new_characters],
            character_files=character_files,
        )

    # ------------------------------------------------------------------ approval

    def question(self, plan: VolumePlan, meta: StagedPlanMeta) -> Question:
        project = Project.open(self.root)
        names = {slug: c.display_name for slug, c in project.characters.items()}
        facts = plan_lines(plan, meta, self.lang, names, storylines=project.storylines.names())
        data: dict[str, object] = {
            "volume": plan.volume,
            "plan": plan_data(plan, meta),
            "outline_path": str(staged_outline_path(self.paths, plan.volume)),
        }
        current = self.paths.outline(plan.volume)
        if current.is_file():
            diff = outline_diff(read_text(current), meta.staged_outline or render_outline(plan.outline), "outline.md")
            if diff:
                data["diff"] = diff
                facts += ["", tr(VIEW_MESSAGES, "diff", self.lang), *diff.splitlines()]
        edits = hand_edits(self.paths, plan.volume)
        if edits:
            data["overwrites"] = [{"path": rel, "diff": diff} for rel, diff in edits]
            facts += ["", tr(VIEW_MESSAGES, "overwrites", self.lang)]
            for rel, diff in edits:  # the outline's diff is shown above already
                same = rel.endswith("/outline.md") and "diff" in data
                facts += [f"  {rel}", *([] if same else diff.splitlines())]
        options = [Option(k, tr(MESSAGES, f"o_{k}", "zh"), tr(MESSAGES, f"o_{k}", "en")) for k in "ykren"]
        return Question(
            QuestionKind.PLAN_APPROVAL,
            plan.first_chapter,
            tr(MESSAGES, "question", "zh", volume=plan.volume),
            tr(MESSAGES, "question", "en", volume=plan.volume),
            facts=facts,
            options=options,
            recommended="" if edits else "y",
            data=data,
        )

    async def approve_loop(self, volume: int) -> PlanSessionResult:
        bad = 0
        while True:
            plan, meta = load_staged_plan(self.paths, volume, as_checked=True)  # what the checks passed
            raw = await self.decide(self.question(plan, meta))
            try:
                answer = parse_plan_answer(raw)
            except ValueError:
                bad += 1
                self.say("bad_answer", "warning", answer=raw)
                if bad >= MAX_BAD_ANSWERS:
                    raise PausedForAuthor(tr(MESSAGES, "bad_answer", self.lang, answer=raw)) from None
                continue
            stopped = await self._answer(answer, plan, meta)
            if stopped is not None:
                return stopped

    async def _answer(self, answer: PlanAnswer, plan: VolumePlan, meta: StagedPlanMeta) -> PlanSessionResult | None:
        volume = plan.volume
        fixed = _fixed_part(plan)
        if answer.action == "y":
            if not staged_outline_edited(self.paths, volume):
                return self._apply(volume)
            # edited since it was checked: check it first, and show the result before anything is applied
            await self._edited(plan, meta, fixed)
            return None
        if answer.action == "n":
            discard_staged_plan(self.paths, volume)
            self.say("cancelled")
            return self.result("cancelled", volume=volume)
        if answer.action == "k":
            count = answer.count or 1
            if fixed is not None and fixed.chapters:  # the count is the volume's, written chapters included
                last = fixed.chapters[0].number + count - 1
                if last < plan.first_chapter:
                    self.say("nothing_left", "error", volume=volume, last=plan.first_chapter - 1)
                    return None
            else:
                last = plan.first_chapter + count - 1
            return await self.plan(PlanTarget(volume, plan.first_chapter, last), meta.note, fixed)
        if answer.action == "r":
            return await self.plan(PlanTarget(volume, plan.first_chapter, plan.last_chapter), answer.note, fixed)
        await self._edited(plan, meta, fixed)
        return None

    async def _edited(self, staged: VolumePlan, meta: StagedPlanMeta, fixed: VolumeOutline | None) -> None:
        """The author edited the staged outline: re-check it, re-derive the changed chapters' contracts."""
        path = staged_outline_path(self.paths, staged.volume)
        before = parse_outline(meta.staged_outline, path) if meta.staged_outline else staged.outline
        try:
            edited = parse_outline(read_text(path), path)
        except FormatError as exc:
            self.say("edit_errors", "error", errors="\n".join(f"- {p}" for p in exc.problems))
            return
        numbers = edited.numbers()
        fixed_numbers = [ch.number for ch in (fixed.chapters if fixed is not None else [])]
        planned = [n for n in numbers if n not in fixed_numbers]
        if not planned or planned[0] != meta.first_chapter or any(edited.get(n) != before.get(n) for n in fixed_numbers):
            self.say("edit_errors", "error", errors="- " + tr(MESSAGES, "edit_range", self.lang, first=meta.first_chapter))
            return
        changed = [n for n in planned if edited.get(n) != before.get(n)]
        removed = [n for n in before.numbers() if n not in numbers]
        if not changed and not removed and (edited.title, edited.synopsis) == (before.title, before.synopsis):
            self.say("edit_unchanged")
            return
        project = Project.open(self.root)
        plan = staged.model_copy(update={
            "outline": edited.model_copy(update={"chapters": [c for c in edited.chapters if c.number in planned]}),
            "first_chapter": planned[0],
            "last_chapter": planned[-1],
            "contracts": [c for c in staged.contracts if c.chapter in planned],
            "foreshadowing": [t for t in staged.foreshadowing
                              if t.planted_chapter is None or t.planted_chapter >= meta.first_chapter],
        })
        new_characters = [NewCharacter.model_validate(c) for c in meta.new_characters]
        cost = estimate_contracts_cost(project, self.settings, plan, changed, offline=self.offline)
        if changed:
            self.say("edit_changed", chapters="、".join(map(str, changed)), cost=cost)
        if self.max_cost is not None and self.spent + cost > self.max_cost:
            self.say("over_cost", cost=cost, limit=self.max_cost)
            return
        try:
            derived, calls = await derive_contracts(project, self.settings, self.provider, plan, changed,
                                                    new_characters=new_characters, on_retry=self._on_retry,
                                                    on_call=self._on_call)
        except PlanRejected as exc:
            self._book(exc.calls)
            self.say("edit_errors", "error", errors=str(exc))
            return
        except ProviderError as exc:
            self.say("model_error", "error", message=str(exc))
            return
        self._book(calls)
        checked, report = final_check(project, derived, new_characters)
        if not report.ok:
            self.say("edit_errors", "error", errors="\n".join(f"- {e}" for e in report.error_lines(self.lang)))
            return
        self._stage(checked, report.warnings, meta.note, fixed, new_characters,
                    staged_character_files(self.paths, staged.volume))

    def _apply(self, volume: int) -> PlanSessionResult:
        outcome = apply_staged_plan(self.paths, volume, lang=self.lang)
        backup = outcome.backup.relative_to(self.root)
        self.say("applied", volume=volume, first=outcome.first_chapter, last=outcome.last_chapter, backup=backup)
        self.say("next" if outcome.activated else "ahead", first=outcome.first_chapter)
        if self.calls:
            self.say("spent", cost=self.spent, calls=self.calls)
        return self.result("applied", volume=volume, first_chapter=outcome.first_chapter,
                           last_chapter=outcome.last_chapter, activated=outcome.activated, backup=outcome.backup)


def _fixed_part(plan: VolumePlan) -> VolumeOutline | None:
    """The outline entries of a staged plan that stay as they are (chapters before its first one)."""
    fixed = [ch for ch in plan.outline.chapters if ch.number < plan.first_chapter]
    return plan.outline.model_copy(update={"chapters": fixed}) if fixed else None


def _planned_ahead(project: Project, volume: int | None) -> tuple[int, int, int] | None:
    """(volume, first, last) of the next volume when it was planned ahead and the current one is written."""
    current = project.outline.chapter_range if project.outline is not None else None
    nxt = project.current_volume + 1
    path = project.paths.outline(nxt)
    if current is None or project.last_completed_chapter < current[1] or not path.is_file():
        return None
    if volume not in (None, nxt):
        return None
    ahead = parse_outline(read_text(path), path).chapter_range
    if ahead is None or ahead[0] != project.last_completed_chapter + 1:
        return None
    return nxt, ahead[0], ahead[1]


def _target(
    project: Project, volume: int | None, length: int | None, lang: Lang
) -> tuple[PlanTarget, VolumeOutline | None, str] | str:
    """The target, the written entries that stay (or None), and the notice key that explains them; or the
    message of a volume that cannot be planned."""
    nxt = next_plan_target(project, length or DEFAULT_VOLUME_LENGTH)
    last_done = project.last_completed_chapter
    current = project.current_volume
    outline = project.outline
    if volume is None or (volume == nxt.volume and not (volume == current and outline is not None)):
        if nxt.volume == current and outline is None and last_done > 0:  # chapters but no outline
            entries = written_entries(project)
            if entries.chapters:  # the length counts the volume's written chapters too
                last = entries.chapters[0].number + (length or DEFAULT_VOLUME_LENGTH) - 1
                if last <= last_done:
                    return tr(MESSAGES, "nothing_left", lang, volume=current, last=last_done)
                return PlanTarget(current, nxt.first, last), entries, "from_summaries"
        return nxt, None, ""
    if volume != current or outline is None or outline.chapter_range is None:
        return tr(MESSAGES, "bad_volume", lang, next=nxt.volume, current=current)
    first_of_volume, last_of_outline = outline.chapter_range
    last = first_of_volume + length - 1 if length else last_of_outline
    if last <= last_done:
        return tr(MESSAGES, "nothing_left", lang, volume=volume, last=last_done)
    fixed = outline.model_copy(update={"chapters": [ch for ch in outline.chapters if ch.number <= last_done]})
    return PlanTarget(volume, last_done + 1, last), fixed, "replan"


def _after_trial_chapters(project: Project) -> int | None:
    """Volume 1's length chosen at the quick start, while volume 1's outline holds only the written trial
    chapters (the quick start was confirmed and volume 1 is not planned yet); None otherwise."""
    outline = project.outline
    if project.current_volume != 1 or outline is None or outline.chapter_range is None:
        return None
    first, last = outline.chapter_range
    if first != 1 or last != project.last_completed_chapter:
        return None
    path = request_path(project.paths)
    if not path.is_file():
        return None
    try:
        request = QuickStartRequest.load(path)
    except (FormatError, OSError):
        return None
    return request.volume_length if request.volume_length > last else None


def unreviewed_question(volume: int, next_volume: int, lang: Lang) -> Question:
    """`QuestionKind.PLAN_UNREVIEWED`: volume `volume` is finished and not reviewed (`unreviewed_before`);
    "y" plans `next_volume` anyway (what `--yes` answers), "n" stops and says to review first."""
    params = {"volume": volume, "next": next_volume}
    return Question(
        QuestionKind.PLAN_UNREVIEWED,
        None,
        tr(MESSAGES, "unreviewed_question", "zh", **params),
        tr(MESSAGES, "unreviewed_question", "en", **params),
        facts=[tr(MESSAGES, "unreviewed_fact", lang)],
        options=[Option(k, tr(MESSAGES, f"o_unreviewed_{k}", "zh", **params),
                        tr(MESSAGES, f"o_unreviewed_{k}", "en", **params)) for k in "yn"],
        recommended="y",
        data={"volume": next_volume, "unreviewed": volume},
    )


async def run_plan_session(
    root: Path,
    settings: Settings,
    provider: Provider,
    decide: Decider,
    emit: Emit | None = None,
    *,
    volume: int | None = None,
    volume_length: int | None = None,
    note: str = "",
    max_cost: float | None = None,
    offline: bool = False,
    lang: Lang = "zh",
) -> PlanSessionResult:
    """Plan, ask, apply (see the module docstring). Call it under the project lock. Raises PausedForAuthor
    (from the decider) and StudioError (a staged file that does not parse, an apply refused)."""
    session = _Session(root, settings, provider, decide, emit or (lambda _event: None), max_cost=max_cost,
                       offline=offline, lang=lang)
    paths = session.paths
    for outcome in resume_plan_applies(paths):
        session.say("resumed", volume=outcome.volume)
    refused = [f for f in refusals(check_cold_start(paths)) if f.key not in PLANNING_KEYS]
    if refused:
        findings = "\n".join(f"- {f.describe(lang)}" for f in refused)
        session.say("refused", "error", findings=findings)
        return session.result("refused", errors=[f.key for f in refused],
                              message=tr(MESSAGES, "refused", lang, findings=findings))
    length = volume_length if volume_length and volume_length > 0 else None
    staged = staged_plans(paths)
    keep = [v for v in staged if volume in (None, v) and not length and not note.strip()]
    for v in staged:
        if v not in keep:
            discard_staged_plan(paths, v)  # a new plan was asked for
    if keep:
        return await session.approve_loop(keep[0])
    project = Project.open(root)
    if not project.storylines.storylines:  # a fresh project: the plan's line must exist in storylines.json
        write_main_arc(paths)
        project = Project.open(root)
    if length is None and volume in (None, 1) and not note.strip():
        trial_length = _after_trial_chapters(project)
        if trial_length is not None:  # the quick start's trial chapters are the whole outline: plan the rest
            volume, length = 1, trial_length
    if not length and not note.strip():
        ready = _planned_ahead(project, volume)
        if ready is not None:
            activate_volume(paths, ready[0])
            session.say("activated", volume=ready[0], first=ready[1], last=ready[2])
            return session.result("activated", volume=ready[0], first_chapter=ready[1], last_chapter=ready[2],
                                  activated=True)
    target = _target(project, volume, length, lang)
    if isinstance(target, str):
        session.emit_event(Notice(None, target, "error"))
        return session.result("usage", errors=[target], message=target)
    plan_target, fixed, key = target
    unreviewed = unreviewed_before(project, plan_target.volume)
    if unreviewed is not None and await session.decide(unreviewed_question(unreviewed, plan_target.volume, lang)) != "y":
        session.say("unreviewed_stop", volume=unreviewed, next=plan_target.volume)
        return session.result("cancelled", volume=plan_target.volume)
    if key and fixed is not None:
        session.say(key, volume=plan_target.volume, first=plan_target.first,
                    fixed=chapter_span([ch.number for ch in fixed.chapters]))
    stopped = await session.plan(plan_target, note, fixed)
    if stopped is not None:
        return stopped
    return await session.approve_loop(plan_target.volume)

