"""The full depth of an import: per chapter, in order, the Summarizer's summary and state ops; characters,
world rules, storylines, open threads and the style profile from the author's own chapters (issue 10 item 3).

`run_extraction` (the caller holds the project lock; CLI `extract`, `import --full`, the studio) runs, for the
chapters `extracted_through + 1 .. last` of the import record (`.novel-studio/import.json`):

1. the cast pass, once per book (`pipeline.importing.survey`): characters with aliases and L2 contracts,
   relationships, L1 rules, storylines, registered names, from the opening chapters, so that the state ops of
   the per-chapter pass name characters by the ids of their files;
2. the style pass, once per book: `pipeline.planning.style_analysis.analyze_style` over up to `STYLE_SAMPLES`
   of the author's chapters spread over the book (numbers measured by code, anchor passages cut verbatim from
   the author's prose: they reach the writer's prompt through `style-profile.json`);
3. per chapter, in order: the Summarizer (`AgentRequests.summarizer` + `run_summarizer`: the writing loop's
   request, repair rules and stable cached prefix; the import marks its requests `import_extract` and sends
   `IMPORT_HINTS` in place of the writer's hints), staged like a written chapter's summary
   (`ChapterStaging.write_summary`), then committed by the writing loop's journaled commit
   (`pipeline.commit.run_commit`): summary, storyline memory, state merge + changelog line, foreshadowing
   ledger, the undo/rebuild "before" copies, checkpoint. The chapter file is never staged, so the commit never
   touches the author's text. Then `extracted_through` advances.

Crash safety (nothing paid twice, nothing half-applied):
- cast and style: the reply is turned into files, the files are staged in one atomic write
  (`staging/import/<pass>.json`), then written, then the pass is marked done in `.novel-studio/extraction.json`
  (`studio.models.extraction_progress`), then the staged file goes. A rerun finds the staged files and writes
  them again without a call.
- a chapter: the Summarizer's result is kept in one atomic write right after the call
  (`staging/import/chapter-NNN-reply.json`), then staged as the writing loop stages a summary (its delta last);
  the commit journal is written (the commit point) and the commit runs its idempotent steps; the record advances
  last, then the kept result goes. A rerun finishes a commit journal first, stages a kept result or takes a
  staged delta without a call, and knows a chapter whose commit finished before the record advanced by its
  archived summary metadata (`import_extraction: true`). Only a kill inside the one write of the kept result
  (after the call, before its rename) loses a paid reply.
- A `ProviderError` (network, 5xx after the retries) stops the run with status "failed"; the progress is kept.

Cost: `estimate_extraction` before any spend (the Summarizer's stable prefix read from the prompt cache after
the first call); with `max_cost_usd` the run stops cleanly between steps when the next one's estimate would pass
the cap (status "stopped", exit 3), the progress kept. Every call goes through the provider passed in, which is
the spend ledger's `LedgerProvider` when built by `pipeline.providers.factory`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pipeline.agents.protocol import CallRecord
from pipeline.agents.requests import AgentRequests
from pipeline.agents.runner import default_registry, request_text
from pipeline.agents.summarizer import run_summarizer
from pipeline.commit import (
    STATE_BEFORE,
    UNDO_INFO,
    archive_dir,
    pending_commits,
    run_commit,
    validate_before_commit,
)
from pipeline.decisions import Decider, Option, Question, QuestionKind
from pipeline.events import Event, Notice, StageFinished, StageStarted
from pipeline.importing.replies import ImportSurveyReply
from pipeline.importing.survey import SURVEY_STAGE, survey_chapters, survey_files, survey_request
from pipeline.planning.invoke import priced_invoke
from pipeline.planning.style_analysis import SAMPLE_MAX_CHARS, analyze_style
from pipeline.prompts_registry import PromptRegistry
from pipeline.providers.base import Provider, ProviderError
from pipeline.providers.cost import Price, price_for, settings_prices
from pipeline.staging import ChapterStaging, call_from_data, call_to_data
from pipeline.structured import StructuredReplyError, run_structured
from pipeline.tokens import estimate_tokens
from studio.errors import StudioError
from studio.fileio import atomic_write_json, atomic_write_text, dumps_json, read_json, read_text
from studio.i18n import Catalog, Lang, tr
from studio.ids import chapter_id
from studio.models.checkpoint import now_iso
from studio.models.extraction_progress import ExtractionProgress, extraction_progress_path
from studio.models.foreshadowing import ForeshadowingLedger
from studio.models.import_record import ImportRecord
from studio.models.names import NamesFile
from studio.models.patch import StatePatch
from studio.models.settings import Settings
from studio.paths import ProjectPaths
from studio.project import Project
from studio.state_engine import last_changelog_entry, load_changelog, load_state

__all__ = [
    "IMPORT_HINTS",
    "SUMMARY_STAGE",
    "ExtractionEstimate",
    "ExtractionRefused",
    "ExtractionResult",
    "chapter_extracted",
    "estimate_extraction",
    "extraction_question",
    "run_extraction",
]

SUMMARY_STAGE = "import-summarize"
STYLE_STAGE = "style"
STYLE_SAMPLES = 3
SUMMARY_OUTPUT_TOKENS = 1_000  # a summary, its ops and the storyline memory (pipeline.estimate.TYPICAL_CALLS)
SURVEY_OUTPUT_TOKENS = 4_000
STYLE_OUTPUT_TOKENS = 1_000
STATE_GROWTH_TOKENS = 15  # the state and memory the Summarizer sees grow with the book, per chapter so far
STATE_TOKENS_CAP = 3_000

IMPORT_HINTS = (
    "（本章是作者已经写好的原稿，由导入程序读取，没有写手提示；本章的大纲条目由导入生成，只有标题。"
    "请完全依据正文记录摘要、状态变更与伏笔：正文里埋下、推进、回收的伏笔都要记录；"
    "本章新出场且反复出现的角色，用拼音 slug 作为 ID 并在 set 中给出 display_name。）"
)

ANSWER_START = "start"
ANSWER_CANCEL = "cancel"

MESSAGES: Catalog = {
    "no_record": (
        "这个项目不是导入的书稿（缺少 .novel-studio/import.json）；先运行 novel-studio import",
        "this project is not an imported manuscript (no .novel-studio/import.json); run novel-studio import first",
    ),
    "beyond": (
        "第 {last} 章不在导入的章节中（导入了第 1-{imported} 章）",
        "chapter {last} is not among the imported chapters (1-{imported} were imported)",
    ),
    "written_after": (
        "第 {chapter} 章之后已经在本工具中续写过（状态记录到第 {state} 章），无法再按章顺序提取导入的章节",
        "chapters after {chapter} were already written here (the state is at chapter {state}); the imported "
        "chapters can no longer be extracted in order",
    ),
    "nothing": ("第 1-{done} 章都已完整提取，没有要做的", "chapters 1-{done} are already extracted; nothing to do"),
    "question": (
        "用模型完整提取第 {first}-{last} 章（{chapters} 章）？",
        "extract chapters {first}-{last} ({chapters}) with the model?",
    ),
    "fact_estimate": (
        "预计：输入约 {tokens_in} tokens，输出约 {tokens_out} tokens，费用约 ${cost:.2f}",
        "estimate: about {tokens_in} input tokens, {tokens_out} output tokens, about ${cost:.2f}",
    ),
    "fact_offline": ("离线模式：由离线演示生成，不花钱", "offline mode: the offline demo answers, no cost"),
    "fact_passes": ("另有一次性的{passes}", "plus the once-per-book {passes}"),
    "pass_cast": ("角色与设定通读", "cast pass"),
    "pass_style": ("文风分析", "style pass"),
    "fact_cap": ("费用上限 ${limit:.2f}：超出前在两章之间停下，进度保留", "cost cap ${limit:.2f}: stops between chapters before passing it, progress kept"),
    "opt_start": ("开始提取", "start"),
    "opt_cancel": ("取消", "cancel"),
    "cancelled": ("已取消，未调用模型", "cancelled; no model was called"),
    "cast_done": (
        "角色与设定：{characters} 个角色、{rules} 条世界规则、{lines} 条故事线（读了第 {chapters} 章）",
        "cast: {characters} characters, {rules} world rules, {lines} storylines (from chapters {chapters})",
    ),
    "cast_resumed": ("角色与设定：写入上次已生成的结果（未再调用模型）", "cast: wrote the result of the interrupted run (no new call)"),
    "style_done": (
        "文风：从第 {chapters} 章提取，{anchors} 段原文锚点",
        "style: from chapters {chapters}, {anchors} anchor passages of the author's prose",
    ),
    "style_resumed": ("文风：写入上次已生成的结果（未再调用模型）", "style: wrote the result of the interrupted run (no new call)"),
    "chapter_done": (
        "第 {chapter} 章：{ops} 项状态变更，伏笔 {threads} 项",
        "chapter {chapter}: {ops} state changes, {threads} foreshadowing ops",
    ),
    "chapter_resumed": ("第 {chapter} 章：完成上次中断的提交（未再调用模型）", "chapter {chapter}: finished the interrupted commit (no new call)"),
    "ops_skipped": (
        "第 {chapter} 章：状态操作两次格式错误，本章不记状态变更",
        "chapter {chapter}: the state ops were malformed twice; no state changes recorded",
    ),
    "stopped_cost": (
        "已花费 ${spent:.2f}，下一步预计 ${next:.2f} 会超过上限 ${limit:.2f}：停在第 {done} 章，进度已保存；"
        "再次运行 novel-studio extract 从第 {next_chapter} 章继续",
        "spent ${spent:.2f}; the next step (about ${next:.2f}) would pass the cap ${limit:.2f}: stopped after "
        "chapter {done}, progress saved; run novel-studio extract again to go on from chapter {next_chapter}",
    ),
    "failed_model": (
        "调用模型失败：{message}。已提取到第 {done} 章，进度已保存；再次运行 novel-studio extract 从断点继续",
        "the model call failed: {message}. Chapters up to {done} are extracted and saved; run novel-studio "
        "extract again to resume",
    ),
    "failed_reply": (
        "{what}的回复两次修正后仍不合格：{message}。进度已保存，可再次运行 novel-studio extract",
        "the reply of the {what} still failed after two repairs: {message}. Progress saved; run novel-studio "
        "extract again",
    ),
    "done": ("已完整提取到第 {done} 章（共 {total} 章）", "extracted through chapter {done} (of {total})"),
}


class ExtractionRefused(StudioError):
    """The extraction cannot run on this project (not imported, a wrong range, chapters written after it)."""


@dataclass(frozen=True)
class ExtractionEstimate:
    first: int
    last: int
    chapters: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    cached_input_tokens: int = 0  # of input_tokens, read from the prompt cache
    per_chapter_usd: float = 0.0
    survey: bool = False  # the cast pass is still to do (counted in the totals)
    style: bool = False  # the style pass is still to do (counted in the totals)
    offline: bool = False
    survey_usd: float = 0.0
    style_usd: float = 0.0


@dataclass
class ExtractionResult:
    status: str  # "done" | "stopped" (max cost / author) | "failed"
    extracted_through: int
    cost_usd: float = 0.0
    message: str = ""
    notes: list[str] = field(default_factory=list)
    chapters: list[int] = field(default_factory=list)  # extracted by this run (resumed commits included)
    calls: list[CallRecord] = field(default_factory=list)
    total: int = 0  # the import's last chapter

    @property
    def exit_code(self) -> int:
        return {"done": 0, "stopped": 3}.get(self.status, 1)


# --------------------------------------------------------------------------------------------- files


def staged_pass(paths: ProjectPaths, name: str) -> Path:
    """`staging/import/<name>.json`: the files of a once-per-book pass, paid for and not yet all written."""
    return paths.staging / "import" / f"{name}.json"


def load_progress(paths: ProjectPaths) -> ExtractionProgress:
    return ExtractionProgress.load_or_default(extraction_progress_path(paths))


def _save_progress(paths: ProjectPaths, progress: ExtractionProgress, **changes: Any) -> ExtractionProgress:
    updated = progress.model_copy(update={**changes, "updated_at": now_iso()})
    updated.save(extraction_progress_path(paths))
    return updated


def load_record(paths: ProjectPaths, lang: Lang = "zh") -> ImportRecord:
    if not paths.import_record.is_file():
        raise ExtractionRefused(tr(MESSAGES, "no_record", lang))
    return ImportRecord.load(paths.import_record)


def _advance_record(paths: ProjectPaths, n: int) -> ImportRecord:
    record = ImportRecord.load(paths.import_record)
    if record.extracted_through < n:
        record = record.model_copy(update={"extracted_through": n})
        record.save(paths.import_record)
    return record


def chapter_extracted(paths: ProjectPaths, n: int) -> bool:
    """Chapter n's extraction commit finished (its archived summary metadata says so, no journal is left),
    whatever the record says: a kill between the commit's last step and the record's advance."""
    st = ChapterStaging(paths, n)
    meta = archive_dir(paths, n) / st.summary_meta.name
    if st.journal.exists() or not meta.is_file():
        return False
    try:
        return bool(read_json(meta).get("import_extraction"))
    except StudioError:
        return False


def _write_staged(paths: ProjectPaths, name: str, files: dict[str, str]) -> None:
    """Stage the pass's files in one atomic write (the pass is paid and complete from here on)."""
    atomic_write_json(staged_pass(paths, name), {"files": files})


def _apply_staged(paths: ProjectPaths, name: str) -> dict[str, str] | None:
    """Write a staged pass's files (again, after a kill: the same bytes); None when nothing is staged."""
    path = staged_pass(paths, name)
    if not path.is_file():
        return None
    files = read_json(path).get("files") or {}
    for rel, text in files.items():
        atomic_write_text(paths.root / rel, str(text))
    return {str(k): str(v) for k, v in files.items()}


def _drop_staged(paths: ProjectPaths, name: str) -> None:
    staged_pass(paths, name).unlink(missing_ok=True)
    folder = staged_pass(paths, name).parent
    if folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()


# --------------------------------------------------------------------------------------------- range


def extraction_range(paths: ProjectPaths, record: ImportRecord, last: int | None, lang: Lang) -> tuple[int, int]:
    """(first, last) chapters to extract; first > last when there is nothing to do."""
    imported = record.last_chapter
    first = max(record.extracted_through + 1, record.extraction_started_at)
    stop = imported if last is None else last
    if stop > imported or stop < 1:
        raise ExtractionRefused(tr(MESSAGES, "beyond", lang, last=stop, imported=imported))
    return first, stop


def _check_in_order(paths: ProjectPaths, first: int, lang: Lang) -> None:
    """Refuse when the state already holds chapters at or after `first` that this extraction did not write
    (chapters written here after the import): their changes would come before the imported chapters'."""
    for entry in load_changelog(paths.changelog):
        if entry.kind in ("init", "foreign") or entry.chapter < first:
            continue
        if not chapter_extracted(paths, entry.chapter) and not ChapterStaging(paths, entry.chapter).journal.exists():
            raise ExtractionRefused(tr(MESSAGES, "written_after", lang, chapter=first - 1, state=entry.chapter))


# --------------------------------------------------------------------------------------------- estimate


def _price(settings: Settings, agent: str) -> Price | None:
    return price_for(settings.model_for(agent), settings_prices(settings))


def _cost(price: Price | None, fresh: int, cache_write: int, cache_read: int, out: int) -> float:
    if price is None:
        return 0.0
    return (fresh * price.input + cache_write * price.cache_write + cache_read * price.cache_read
            + out * price.output) / 1_000_000


@dataclass(frozen=True)
class _ChapterShape:
    """Token counts of one Summarizer request of the import: the cached prefix and the rest."""

    prefix: int
    rest: int


def _summarizer_shape(project: Project, settings: Settings, registry: PromptRegistry, n: int) -> _ChapterShape:
    request, _ = AgentRequests(project, settings, registry).summarizer(n, "", IMPORT_HINTS)
    prefix = estimate_tokens("\n".join(b.text for b in request.system))
    return _ChapterShape(prefix, max(0, estimate_tokens(request_text(request)) - prefix))


def _chapter_tokens(paths: ProjectPaths, n: int) -> int:
    path = paths.chapter(n)
    return estimate_tokens(read_text(path)) if path.is_file() else 0


def _style_samples(paths: ProjectPaths, record: ImportRecord, last: int) -> list[int]:
    """Up to STYLE_SAMPLES of the author's ordinary chapters, spread over 1..last (first, middle, last)."""
    own = [c.chapter for c in record.chapters if c.kind == "chapter" and c.chapter <= last and paths.chapter(c.chapter).is_file()]
    if not own:
        own = [n for n in range(1, last + 1) if paths.chapter(n).is_file()]
    if len(own) <= STYLE_SAMPLES:
        return own
    step = (len(own) - 1) / (STYLE_SAMPLES - 1)
    return sorted({own[round(i * step)] for i in range(STYLE_SAMPLES)})


def estimate_extraction(root: Path, settings: Settings, *, last: int | None = None, offline: bool = False,
                        lang: Lang = "zh", registry: PromptRegistry | None = None) -> ExtractionEstimate:
    """What `run_extraction` would cost now (module docstring): tokens by the chapters' sizes and the prompts'
    rendered sizes, the Summarizer's stable prefix written to the prompt cache once and read after that; the
    cast and style passes when they are still to do. Reads only; no model call."""
    paths = ProjectPaths(Path(root))
    record = load_record(paths, lang)
    first, stop = extraction_range(paths, record, last, lang)
    progress = load_progress(paths)
    registry = registry or default_registry()
    project = Project.open(paths.root)
    price = _price(settings, "summarizer")
    tokens_in = tokens_out = cached = 0
    cost = 0.0
    chapters = list(range(first, stop + 1))
    if chapters:
        shape = _summarizer_shape(project, settings, registry, first)
        for i, n in enumerate(chapters):
            state = min(STATE_TOKENS_CAP, STATE_GROWTH_TOKENS * (n - 1))
            fresh = shape.rest + _chapter_tokens(paths, n) + state
            write, read = (shape.prefix, 0) if i == 0 else (0, shape.prefix)
            tokens_in += fresh + shape.prefix
            cached += read
            tokens_out += SUMMARY_OUTPUT_TOKENS
            cost += _cost(price, fresh, write, read, SUMMARY_OUTPUT_TOKENS)
    survey_usd = style_usd = 0.0
    todo_survey = not progress.survey_done and bool(chapters)
    todo_style = not progress.style_done and bool(chapters)
    if todo_survey:
        opening = survey_chapters(paths, first, stop)
        request = survey_request(project, settings, opening, registry=registry, candidates=False)
        t_in = estimate_tokens(request_text(request))
        survey_usd = _cost(_price(settings, "character_weaver"), t_in, 0, 0, SURVEY_OUTPUT_TOKENS)
        tokens_in += t_in
        tokens_out += SURVEY_OUTPUT_TOKENS
    if todo_style:
        samples = _style_samples(paths, record, record.last_chapter)
        t_in = 1_500 + sum(estimate_tokens(read_text(paths.chapter(n))[:SAMPLE_MAX_CHARS]) for n in samples)
        style_usd = _cost(_price(settings, "style_analyzer"), t_in, 0, 0, STYLE_OUTPUT_TOKENS)
        tokens_in += t_in
        tokens_out += STYLE_OUTPUT_TOKENS
    total = 0.0 if offline else round(cost + survey_usd + style_usd, 4)
    return ExtractionEstimate(
        first=first,
        last=stop,
        chapters=len(chapters),
        input_tokens=tokens_in,
        output_tokens=tokens_out,
        cost_usd=total,
        cached_input_tokens=cached,
        per_chapter_usd=0.0 if offline or not chapters else round(cost / len(chapters), 6),
        survey=todo_survey,
        style=todo_style,
        offline=offline,
        survey_usd=0.0 if offline else round(survey_usd, 6),
        style_usd=0.0 if offline else round(style_usd, 6),
    )


def extraction_question(estimate: ExtractionEstimate, max_cost_usd: float | None, lang: Lang = "zh") -> Question:
    """The confirmation asked before any spend (`QuestionKind.IMPORT_EXTRACT`: start / cancel)."""
    def facts(lg: Lang) -> list[str]:
        out = [tr(MESSAGES, "fact_estimate", lg, tokens_in=estimate.input_tokens,
                  tokens_out=estimate.output_tokens, cost=estimate.cost_usd)]
        passes = [tr(MESSAGES, key, lg) for key, todo in (("pass_cast", estimate.survey), ("pass_style", estimate.style))
                  if todo]
        if passes:
            out.append(tr(MESSAGES, "fact_passes", lg, passes="、".join(passes) if lg == "zh" else ", ".join(passes)))
        if estimate.offline:
            out.append(tr(MESSAGES, "fact_offline", lg))
        if max_cost_usd is not None:
            out.append(tr(MESSAGES, "fact_cap", lg, limit=max_cost_usd))
        return out

    args = {"first": estimate.first, "last": estimate.last, "chapters": estimate.chapters}
    return Question(
        kind=QuestionKind.IMPORT_EXTRACT,
        chapter=estimate.first,
        title_zh=tr(MESSAGES, "question", "zh", **args),
        title_en=tr(MESSAGES, "question", "en", **args),
        facts=facts(lang),
        options=[
            Option(ANSWER_START, tr(MESSAGES, "opt_start", "zh"), tr(MESSAGES, "opt_start", "en")),
            Option(ANSWER_CANCEL, tr(MESSAGES, "opt_cancel", "zh"), tr(MESSAGES, "opt_cancel", "en")),
        ],
        recommended=ANSWER_START,
        data={"estimate": estimate.__dict__.copy(), "facts_en": facts("en")},
    )


# --------------------------------------------------------------------------------------------- the run


class _Stop(Exception):
    """The next step's estimate would pass the cost cap."""

    def __init__(self, next_usd: float) -> None:
        super().__init__(next_usd)
        self.next_usd = next_usd


@dataclass
class _Run:
    paths: ProjectPaths
    settings: Settings
    provider: Provider
    registry: PromptRegistry
    emit: Callable[[Event], None]
    lang: Lang
    max_cost_usd: float | None
    offline: bool
    calls: list[CallRecord] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    chapters: list[int] = field(default_factory=list)

    @property
    def spent(self) -> float:
        return round(sum(c.cost_usd or 0.0 for c in self.calls), 6)

    def afford(self, next_usd: float) -> None:
        if self.max_cost_usd is not None and not self.offline and self.spent + next_usd > self.max_cost_usd:
            raise _Stop(next_usd)

    def note(self, at: int | None, key: str, level: str = "info", **args: Any) -> None:
        message = tr(MESSAGES, key, self.lang, **args)
        self.notes.append(message)
        self.emit(Notice(at, message, level))

    def invoke(self) -> Any:
        return priced_invoke(self.provider, self.settings)


async def _survey(run: _Run, first: int, last: int, estimate_usd: float) -> None:
    paths = run.paths
    if _apply_staged(paths, "survey") is None:
        run.afford(estimate_usd)
        project = Project.open(paths.root)
        opening = survey_chapters(paths, first, last)
        request = survey_request(project, run.settings, opening, registry=run.registry)
        run.emit(StageStarted(first, SURVEY_STAGE, request.model))
        try:
            result = await run_structured(run.provider, request, ImportSurveyReply, registry=run.registry,
                                          stage=SURVEY_STAGE, invoke=run.invoke())
        except StructuredReplyError as exc:
            run.calls += exc.calls
            raise
        run.calls += result.calls
        run.emit(StageFinished(first, SURVEY_STAGE, request.model, sum(c.duration_ms for c in result.calls)))
        reply = result.value
        files = survey_files(paths, project, reply)
        _write_staged(paths, "survey", files)
        _apply_staged(paths, "survey")
        chapters = [n for n, _ in opening]
        run.note(None, "cast_done", characters=len(reply.characters), rules=len(reply.rules),
                 lines=len(reply.storylines), chapters=f"{chapters[0]}-{chapters[-1]}")
    else:
        chapters = []
        run.note(None, "cast_resumed")
    progress = load_progress(paths)
    _save_progress(paths, progress, survey_done=True, survey_chapters=chapters or progress.survey_chapters)
    _drop_staged(paths, "survey")


async def _style(run: _Run, record: ImportRecord, estimate_usd: float) -> None:
    paths = run.paths
    if _apply_staged(paths, "style") is None:
        run.afford(estimate_usd)
        project = Project.open(paths.root)
        numbers = _style_samples(paths, record, record.last_chapter)
        samples = [(chapter_id(n), read_text(paths.chapter(n)).strip()[:SAMPLE_MAX_CHARS]) for n in numbers]
        run.emit(StageStarted(numbers[0] if numbers else 1, STYLE_STAGE, run.settings.model_for("style_analyzer")))
        try:
            outcome = await analyze_style(project, run.settings, run.provider, "samples", samples=samples,
                                          registry=run.registry)
        except StructuredReplyError as exc:
            run.calls += exc.calls
            raise
        run.calls += outcome.calls
        run.emit(StageFinished(numbers[0] if numbers else 1, STYLE_STAGE, run.settings.model_for("style_analyzer"),
                               sum(c.duration_ms for c in outcome.calls)))
        profile = outcome.profile
        rel = paths.style_profile.relative_to(paths.root).as_posix()
        _write_staged(paths, "style", {rel: dumps_json(profile.to_data())})
        _apply_staged(paths, "style")
        run.note(None, "style_done", chapters="、".join(map(str, numbers)),
                 anchors=len(getattr(profile, "style_exemplars", None) or []))
    else:
        numbers = []
        run.note(None, "style_resumed")
    progress = load_progress(paths)
    _save_progress(paths, progress, style_done=True, style_chapters=numbers or progress.style_chapters)
    _drop_staged(paths, "style")


def _import_context(project: Project, paths: ProjectPaths) -> dict[str, Any]:
    """What the offline provider's import reply reads from the request (`import_extract` marks the request)."""
    state = load_state(paths)
    names = NamesFile.load_or_default(paths.names)
    ledger = ForeshadowingLedger.load_or_default(paths.global_foreshadowing)
    return {
        "import_extract": True,
        "import_cast": [{"id": slug, "display_name": c.display_name, "aliases": list(c.aliases)}
                        for slug, c in sorted(project.characters.items())],
        "import_places": [e.name for e in names.entities if e.kind in ("place", "location")],
        "state_character_ids": sorted(state.characters),
        "open_threads": [i.id for i in ledger.foreshadowing if i.status != "resolved"],
    }


def _journal(paths: ProjectPaths, n: int) -> None:
    """The commit point of chapter n's extraction (as `pipeline.commit.prepare_commit`, minus the final text,
    evaluation and chapter log: an imported chapter keeps its file, has no score and no writing log)."""
    validate_before_commit(paths, n)
    st = ChapterStaging(paths, n)
    patch, storyline_id = st.load_delta()
    # A "before" guard left by an earlier attempt must not stand for this commit's (checks.json stays).
    for name in (UNDO_INFO, STATE_BEFORE):
        (archive_dir(paths, n) / name).unlink(missing_ok=True)
    atomic_write_json(st.journal, {
        "chapter": n,
        "storyline_id": storyline_id,
        "patch_skipped": patch is None,
        "gate_decision": "import",
        "import_extraction": True,
        "steps_done": [],
    })


def staged_reply(paths: ProjectPaths, n: int) -> Path:
    """`staging/import/chapter-NNN-reply.json`: the Summarizer's result for chapter n, written in one atomic write
    right after the call (the narrowest window between paying and keeping what was paid for)."""
    return paths.staging / "import" / f"{chapter_id(n)}-reply.json"


async def _summarize(run: _Run, n: int, next_usd: float) -> dict[str, Any]:
    """Call the Summarizer on chapter n and keep its result (`staged_reply`); returns the result's data."""
    paths = run.paths
    run.afford(next_usd)
    project = Project.open(paths.root)
    text = read_text(paths.chapter(n))
    request, bundle = AgentRequests(project, run.settings, run.registry).summarizer(n, text, IMPORT_HINTS)
    request = replace(request, context={**request.context, **_import_context(project, paths)})
    base = load_state(paths).state_version
    run.emit(StageStarted(n, SUMMARY_STAGE, request.model))
    out = await run_summarizer(run.provider, request, registry=run.registry, invoke=run.invoke(), chapter=n,
                               storyline_id=str(bundle.data["storyline_id"]), base_state_version=base,
                               stage=SUMMARY_STAGE)
    run.calls += out.calls
    run.emit(StageFinished(n, SUMMARY_STAGE, request.model, sum(c.duration_ms for c in out.calls)))
    data: dict[str, Any] = {
        "summary": out.summary,
        "ops": None if out.patch is None else list(out.patch.ops),
        "storyline_id": out.storyline_id,
        "memory": out.storyline_memory,
        "base_state_version": base,
        "meta": {
            "import_extraction": True,
            "cross_references": list(out.cross_references),
            "leak_risk": out.leak_risk,
            "warnings": list(out.warnings),
            **out.structure,
        },
        "calls": [call_to_data(c) for c in out.calls],
    }
    atomic_write_json(staged_reply(paths, n), data)
    if out.patch is None:
        run.note(n, "ops_skipped", "warning", chapter=n)
    for warning in out.warnings:
        run.notes.append(warning)
        run.emit(Notice(n, warning, "warning"))
    return data


def _stage_summary(paths: ProjectPaths, n: int, data: dict[str, Any]) -> None:
    """The kept result into the chapter's staging, as the writing loop stages a summary (delta last)."""
    st = ChapterStaging(paths, n)
    st.clear_summary()
    st.calls.unlink(missing_ok=True)
    st.record_calls([call_from_data(c) for c in data.get("calls", [])])
    storyline_id = str(data["storyline_id"])
    base = int(data["base_state_version"])
    ops = data.get("ops")
    st.write_summary(
        summary=str(data["summary"]),
        patch=None if ops is None else StatePatch(chapter=n, base_state_version=base, storyline_id=storyline_id,
                                                  ops=list(ops)),
        storyline_id=storyline_id,
        memory=str(data["memory"]),
        meta=dict(data.get("meta") or {}),
        base_state_version=base,
    )


async def _chapter(run: _Run, n: int, next_usd: float) -> None:
    paths = run.paths
    st = ChapterStaging(paths, n)
    resumed = st.journal.exists() or st.delta.is_file()
    if not resumed:
        kept = staged_reply(paths, n)
        if kept.is_file():
            resumed = True
            data = read_json(kept)
        else:
            data = await _summarize(run, n, next_usd)
        _stage_summary(paths, n, data)
    if not st.journal.exists():
        _journal(paths, n)
    outcome = run_commit(paths, n)
    run.notes += outcome.warnings
    _advance_record(paths, n)
    _drop_reply(paths, n)
    run.chapters.append(n)
    if resumed:
        run.note(n, "chapter_resumed", chapter=n)
    else:
        entry = last_changelog_entry(paths.changelog)
        ops = list(entry.ops) if entry is not None and entry.chapter == n else []
        run.note(n, "chapter_done", chapter=n, ops=sum(1 for op in ops if op.op != "foreshadow"),
                 threads=sum(1 for op in ops if op.op == "foreshadow"))


def _drop_reply(paths: ProjectPaths, n: int) -> None:
    staged_reply(paths, n).unlink(missing_ok=True)
    folder = staged_reply(paths, n).parent
    if folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()


def _resume_pending(run: _Run) -> None:
    """Finish the commits a kill left (their model calls are paid) and advance the record past them."""
    for n in pending_commits(run.paths):
        run_commit(run.paths, n)
        if _imported(run.paths, n):
            _advance_record(run.paths, n)
            _drop_reply(run.paths, n)
            run.chapters.append(n)
            run.note(n, "chapter_resumed", chapter=n)


def _imported(paths: ProjectPaths, n: int) -> bool:
    """Chapter n is one of the import's chapters."""
    try:
        record = ImportRecord.load(paths.import_record)
    except StudioError:
        return False
    return any(c.chapter == n for c in record.chapters)


async def run_extraction(root: Path, settings: Settings, provider: Provider, decide: Decider,
                         emit: Callable[[Event], None] | None = None, *, last: int | None = None,
                         max_cost_usd: float | None = None, offline: bool = False,
                         lang: Lang = "zh", registry: PromptRegistry | None = None,
                         confirmed: bool = False) -> ExtractionResult:
    """Extract chapters `extracted_through + 1 .. last` (module docstring). The caller holds the project lock.

    Asks `decide` the `extraction_question` first (unless `confirmed`: the caller asked already); "cancel"
    ends with status "stopped" and nothing spent. Raises ExtractionRefused (nothing done) for a project that
    is not imported, a chapter outside the import, or chapters written here after the imported ones."""
    paths = ProjectPaths(Path(root))
    run = _Run(paths, settings, provider, registry or default_registry(), emit or (lambda event: None), lang,
               max_cost_usd, offline)
    record = load_record(paths, lang)
    _resume_pending(run)
    for n in range(record.extracted_through + 1, record.last_chapter + 1):
        if not chapter_extracted(paths, n):
            break
        _advance_record(paths, n)  # a commit finished just before the record's advance
        _drop_reply(paths, n)
    record = load_record(paths, lang)
    first, stop = extraction_range(paths, record, last, lang)
    if first > stop:
        if extraction_progress_path(paths).is_file() and load_progress(paths).status != "done":
            _save_progress(paths, load_progress(paths), status="done")
        message = tr(MESSAGES, "nothing", lang, done=record.extracted_through)
        return ExtractionResult("done", record.extracted_through, message=message, notes=run.notes,
                                chapters=run.chapters, total=record.last_chapter)
    _check_in_order(paths, first, lang)
    estimate = estimate_extraction(paths.root, settings, last=stop, offline=offline, lang=lang,
                                   registry=run.registry)
    if not confirmed:
        answer = await decide(extraction_question(estimate, max_cost_usd, lang))
        if answer != ANSWER_START:
            return ExtractionResult("stopped", record.extracted_through, message=tr(MESSAGES, "cancelled", lang),
                                    notes=run.notes, chapters=run.chapters, total=record.last_chapter)
    progress = _save_progress(paths, load_progress(paths), status="running", target=stop)
    try:
        if not progress.survey_done:
            await _survey(run, first, stop, estimate.survey_usd)
        if not load_progress(paths).style_done:
            await _style(run, record, estimate.style_usd)
        for n in range(first, stop + 1):
            next_usd = estimate.per_chapter_usd
            await _chapter(run, n, next_usd)
    except _Stop as stop_exc:
        done = load_record(paths, lang).extracted_through
        _save_progress(paths, load_progress(paths), status="stopped")
        message = tr(MESSAGES, "stopped_cost", lang, spent=run.spent, next=stop_exc.next_usd,
                     limit=max_cost_usd or 0.0, done=done, next_chapter=done + 1)
        return ExtractionResult("stopped", done, run.spent, message, run.notes, run.chapters, run.calls, record.last_chapter)
    except ProviderError as exc:
        done = load_record(paths, lang).extracted_through
        _save_progress(paths, load_progress(paths), status="failed")
        message = tr(MESSAGES, "failed_model", lang, message=str(exc), done=done)
        return ExtractionResult("failed", done, run.spent, message, run.notes, run.chapters, run.calls, record.last_chapter)
    except StructuredReplyError as exc:
        done = load_record(paths, lang).extracted_through
        _save_progress(paths, load_progress(paths), status="failed")
        message = tr(MESSAGES, "failed_reply", lang, what=str(exc.calls[-1].stage if exc.calls else "model"),
                     message="; ".join(exc.errors[:3]))
        return ExtractionResult("failed", done, run.spent, message, run.notes, run.chapters, run.calls, record.last_chapter)
    record = load_record(paths, lang)
    _save_progress(paths, load_progress(paths), status="done")
    message = tr(MESSAGES, "done", lang, done=record.extracted_through, total=record.last_chapter)
    return ExtractionResult("done", record.extracted_through, run.spent, message, run.notes, run.chapters, run.calls,
                            record.last_chapter)
