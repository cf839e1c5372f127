"""The chapter orchestrator (issue 3 section 4): draft -> Summarizer + StyleRefiner side by side -> judge ->
gate -> commit, crash-safe and resumable. Imports nothing from Textual: the TUI and the CLI drive it through
an `Agents` implementation, an async `Decider` for every question and an `emit` callback for typed events.

How a chapter advances: every step writes its artifact to `staging/` (see `pipeline.staging`), then the
checkpoint (`pipeline_stage`, `inflight_chapter`, `revision_count`, `revision_kind`). The next step is not
remembered in memory: after every step the orchestrator asks `studio.recovery.decide_recovery` what comes
next, from the checkpoint and the staging files, so a fresh run and a run resumed after a crash take the
very same path. The mapping:

| recovery           | step                                                                       |
|--------------------|----------------------------------------------------------------------------|
| NONE               | start the next chapter (volume end and `--max-cost` checked first)         |
| RESTART_CHAPTER    | draft (stream into `.partial`; renamed to the staged draft when complete)  |
| RESUME_SUMMARIZER  | run the missing ones of Summarizer / StyleRefiner side by side             |
| RESUME_REFINER     | run the StyleRefiner only                                                  |
| RESUME_JUDGE       | judge the refined text                                                     |
| COMMIT             | re-derive the gate from the staged evaluation and act on it (see below)   |
| RESUME_WRITER      | `revision_kind` polish: the polish pass; revision / rewrite: the writer    |
| ASK_AUTHOR         | ask the stored pending question again; never commit past it                |

A commit journal in staging (see `pipeline.commit`) overrides all of this: a started commit is finished.

Gate (seed 002 via `pipeline.gate.decide_gate`): PASS and FORCE_PASS commit (FORCE_PASS marks the evaluation
`force_passed`); POLISH runs a polish refine pass once (checkpoint `revising`/`polish`) and then commits
without a new judgement; REVISE / REWRITE store the revision input, set `revising` with its kind *before*
calling the writer, and the revised text goes through summary, refine and judge again; the pauses store a
`PendingAction` and ask the decider (auto_revise / edit_by_hand / accept). An evaluation marked
`force_passed` in staging (the author accepted it) commits on any later run.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pipeline.agents.protocol import Agents, CallRecord, RevisionInput
from pipeline.brief import QualityBrief, build_brief, is_brief_chapter
from pipeline.commit import StepHook, clean_leftovers, prepare_commit, resume_commits, run_commit
from pipeline.decisions import Decider, Option, Question, QuestionKind
from pipeline.estimate import estimate_chapter_cost
from pipeline.events import (
    ChapterCommitted,
    ChecksRan,
    Event,
    GateDecided,
    Notice,
    Paused,
    StageError,
    StageFinished,
    StageStarted,
    TextDelta,
)
from pipeline.gate import GateAction, GateDecision, gate_evaluation, soft_rule_ids
from pipeline.off_loop import off_loop
from pipeline.providers.base import Usage
from pipeline.staging import ChapterStaging, refine_record
from studio.checks.judge_evidence import leak_violations, with_violations
from studio.coldstart import ensure_can_start
from studio.errors import FormatError, PausedForAuthor, StudioError
from studio.fileio import atomic_write_text, read_text
from studio.i18n import Catalog, Lang, tr
from studio.i18n_names import error_text, gate_reason, question_kind_name, stage_name
from studio.lock import ProjectLock, StaleLockError
from studio.models.checkpoint import (
    Checkpoint,
    OrchestratorState,
    PendingAction,
    PipelineStage,
    RevisionKind,
    now_iso,
    save_checkpoint,
)
from studio.models.evaluation import ContractCheck, Evaluation
from studio.models.findings import ChecksReport, Finding
from studio.models.pipeline_log import PipelineLog
from studio.models.schedule import StorylineSchedule
from studio.models.settings import Settings
from studio.models.storyline_spec import StorylineSpec
from studio.models.world_rules import WorldRules
from studio.outline import VolumeOutline, parse_outline
from studio.paths import ProjectPaths
from studio.planning.staged import resume_plan_applies
from studio.recovery import REFINE, SUMMARY, RecoveryKind, decide_recovery
from studio.spend_ledger import ledger_length, spend_totals
from studio.state_engine import load_state, reconcile
from studio.tools.txn import resume_tool_changes
from studio.wordcount import word_count

MESSAGES: Catalog = {
    "q_gate_low": ("第 {chapter} 章评分 {overall:.2f}，低于 3.0：怎么处理？", "Chapter {chapter} scored {overall:.2f} (below 3.0): what now?"),
    "q_gate_exhausted": (
        "第 {chapter} 章已修订 {revisions} 次仍只有 {overall:.2f} 分：怎么处理？",
        "Chapter {chapter} still scores {overall:.2f} after {revisions} revisions: what now?",
    ),
    "q_gate_hard": (
        "第 {chapter} 章修订后仍违反硬性规则：怎么处理？",
        "Chapter {chapter} still breaks a hard rule after the revisions: what now?",
    ),
    "o_auto_revise": ("自动修订", "revise automatically"),
    "o_edit_by_hand": ("我来手动修改（暂停）", "I'll edit it by hand (pause)"),
    "o_accept": ("接受并提交", "accept and commit"),
    "o_accept_hard": ("仍然接受（违反硬性规则）", "accept anyway (breaks a hard rule)"),
    "q_interrupted": ("第 {chapter} 章上次被中断：继续还是丢弃暂存内容？", "Chapter {chapter} was interrupted: resume or discard the staged work?"),
    "o_resume": ("继续", "resume"),
    "o_discard": ("丢弃暂存内容，重新写", "discard the staged work and start over"),
    "q_stale": ("项目锁的持有进程已不在：接管吗？", "The project lock's holder is gone: take it over?"),
    "o_take_over": ("接管", "take over"),
    "o_cancel": ("取消", "cancel"),
    "q_brief": ("已完成第 {last} 章：质量简报", "Chapter {last} done: quality brief"),
    "o_continue": ("继续写", "continue"),
    "o_review": ("先回顾（停止）", "review first (stop)"),
    "o_adjust": ("调整设定或大纲（停止）", "adjust settings or outline (stop)"),
    "volume_end": (
        "第 {volume} 卷写完了，停在卷末回顾；运行 novel-studio review 做卷末回顾，再运行 novel-studio plan 规划下一卷",
        "stopped at the end of volume {volume}; run novel-studio review for the volume review, then novel-studio plan "
        "to plan the next one",
    ),
    "volume_done": (
        "第 {volume} 卷已写完（第 {last} 章）；请先做卷末回顾，再运行 novel-studio plan 规划下一卷",
        "volume {volume} is finished (chapter {last}); review it and run novel-studio plan for the next volume first",
    ),
    "max_cost": (
        "预计下一章约 ${estimate:.2f}，将超过上限 ${limit:.2f}（已用 ${spent:.2f}），停止",
        "the next chapter (about ${estimate:.2f}) would pass the limit of ${limit:.2f} (spent ${spent:.2f}); stopping",
    ),
    "max_cost_partial": (
        "花费账本中本次运行写入的 {n} 行读不出（logs/spend.jsonl 第 {lines} 行）：--max-cost 只按读得出的行计算"
        "已用花费（${spent:.2f}），实际花费可能更多",
        "spend ledger lines written during this run cannot be read ({n}: logs/spend.jsonl line {lines}): "
        "--max-cost counts only the readable lines as spent (${spent:.2f}); the real spend may be higher",
    ),
    "brief_stop": ("按作者选择在质量简报处停止", "stopped at the quality brief, as the author chose"),
    "paused_gate": ("第 {chapter} 章等待作者决定（{kind}）", "chapter {chapter} waits for the author ({kind})"),
    "paused_question": ("等待作者回答：{question}", "waiting for the author: {question}"),
    "error_retry": (
        "第 {chapter} 章的{stage}阶段失败：{message}。进度已保存，可稍后继续",
        "chapter {chapter}, stage {stage} failed: {message}. Progress is saved; continue later",
    ),
    "error_file": (
        "第 {chapter} 章的{stage}阶段失败：{message}。这一章的进度已保存；用文本编辑器修正这个文件（或从备份恢复）后再运行 "
        "continue，可运行 novel-studio repair 检查",
        "chapter {chapter}, stage {stage} failed: {message}. The chapter's progress is saved; fix this file in a text "
        "editor (or restore it from a backup), then run continue again; novel-studio repair checks the project",
    ),
    "files_broken": (
        "第 {chapter} 章要读的项目文件无法使用，这一章没有开始（没有调用模型）：\n{problems}\n"
        "办法：用文本编辑器修正它（或从备份恢复），然后运行 novel-studio repair 检查",
        "files chapter {chapter} reads cannot be used; the chapter was not started (no model was called):\n"
        "{problems}\nway out: fix them in a text editor (or restore them from a backup), then run novel-studio "
        "repair to check",
    ),
    "discarded": ("已丢弃第 {chapter} 章的暂存内容", "discarded the staged work of chapter {chapter}"),
    "checks_failed": (
        "第 {chapter} 章提交后的检查未能运行（章节已提交）；可稍后运行 novel-studio check",
        "the checks after chapter {chapter}'s commit could not run (the chapter is committed); run novel-studio check later",
    ),
    "paused_checks": (
        "第 {chapter} 章的检查发现 {count} 条严重的连续性或串线问题，已暂停；见 logs/chapter-{chapter:03d}/checks.json",
        "the checks of chapter {chapter} found {count} serious continuity or storyline-leak problems: paused; see "
        "logs/chapter-{chapter:03d}/checks.json",
    ),
    "resumed_commit": ("完成了上次中断的第 {chapter} 章提交", "finished the interrupted commit of chapter {chapter}"),
    "ops_skipped": ("第 {chapter} 章的状态变更格式错误，已跳过", "chapter {chapter}: malformed state ops skipped"),
    "cancelled": ("已停止；第 {chapter} 章可继续", "stopped; chapter {chapter} can be resumed"),
}


@dataclass
class ChapterReport:
    """One committed chapter, for the CLI line `Ch 50: 2890字 3.2→修订→3.6 ✅`."""

    chapter: int
    word_count: int
    scores: list[float] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    revisions: int = 0
    force_passed: bool = False
    cost_usd: float | None = None
    findings: int | None = None  # the checks after the commit (None: they did not run)


@dataclass
class RunResult:
    committed: list[int] = field(default_factory=list)
    reports: list[ChapterReport] = field(default_factory=list)
    paused: bool = False
    pause_kind: str | None = None
    paused_chapter: int | None = None
    stopped_at_volume_end: bool = False
    volume: int | None = None
    stopped_by_cost: bool = False
    stopped_by_author: bool = False
    lock_cancelled: bool = False
    error: str | None = None
    brief: QualityBrief | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float = 0.0
    messages: list[str] = field(default_factory=list)

    @property
    def chapters_committed(self) -> int:
        return len(self.committed)

    @property
    def exit_code(self) -> int:
        if self.error is not None:
            return 1
        if self.lock_cancelled:
            return 4
        if self.paused:
            return 3
        return 0


class _StageFailed(Exception):
    def __init__(self, chapter: int, stage: str, error: StudioError) -> None:
        super().__init__(str(error))
        self.chapter = chapter
        self.stage = stage
        self.error = error


class ChapterFilesBroken(StudioError):
    """A file the chapter's agents read cannot be used: found before the chapter's first model call."""


class _Stop(Exception):
    """End the run early (paused, author stop); the result is already filled in."""


PAUSE_ANSWERS = frozenset({"pause", "edit_by_hand", ""})


def sum_usage(calls: list[CallRecord]) -> Usage | None:
    usages = [c.usage for c in calls if c.usage is not None]
    if not usages:
        return None

    def total(name: str) -> int | None:
        values = [getattr(u, name) for u in usages if getattr(u, name) is not None]
        return sum(values) if values else None

    return Usage(
        input_tokens=total("input_tokens"),
        output_tokens=total("output_tokens"),
        cache_creation_input_tokens=total("cache_creation_input_tokens"),
        cache_read_input_tokens=total("cache_read_input_tokens"),
        estimated=any(u.estimated for u in usages),
    )


def sum_cost(calls: list[CallRecord]) -> float | None:
    costs = [c.cost_usd for c in calls if c.cost_usd is not None]
    return round(sum(costs), 6) if costs else None


def _ask_pause(exc: BaseException) -> bool:
    return isinstance(exc, PausedForAuthor)


class Orchestrator:
    def __init__(
        self,
        project_root: Path,
        agents: Agents,
        *,
        decider: Decider,
        emit: Callable[[Event], None],
        settings: Settings | None = None,
        lock: ProjectLock | None = None,
        clock: Callable[[], float] = time.monotonic,
        lang: Lang = "zh",
        offline: bool = False,
        step_hook: StepHook | None = None,
    ) -> None:
        self.paths = ProjectPaths(Path(project_root))
        self.agents = agents
        self.decider = decider
        self.emit = emit
        if settings is None:
            from studio.config import load_settings

            settings = load_settings(self.paths.root)
        self.settings = settings
        self.lock = lock
        self.clock = clock
        self.lang = lang
        self.offline = offline
        self.step_hook = step_hook
        self._cp = Checkpoint()
        self._result = RunResult()
        self._note: str | None = None
        self._note_used = False
        self._ledger_mark = 0  # ledger lines before this run (see `_take_ledger_totals`)
        self._ledger_unreadable: tuple[int, tuple[int, ...]] = (0, ())  # this run's unreadable lines, numbers
        self._partial_said = False  # `max_cost_partial` said once per run
        self._checks_pause: list[Finding] = []  # findings of the last checks that pause the run

    # ================================================================== run

    async def run(
        self, chapters: int = 1, *, note: str | None = None, max_cost_usd: float | None = None
    ) -> RunResult:
        """Write up to `chapters` chapters (a resumed chapter counts as one). Holds the lock throughout."""
        self._result = result = RunResult()
        self._note = note
        self._ledger_mark = ledger_length(self.paths.spend_ledger)
        self._partial_said = False
        owned = await self._acquire_lock()
        if not owned and self.lock is not None and not self.lock.held:
            return result
        try:
            await self._run(chapters, max_cost_usd)
        except _Stop:
            pass
        except _StageFailed as failure:
            self._stage_failed(failure)
        except asyncio.CancelledError:
            chapter = self._cp.inflight_chapter or self._cp.next_chapter
            self._notice(None, tr(MESSAGES, "cancelled", self.lang, chapter=chapter), "info")
            raise
        finally:
            if owned and self.lock is not None:
                self.lock.release()
            self._take_ledger_totals()
        return result

    async def _run(self, chapters: int, max_cost_usd: float | None) -> None:
        result = self._result
        # Cold start (seed 003 10.4): refuse a checkpoint the disk contradicts, before anything moves; then
        # repair what an interrupted write left (torn changelog tail, a merge cut short).
        ensure_can_start(self.paths, lang=self.lang)
        resume_plan_applies(self.paths)  # an approved plan cut short by a kill is finished before anything else
        resume_tool_changes(self.paths)  # so is a character/world tool change (studio.tools.txn)
        reconcile(self.paths)
        self._load()
        recorded = self._cp.last_completed_chapter
        for outcome in await off_loop(resume_commits, self.paths, hook=self.step_hook):
            self._notice(outcome.chapter, tr(MESSAGES, "resumed_commit", self.lang, chapter=outcome.chapter), "info")
            if outcome.chapter > recorded:  # only its cleanup was left: the last run already counted it
                await self._after_commit_report(outcome.chapter)
        self._load()
        clean_leftovers(self.paths, self._cp.last_completed_chapter)
        inflight = self._cp.inflight_chapter
        if inflight is not None and not ChapterStaging(self.paths, inflight).journal.is_file():
            ChapterStaging(self.paths, inflight).restore_current()  # a text `repair` set aside, from its record
        if self._cp.orchestrator_state is OrchestratorState.ERROR_RETRY:
            self._cp.orchestrator_state = OrchestratorState.WRITING
            self._save()

        first = True
        while len(result.committed) < chapters:
            self._load()
            rec = decide_recovery(self._cp, self.paths)
            if rec.kind is RecoveryKind.NONE:
                n = self._cp.next_chapter
                if self._volume_finished(n):
                    return
                if not self._cost_allows(max_cost_usd):
                    return
                await off_loop(self._check_chapter_files, n)
                self._start_chapter(n)
            else:
                n = rec.chapter
                if first and rec.kind is not RecoveryKind.ASK_AUTHOR:
                    if not await self._ask_interrupted(n, rec.describe(self.lang)):
                        continue
                if first and not self._cost_allows(max_cost_usd):
                    return
                if rec.kind is not RecoveryKind.COMMIT:  # a commit checks its own files (pipeline.commit)
                    await off_loop(self._check_chapter_files, n)
            first = False
            if self.lock is not None:
                self.lock.update_chapter(n)
            await self._chapter(n)
            self._load()
            if self._cp.last_completed_chapter < n:
                return  # paused
            result.committed.append(n)
            await self._after_commit_report(n)
            if self._checks_pause and len(result.committed) < chapters:
                self._pause(n, "checks", tr(MESSAGES, "paused_checks", self.lang, chapter=n,
                                            count=len(self._checks_pause)))
            if self._at_volume_end(n):
                return
            if is_brief_chapter(n):
                brief = build_brief(self.paths, n, skipped_ops_chapters=self._cp.skipped_ops_chapters)
                result.brief = brief
                if len(result.committed) < chapters:
                    await self._ask_brief(brief)

    # ================================================================== one chapter

    async def _chapter(self, n: int) -> None:
        st = ChapterStaging(self.paths, n)
        while True:
            if st.journal.is_file():
                await self._run_commit(n)
                return
            self._load()
            rec = decide_recovery(self._cp, self.paths)
            kind = rec.kind
            if kind is RecoveryKind.NONE:
                return
            if rec.chapter != n:
                return
            if kind is RecoveryKind.ASK_AUTHOR:
                await self._reask(n)
            elif kind is RecoveryKind.RESTART_CHAPTER:
                await self._draft(n, None)
            elif kind in (RecoveryKind.RESUME_SUMMARIZER, RecoveryKind.RESUME_REFINER):
                await self._side(n, rec.missing)
            elif kind is RecoveryKind.RESUME_JUDGE:
                await self._judge(n)
            elif kind is RecoveryKind.COMMIT:
                await self._gate(n)
            elif kind is RecoveryKind.RESUME_WRITER:
                if self._cp.revision_kind == "polish":
                    await self._polish(n)
                else:
                    await self._revise(n)

    def _check_chapter_files(self, n: int) -> None:
        """Before the chapter's first model call (and before a new chapter is marked started): open the project
        the way the agents open it (`Project.open`, which reads and validates every file they read), so a broken
        file stops the run here, named, with the way out, instead of in a stage after a paid call."""
        from studio.project import Project

        try:
            Project.open(self.paths.root, lang=self.lang)
        except FormatError as exc:
            broken = exc
        else:
            return

        def text(lang: Lang) -> str:
            lines = "\n".join(f"- {p.describe(lang)}" for p in broken.problems) or broken.text(lang)
            return tr(MESSAGES, "files_broken", lang, chapter=n, problems=lines)

        error = ChapterFilesBroken(text("en"))
        error.zh = text("zh")
        raise error

    def _start_chapter(self, n: int) -> None:
        cp = self._cp
        cp.inflight_chapter = n
        cp.pipeline_stage = PipelineStage.DRAFTING
        cp.revision_count = 0
        cp.revision_kind = None
        if cp.orchestrator_state is not OrchestratorState.QUICK_START:  # the quick start's trial chapters stay in it
            cp.orchestrator_state = OrchestratorState.WRITING
        st = ChapterStaging(self.paths, n)
        if self._note and not self._note_used:
            atomic_write_text(st.note, self._note)
            self._note_used = True
        st.record_event({"type": "start", "at": now_iso()})
        self._save()

    # ------------------------------------------------------------------ stages

    async def _call(self, n: int, stage: str, agent: str, coro: Awaitable[Any]) -> Any:
        model = self._model(agent)
        self.emit(StageStarted(n, stage, model))
        started = self.clock()
        try:
            out = await coro
        except StudioError as exc:
            raise _StageFailed(n, stage, exc) from exc
        calls: list[CallRecord] = list(getattr(out, "calls", []))
        self._account(calls)
        duration = int((self.clock() - started) * 1000)
        model = calls[-1].model if calls else model
        self.emit(StageFinished(n, stage, model, duration, sum_usage(calls), sum_cost(calls)))
        return out

    async def _draft(self, n: int, revision: RevisionInput | None) -> None:
        st = ChapterStaging(self.paths, n)
        stage = "draft" if revision is None else ("rewrite" if revision.kind == "rewrite" else "revise")
        agent = "chapter_writer" if revision is None else "revision"
        note = st.load_note()
        fh = st.open_partial()

        def on_text(delta: str) -> None:
            fh.write(delta)
            fh.flush()
            self.emit(TextDelta(n, stage, delta))

        try:
            out = await self._call(
                n, stage, agent, self.agents.write(n, note=note, revision=revision, on_text=on_text)
            )
        finally:
            fh.close()
        k = self._cp.revision_count + (1 if revision is not None else 0)
        st.record_calls(out.calls)
        st.finish_draft(k, out.text, out.hints)
        self._hook("draft" if revision is None else "revise")
        self._cp.pipeline_stage = PipelineStage.DRAFTED
        self._cp.revision_count = k
        self._cp.revision_kind = None
        self._save()

    async def _side(self, n: int, missing: tuple[str, ...]) -> None:
        st = ChapterStaging(self.paths, n)
        # A summary remade for a judged chapter (`repair` set a broken one aside) keeps its evaluation: the judge
        # reads only the text, which is unchanged, so judging it again would pay twice for the same result.
        judged = self._cp.pipeline_stage is PipelineStage.JUDGED and REFINE not in missing and st.evaluation.is_file()
        k = self._cp.revision_count
        text, hints = st.pass_source(k)
        coros: list[Awaitable[None]] = []
        if SUMMARY in missing:
            coros.append(self._summarize(n, text, hints))
        if REFINE in missing:
            coros.append(self._refine(n, text, k))
        tasks = [asyncio.ensure_future(c) for c in coros]
        try:
            await asyncio.gather(*tasks)
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        self._cp.pipeline_stage = PipelineStage.JUDGED if judged else PipelineStage.REFINED
        self._save()

    async def _summarize(self, n: int, text: str, hints: str) -> None:
        st = ChapterStaging(self.paths, n)
        out = await self._call(n, "summarize", "summarizer", self.agents.summarize(n, text, hints))
        base = out.patch.base_state_version if out.patch is not None else load_state(self.paths).state_version
        st.write_summary(
            summary=out.summary,
            patch=out.patch,
            storyline_id=out.storyline_id,
            memory=out.storyline_memory,
            meta={
                "cross_references": list(out.cross_references),
                "leak_risk": out.leak_risk,
                "warnings": list(out.warnings),
                **out.structure,  # the structure tags: read back from logs/chapter-NNN/ by studio.checks.story
            },
            base_state_version=base,
        )
        st.record_calls(out.calls)
        if out.patch is None:
            self._notice(n, tr(MESSAGES, "ops_skipped", self.lang, chapter=n))
        for warning in out.warnings:
            self._notice(n, warning)
        self._hook("summary")
        self._save()

    async def _refine(self, n: int, text: str, k: int) -> None:
        st = ChapterStaging(self.paths, n)
        out = await self._call(n, "refine", "style_refiner", self.agents.refine(n, text, polish=False))
        record = refine_record(k, st.pass_text(k).name, text, out.result, list(out.edits))
        st.write_refine(record, out.result.text)
        st.record_calls(out.calls)
        self._hook("refine")
        self._save()

    async def _judge(self, n: int) -> None:
        st = ChapterStaging(self.paths, n)
        text = st.refined_text()
        st.sync_current(text)
        out = await self._call(
            n,
            "judge",
            "quality_judge",
            self.agents.judge(n, text, key_chapter=self._is_key_chapter(n), revision=self._cp.revision_count),
        )
        evaluation: Evaluation = out.evaluation
        if evaluation.chapter != n:
            evaluation = evaluation.model_copy(update={"chapter": n})
        evaluation = with_violations(evaluation, self._leak_violations(n, text))  # LS-005 from the leak check
        evaluation.save(st.evaluation)
        st.record_calls(out.calls)
        self._hook("judge")
        self._cp.pipeline_stage = PipelineStage.JUDGED
        self._save()

    def _leak_violations(self, n: int, text: str) -> list[ContractCheck]:
        """Another storyline's character acting in the judged text: a hard LS-005 violation for the gate
        (`studio.checks.judge_evidence`); [] when the project cannot be read (the judge's word stands)."""
        from studio.project import Project

        try:
            project = Project.open(self.paths.root)
        except Exception:  # noqa: BLE001 - a broken project file: the checks wait, the run goes on
            return []
        return leak_violations(project, n, text)

    async def _polish(self, n: int) -> None:
        st = ChapterStaging(self.paths, n)
        polished = st.polished_text()
        if polished is not None:
            # Polished before a kill that beat the checkpoint: the record is the result; never pay twice.
            st.sync_current(polished)
        else:
            text = st.final_text()
            out = await self._call(n, "polish", "style_refiner", self.agents.refine(n, text, polish=True))
            record = refine_record(self._cp.revision_count, st.current.name, text, out.result, list(out.edits))
            st.write_polish(record, out.result.text)
            st.record_calls(out.calls)
            self._hook("polish")
        self._cp.pipeline_stage = PipelineStage.JUDGED
        self._cp.revision_kind = None
        self._save()

    async def _revise(self, n: int) -> None:
        st = ChapterStaging(self.paths, n)
        revision = st.load_revision_input()
        if revision is None:  # staging from elsewhere: rebuild the input from the last evaluation
            kind = "rewrite" if self._cp.revision_kind == "rewrite" else "revision"
            revision = RevisionInput(kind=kind, previous_text=st.final_text(), required_fixes=[])
        st.archive_pass(self._cp.revision_count)
        await self._draft(n, revision)

    # ------------------------------------------------------------------ gate

    def _soft_ids(self) -> frozenset[str]:
        try:
            rules = WorldRules.load_or_default(self.paths.world_rules)
        except StudioError:
            rules = WorldRules()
        return soft_rule_ids(rules, self._storyline_spec())

    def _decide(self, evaluation: Evaluation) -> GateDecision:
        spec = self._storyline_spec()
        return gate_evaluation(
            evaluation,
            soft_ids=self._soft_ids(),
            hard_ls_ids={rule.id for rule in spec.hard_rules()},
            revision_count=self._cp.revision_count,
        )

    async def _gate(self, n: int) -> None:
        st = ChapterStaging(self.paths, n)
        evaluation = Evaluation.load(st.evaluation)
        if evaluation.force_passed:
            await self._commit(n, GateAction.FORCE_PASS.value, force_passed=True)
            return
        decision = self._decide(evaluation)
        self._record_gate(st, decision)
        action = decision.action
        if action is GateAction.PASS:
            await self._commit(n, action.value, force_passed=False)
        elif action is GateAction.FORCE_PASS:
            evaluation.model_copy(update={"force_passed": True}).save(st.evaluation)
            await self._commit(n, action.value, force_passed=True)
        elif action is GateAction.POLISH:
            polished = st.polished_text()
            if polished is not None:
                st.sync_current(polished)
                await self._commit(n, action.value, force_passed=False)
            else:
                self._cp.pipeline_stage = PipelineStage.REVISING
                self._cp.revision_kind = "polish"
                self._save()
        elif action in (GateAction.REVISE, GateAction.REWRITE):
            self._start_revision(n, evaluation, "rewrite" if action is GateAction.REWRITE else "revision")
        else:
            await self._pause_for_gate(n, evaluation, decision)

    def _record_gate(self, st: ChapterStaging, decision: GateDecision) -> None:
        count = self._cp.revision_count
        seen = any(
            e.get("type") == "gate" and e.get("revision_count") == count for e in st.read_calls_log()
        )
        if seen:
            return  # the same judgement re-gated after a polish pass or a resume: already reported
        st.record_gate(decision.action.value, decision.overall, count, decision.reason)
        self.emit(GateDecided(st.n, decision.action.value, decision.overall, decision.reason, count))

    def _start_revision(self, n: int, evaluation: Evaluation, kind: RevisionKind) -> None:
        st = ChapterStaging(self.paths, n)
        fixes = [f"{f.target}: {f.instruction}".strip(": ") for f in evaluation.required_fixes]
        violations = [f"{c.id}: {c.detail}".strip(": ") for c in evaluation.high_confidence_violations()]
        st.write_revision_input(
            RevisionInput(
                kind=kind,
                previous_text=st.final_text(),
                required_fixes=fixes,
                issues=list(evaluation.issues),
                violations=violations,
            )
        )
        self._cp.pipeline_stage = PipelineStage.REVISING
        self._cp.revision_kind = kind
        self._cp.pending_actions = []
        self._save()
        self._hook("revise-start")

    # ------------------------------------------------------------------ pauses

    def _gate_question(self, n: int, evaluation: Evaluation, decision: GateDecision) -> Question:
        overall = decision.overall
        revisions = self._cp.revision_count
        can_revise = revisions < 2
        if decision.action is GateAction.PAUSE_HARD:
            kind = QuestionKind.GATE_HARD
            key = "q_gate_hard"
            options = ["auto_revise", "edit_by_hand", "accept"]
            recommended = "edit_by_hand"
        else:
            kind = QuestionKind.GATE_LOW
            key = "q_gate_low" if decision.action is GateAction.PAUSE_LOW else "q_gate_exhausted"
            options = ["auto_revise", "edit_by_hand", "accept"]
            recommended = "auto_revise" if can_revise else "edit_by_hand"
        facts = [gate_reason(decision.action.value, overall, revisions, self.lang)]  # the author's language
        facts += [f"{c.id}: {c.detail}" for c in evaluation.high_confidence_violations()]
        facts += [f.instruction for f in evaluation.required_fixes if f.instruction]
        return self._question(
            kind,
            n,
            key,
            options,
            recommended,
            facts=facts,
            data={"overall": overall, "revision_count": revisions, "action": decision.action.value},
            fmt={"overall": overall, "revisions": revisions},
        )

    def _question(
        self,
        kind: QuestionKind,
        chapter: int | None,
        title_key: str,
        options: list[str],
        recommended: str,
        *,
        facts: list[str] | None = None,
        data: dict[str, object] | None = None,
        fmt: dict[str, object] | None = None,
    ) -> Question:
        values: dict[str, object] = {"chapter": chapter, **(fmt or {})}
        opts = []
        for key in options:
            label = "o_accept_hard" if (kind is QuestionKind.GATE_HARD and key == "accept") else f"o_{key}"
            opts.append(Option(key, tr(MESSAGES, label, "zh"), tr(MESSAGES, label, "en")))
        return Question(
            kind=kind,
            chapter=chapter,
            title_zh=tr(MESSAGES, title_key, "zh", **values),
            title_en=tr(MESSAGES, title_key, "en", **values),
            facts=list(facts or []),
            options=opts,
            recommended=recommended,
            data=dict(data or {}),
        )

    async def _ask(self, question: Question) -> str:
        try:
            answer = await self.decider(question)
        except Exception as exc:
            if _ask_pause(exc):
                return "pause"
            raise
        return answer

    async def _pause_for_gate(self, n: int, evaluation: Evaluation, decision: GateDecision) -> None:
        question = self._gate_question(n, evaluation, decision)
        st = ChapterStaging(self.paths, n)
        self._cp.pending_actions = [
            PendingAction(
                kind=question.kind.value,
                chapter=n,
                question=question.title_zh,
                options=[o.key for o in question.options],
                recommended=question.recommended,
                rationale=decision.reason,
                evaluation_path=str(st.evaluation.relative_to(self.paths.root)),
                evaluation=evaluation.to_data(),
                gate_action=decision.action.value,
                overall=decision.overall,
            )
        ]
        self._save()
        await self._answer_gate(n, question)

    async def _reask(self, n: int) -> None:
        pending = self._cp.pending_actions[0]
        st = ChapterStaging(self.paths, n)
        evaluation: Evaluation | None = None
        if st.evaluation.is_file():
            evaluation = Evaluation.load(st.evaluation)
        elif pending.evaluation is not None:
            evaluation = Evaluation.parse_data(pending.evaluation)
            evaluation.save(st.evaluation)
        if evaluation is None:
            raise StudioError(f"chapter {n}: the pending decision has no evaluation to rest on")
        decision = self._decide(evaluation)
        if not decision.pauses:  # e.g. the author raised the revision budget by hand: ask anyway
            decision = GateDecision(GateAction.PAUSE_LOW, decision.overall, pending.rationale or decision.reason)
        if pending.kind == QuestionKind.GATE_HARD.value:
            decision = GateDecision(GateAction.PAUSE_HARD, decision.overall, decision.reason)
        question = self._gate_question(n, evaluation, decision)
        if pending.recommended and pending.recommended in [o.key for o in question.options]:
            question = replace(question, recommended=pending.recommended)
        await self._answer_gate(n, question)

    async def _answer_gate(self, n: int, question: Question) -> None:
        answer = await self._ask(question)
        st = ChapterStaging(self.paths, n)
        if answer == "auto_revise":
            evaluation = Evaluation.load(st.evaluation)
            kind: RevisionKind = "rewrite" if evaluation.computed_overall() < 2.0 else "revision"
            self._start_revision(n, evaluation, kind)
            return
        if answer == "accept":
            evaluation = Evaluation.load(st.evaluation)
            evaluation.model_copy(update={"force_passed": True}).save(st.evaluation)
            self._cp.pending_actions = []
            self._save()
            return
        self._pause(n, question.kind.value, tr(MESSAGES, "paused_gate", self.lang, chapter=n,
                                                     kind=question_kind_name(question.kind.value, self.lang)))

    def _pause(self, chapter: int | None, kind: str, message: str) -> None:
        result = self._result
        result.paused = True
        result.pause_kind = kind
        result.paused_chapter = chapter
        result.messages.append(message)
        self.emit(Paused(chapter, kind, message))
        raise _Stop()

    async def _ask_interrupted(self, n: int, described: str) -> bool:
        """True: resume chapter `n`; False: its staging was discarded (start it again)."""
        question = self._question(
            QuestionKind.INTERRUPTED, n, "q_interrupted", ["resume", "discard"], "resume", facts=[described]
        )
        answer = await self._ask(question)
        if answer == "discard":
            ChapterStaging(self.paths, n).discard()
            cp = self._cp
            cp.inflight_chapter = None
            cp.pipeline_stage = PipelineStage.COMMITTED if cp.last_completed_chapter else None
            cp.revision_count = 0
            cp.revision_kind = None
            cp.pending_actions = []
            self._save()
            self._notice(n, tr(MESSAGES, "discarded", self.lang, chapter=n), "info")
            return False
        if answer != "resume":
            self._pause(n, question.kind.value, tr(MESSAGES, "paused_question", self.lang, question=question.title_zh if self.lang == "zh" else question.title_en))
        return True

    async def _ask_brief(self, brief: QualityBrief) -> None:
        question = self._question(
            QuestionKind.QUALITY_BRIEF,
            brief.last,
            "q_brief",
            ["continue", "review", "adjust"],
            "continue",
            facts=brief.lines(self.lang),
            data={"average": brief.average, "rebuild_hint": brief.rebuild_hint},
            fmt={"last": brief.last},
        )
        answer = await self._ask(question)
        if answer == "continue":
            return
        if answer in ("review", "adjust"):
            self._result.stopped_by_author = True
            message = tr(MESSAGES, "brief_stop", self.lang)
            self._result.messages.append(message)
            self._notice(brief.last, message, "info")
            raise _Stop()
        self._pause(brief.last, question.kind.value, tr(MESSAGES, "paused_question", self.lang, question=question.title_zh if self.lang == "zh" else question.title_en))

    async def _acquire_lock(self) -> bool:
        """Take the lock unless the caller holds it already; True when this run must release it."""
        if self.lock is None:
            self.lock = ProjectLock(self.paths)
        if self.lock.held:
            return False
        try:
            self.lock.acquire()
            return True
        except StaleLockError as exc:
            question = self._question(
                QuestionKind.STALE_LOCK,
                None,
                "q_stale",
                ["take_over", "cancel"],
                "take_over",
                facts=[exc.status.describe(self.lang)],
            )
            answer = await self._ask(question)
            if answer == "take_over":
                self.lock.acquire(take_over_stale=True)
                return True
            if answer == "pause":
                self._result.paused = True
                self._result.pause_kind = question.kind.value
            else:
                self._result.lock_cancelled = True
            return False

    # ------------------------------------------------------------------ commit

    async def _commit(self, n: int, gate_decision: str, *, force_passed: bool) -> None:
        if self.lock is not None:
            self.lock.ensure_held()
        await off_loop(
            prepare_commit,
            self.paths,
            n,
            gate_decision=gate_decision,
            revisions=self._cp.revision_count,
            force_passed=force_passed,
            started_at=None,
        )
        self._hook("commit:prepared")
        await self._run_commit(n)

    async def _run_commit(self, n: int) -> None:
        outcome = await off_loop(run_commit, self.paths, n, hook=self.step_hook, lang=self.lang)
        for warning in outcome.warnings:
            self._notice(n, warning)
        self._load()

    async def _after_commit_report(self, n: int) -> None:
        report = self._report(n)
        self._result.reports.append(report)
        if n not in self._result.committed:
            self._result.committed.append(n)
        self.emit(
            ChapterCommitted(
                n,
                report.word_count,
                report.scores[-1] if report.scores else None,
                list(report.scores),
                report.revisions,
                report.force_passed,
                report.cost_usd,
                list(report.actions),
            )
        )
        checks = await self._after_commit_checks(n)
        if checks is not None:
            report.findings = checks.findings
            self.emit(checks)

    async def _after_commit_checks(self, n: int) -> ChecksRan | None:
        """The checks of a committed chapter, after the commit and never part of it: a failure is a notice.
        They run in a worker thread (every 10th chapter segments text for new names: seconds), so a TUI driving
        the run stays responsive."""
        from studio.checks.run import check_after_commit, pausing_findings
        from studio.project import Project

        def work() -> ChecksReport | None:
            return check_after_commit(
                Project.open(self.paths.root),
                n,
                min_chars=self.settings.writing.chapter_min_chars,
                max_chars=self.settings.writing.chapter_max_chars,
                lang=self.lang,
            )

        try:
            checks = await asyncio.to_thread(work)
        except Exception:  # noqa: BLE001 - e.g. a broken project file: the commit stands, the checks wait
            checks = None
        if checks is None:
            self._notice(n, tr(MESSAGES, "checks_failed", self.lang, chapter=n), "info")
            return None
        self._checks_pause = pausing_findings(checks)
        return ChecksRan(n, len(checks.findings), sum(1 for f in checks.findings if f.severity == "high"))

    def _report(self, n: int) -> ChapterReport:
        text = read_text(self.paths.chapter(n)) if self.paths.chapter(n).is_file() else ""
        report = ChapterReport(n, word_count(text))
        if self.paths.log(n).is_file():
            log = PipelineLog.load(self.paths.log(n))
            history = getattr(log, "gate_history", None) or []
            for item in history:
                if isinstance(item, dict):
                    report.scores.append(float(item.get("overall", 0.0)))
                    report.actions.append(str(item.get("action", "")))
            report.revisions = log.revisions
            report.force_passed = bool(getattr(log, "force_passed", False))
            report.cost_usd = log.cost()
        return report

    # ------------------------------------------------------------------ volume, brief, cost

    def _outline(self) -> VolumeOutline | None:
        path = self.paths.outline(self._cp.current_volume)
        if not path.is_file():
            return None
        try:
            return parse_outline(read_text(path), path)
        except StudioError:
            return None

    def _volume_last(self) -> int | None:
        outline = self._outline()
        if outline is None or outline.chapter_range is None:
            return None
        return outline.chapter_range[1]

    def _is_key_chapter(self, n: int) -> bool:
        outline = self._outline()
        if outline is not None and outline.chapter_range is not None and n in outline.chapter_range:
            return True
        schedule_path = self.paths.schedule(self._cp.current_volume)
        if schedule_path.is_file():
            try:
                return StorylineSchedule.load(schedule_path).is_convergence_chapter(n)
            except StudioError:
                return False
        return False

    def _storyline_spec(self) -> StorylineSpec:
        try:
            return StorylineSpec.load_or_default(self.paths.storyline_spec)
        except StudioError:
            return StorylineSpec()

    def _volume_finished(self, n: int) -> bool:
        last = self._volume_last()
        if self._cp.orchestrator_state is not OrchestratorState.VOL_REVIEW and (last is None or n <= last):
            return False
        volume = self._cp.current_volume
        message = tr(MESSAGES, "volume_done", self.lang, volume=volume, last=last if last is not None else n - 1)
        self._result.stopped_at_volume_end = True
        self._result.volume = volume
        self._result.messages.append(message)
        self._notice(None, message, "info")
        return True

    def _at_volume_end(self, n: int) -> bool:
        last = self._volume_last()
        if last is None or n < last or self._cp.orchestrator_state is OrchestratorState.QUICK_START:
            return False  # the trial chapters end the opening sketch, not the volume (the quick start asks next)
        volume = self._cp.current_volume
        self._cp.orchestrator_state = OrchestratorState.VOL_REVIEW
        self._save()
        result = self._result
        result.stopped_at_volume_end = True
        result.volume = volume
        if is_brief_chapter(n):  # the volume end wins and carries the brief
            result.brief = build_brief(self.paths, n, skipped_ops_chapters=self._cp.skipped_ops_chapters)
            for line in result.brief.lines(self.lang):
                self._notice(n, line, "info")
        message = tr(MESSAGES, "volume_end", self.lang, volume=volume)
        result.messages.append(message)
        self._notice(n, message, "info")
        return True

    def _cost_allows(self, limit: float | None) -> bool:
        if limit is None:
            return True
        estimate = estimate_chapter_cost(self.paths, self.settings, offline=self.offline)
        self._take_ledger_totals()
        spent = self._result.cost_usd
        bad, at = self._ledger_unreadable
        if bad and not self._partial_said:  # the limit is checked against a spend that may be too low
            self._partial_said = True
            partial = tr(MESSAGES, "max_cost_partial", self.lang, n=bad, spent=spent,
                         lines=("、" if self.lang == "zh" else ", ").join(map(str, at)) + ("…" if bad > len(at) else ""))
            self._result.messages.append(partial)
            self._notice(None, partial, "warning")
        if spent + estimate.per_chapter_usd <= limit:
            return True
        message = tr(MESSAGES, "max_cost", self.lang, estimate=estimate.per_chapter_usd, limit=limit, spent=spent)
        self._result.stopped_by_cost = True
        self._result.messages.append(message)
        self._notice(None, message, "info")
        return False

    # ------------------------------------------------------------------ errors

    def _stage_failed(self, failure: _StageFailed) -> None:
        exc = failure.error
        kind = str(getattr(exc, "kind", type(exc).__name__))
        # a provider error's own message; any other StudioError in the author's language (a broken file's
        # problems: its Chinese text, not pydantic's English)
        message = str(getattr(exc, "message", None) or exc.text(self.lang))
        self._load()
        self._cp.orchestrator_state = OrchestratorState.ERROR_RETRY
        self._save()
        self.emit(StageError(failure.chapter, failure.stage, kind, message))
        key = "error_file" if isinstance(exc, FormatError) else "error_retry"  # a broken file: say how to get out
        text = tr(MESSAGES, key, self.lang, chapter=failure.chapter,
                  stage=stage_name(failure.stage, self.lang), message=error_text(kind, message, self.lang))
        self._result.error = text
        self._result.messages.append(text)
        self.emit(Paused(failure.chapter, "error_retry", text))

    # ------------------------------------------------------------------ helpers

    def _model(self, agent: str) -> str:
        try:
            return self.settings.model_for(agent)
        except KeyError:
            return ""

    def _account(self, calls: list[CallRecord]) -> None:
        result = self._result
        for call in calls:
            usage = call.usage
            if usage is not None:
                result.input_tokens += usage.input_tokens or 0
                result.output_tokens += usage.output_tokens or 0
                result.cache_read_tokens += usage.cache_read_input_tokens or 0
                result.cache_write_tokens += usage.cache_creation_input_tokens or 0
            if call.cost_usd is not None:
                result.cost_usd = round(result.cost_usd + call.cost_usd, 6)

    def _take_ledger_totals(self) -> None:
        """This run's spend from the ledger: every call booked since the run began, failed stages and
        repair rounds included. Agents that book nothing (test fakes) keep the totals `_account` made."""
        run = spend_totals(self.paths.spend_ledger, start=self._ledger_mark)
        self._ledger_unreadable = (run.unreadable_lines, run.unreadable_at)
        result = self._result
        if run.calls and run.cost_usd >= result.cost_usd:
            result.cost_usd = run.cost_usd
            result.input_tokens = run.input_tokens
            result.output_tokens = run.output_tokens
            result.cache_read_tokens = run.cache_read_tokens
            result.cache_write_tokens = run.cache_write_tokens

    def _notice(self, chapter: int | None, message: str, level: str = "warning") -> None:
        self.emit(Notice(chapter, message, level))

    def _hook(self, name: str) -> None:
        if self.step_hook is not None:
            self.step_hook(name)

    def _load(self) -> None:
        self._cp = Checkpoint.load_or_default(self.paths.checkpoint)

    def _save(self) -> None:
        save_checkpoint(self.paths, self._cp)
