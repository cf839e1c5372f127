"""The volume review, deterministic part (卷末回顾; issue 7 item 5, seed 000 §2.2 2d and §8.2 VOL_REVIEW,
seed 002 §8.5 periodic clean-up). No model, no Textual: `pipeline.planning.review` adds the model's
suggestions and drives the steps below for the CLI (`novel-studio review`) and the studio alike.

What a review holds (`build_review`): the volume's chapters (title, words, score), the average and the weakest
score, the threads planted / resolved in the volume and those overdue at its end, each storyline's progress
(chapters written against the schedule's target), the open contract violations of the judge's evaluations, and
the checks' findings (`logs/chapter-NNN/checks.json`) when they exist.

Which volume is what (`review_kind`):
- `finished`: the current volume, every chapter of its outline committed, no review done yet (the checkpoint
  in VOL_REVIEW, or WRITING after the last chapter): the full review;
- `past`: an earlier volume, or the current one once its review is done (VOL_PLANNING): `review.md` again;
- `unfinished`: the current volume with chapters left: an interim report that writes nothing.

The clean-up proposal (`cleanup_proposal`), temporary state entries no longer needed (seed 002 §8.5):
- `retired_character`: a character in `current-state.json` whose file is in `characters/retired/`;
- `stale_item` / `stale_location`: an item or place that nothing refers to any more (no open thread, no
  storyline, no character's location or inventory, no chapter of a later volume's outline names its slug or
  its display name) and that is gone (its `status` says consumed, destroyed, lost ...; or `temporary: true`) or
  was not changed by any chapter of the finished volume;
- `resolved_thread`: an id in `active_foreshadowing` whose thread the ledger has resolved.
Characters who are merely absent are never proposed (retiring is the author's explicit act, seed 002 §8.5).

Steps and crash safety (the journal `staging/review/vol-NN.json`, `ReviewJournal`):
1. the suggestions are asked for; `state/history/vol-NN-final-state.json` (the state as the volume left it,
   before any clean-up) is written, then the journal with the suggestions and the proposal: the commit point.
   A kill before it leaves no journal (the next review starts over; the spend ledger has any call made, and
   the archive is written again with the same bytes);
2. `volumes/vol-NN/review.md` is written (the same bytes when written again);
3. the author's answer goes into the journal; `apply` removes the entries in one state-engine line
   (`studio.state_engine.merge_snapshot`, log first: a kill between log and state is finished by
   `reconcile`); the line is recognised by its `review_cleanup` mark, so a second run does not apply it again;
4. the checkpoint goes to VOL_PLANNING (planning the next volume is `novel-studio plan`), then the journal
   is removed, last.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from studio.errors import StudioError
from studio.fileio import atomic_write_text, dumps_json, read_text
from studio.i18n import Catalog, Lang, tr
from studio.ids import volume_id
from studio.models.checkpoint import Checkpoint, OrchestratorState, save_checkpoint
from studio.models.evaluation import Evaluation
from studio.models.findings import ChecksReport, severity_rank
from studio.models.foreshadowing import ForeshadowingItem, ForeshadowingLedger
from studio.models.schedule import StorylineSchedule
from studio.models.state import CurrentState
from studio.models.volume_review import CleanupAnswer, CleanupItem, ReviewJournal, ReviewSuggestions
from studio.outline import VolumeOutline, parse_outline
from studio.paths import ProjectPaths
from studio.planning.staged import VOLUME_END_KIND
from studio.project import Project
from studio.state_engine import (
    is_review_cleanup,
    last_changelog_entry,
    load_changelog,
    load_state,
    merge_snapshot,
    reconcile,
)
from studio.wordcount import word_count

__all__ = [
    "ChapterRow",
    "FindingRow",
    "ReviewKind",
    "StorylineRow",
    "ViolationRow",
    "VolumeReview",
    "apply_cleanup",
    "cleaned_state",
    "cleanup_lines",
    "pending_reviews",
    "build_review",
    "cleanup_proposal",
    "discard_review_journal",
    "final_state_path",
    "finish_review",
    "load_review_journal",
    "render_review",
    "review_journal_path",
    "review_kind",
    "review_path",
    "volume_range",
    "archive_final_state",
    "write_review_md",
]

ReviewKind = Literal["finished", "past", "unfinished"]

MAX_FINDINGS = 20  # findings listed one by one in review.md; the rest are counted
GONE_WORDS = ("消耗", "用尽", "用完", "毁", "碎", "遗失", "丢失", "失效", "销毁", "consumed", "destroyed", "lost", "used up")

MESSAGES: Catalog = {
    "title": ("# 第 {volume} 卷回顾（第 {first}-{last} 章）", "# Review of volume {volume} (chapters {first}-{last})"),
    "interim": ("（中期报告：本卷还有章节未写，未保存任何文件）", "(interim report: chapters are left; nothing was saved)"),
    "h_chapters": ("## 章节", "## Chapters"),
    "chapter_row": ("- 第{n}章 {title}：{words}字，评分 {score}", "- Ch {n} {title}: {words} chars, score {score}"),
    "no_score": ("无", "none"),
    "written": ("已写 {done}/{total} 章，共 {words} 字", "{done}/{total} chapters written, {words} chars in all"),
    "h_scores": ("## 评分", "## Scores"),
    "average": ("平均分 {avg:.2f}；最低：第 {weakest} 章 {low:.2f}", "average {avg:.2f}; weakest: chapter {weakest} at {low:.2f}"),
    "no_scores": ("没有评分记录", "no scores recorded"),
    "h_threads": ("## 伏笔", "## Foreshadowing"),
    "planted": ("本卷埋下 {n} 条：{items}", "planted in the volume ({n}): {items}"),
    "resolved": ("本卷回收 {n} 条：{items}", "resolved in the volume ({n}): {items}"),
    "overdue": ("已逾期未回收 {n} 条：{items}", "overdue ({n}): {items}"),
    "none": ("无", "none"),
    "h_lines": ("## 故事线进度", "## Storylines"),
    "line_row": ("- {name}（{id}，{role}）：本卷 {done} 章{target}{goal}", "- {name} ({id}, {role}): {done} chapters{target}{goal}"),
    "line_target": ("/计划 {n} 章", " of {n} planned"),
    "line_goal": ("；目标：{goal}", "; goal: {goal}"),
    "no_lines": ("本卷没有故事线调度", "no storyline schedule for the volume"),
    "h_violations": ("## 未解决的违规", "## Open violations"),
    "violation_row": ("- 第{n}章 {id}（{confidence}）：{detail}", "- Ch {n} {id} ({confidence}): {detail}"),
    "no_violations": ("没有未解决的契约违规", "no open contract violations"),
    "h_findings": ("## 检查发现", "## Check findings"),
    "findings_count": ("共 {n} 条（高 {high}，中 {medium}，低 {low}）", "{n} in all ({high} high, {medium} medium, {low} low)"),
    "finding_row": ("- 第{n}章 [{kind}/{severity}] {text}", "- Ch {n} [{kind}/{severity}] {text}"),
    "more_findings": ("……另有 {n} 条", "... and {n} more"),
    "no_findings": ("没有检查记录", "no check results"),
    "h_suggestions": ("## 下一卷建议", "## Suggestions for the next volume"),
    "s_summary": ("本卷概要：{text}", "The volume: {text}"),
    "s_strengths": ("### 亮点", "### Strengths"),
    "s_problems": ("### 问题", "### Problems"),
    "s_next": ("### 下一卷", "### Next volume"),
    "s_threads": ("### 建议回收的伏笔", "### Threads to pay off"),
    "s_raw": ("（模型回复未能解析，原文如下）", "(the model's reply did not parse; as written)"),
    "no_suggestions": ("（无模型建议）", "(no suggestions from the model)"),
    "h_cleanup": ("## 状态清理", "## State clean-up"),
    "cleanup_applied": ("已清理 {n} 个临时条目：", "removed {n} temporary entries:"),
    "cleanup_kept": ("建议清理 {n} 个临时条目，作者选择保留：", "{n} temporary entries proposed, the author kept them:"),
    "cleanup_none": ("没有需要清理的临时条目", "no temporary entries to remove"),
    "cleanup_row": ("- {path}{label}：{reason}", "- {path}{label}: {reason}"),
    "final_state": ("卷末状态存档：{path}", "final state archived: {path}"),
    "r_retired": ("角色已退场（characters/retired/），状态中的残留条目", "the character is retired (characters/retired/)"),
    "r_gone": ("状态为「{status}」，且没有伏笔、故事线或角色再提到它", "its status is \"{status}\" and nothing refers to it any more"),
    "r_idle": ("本卷没有任何章节改动过它，且没有伏笔、故事线或角色再提到它",
               "no chapter of the volume changed it and nothing refers to it any more"),
    "r_temporary": ("标记为临时条目，且没有伏笔、故事线或角色再提到它", "marked temporary, and nothing refers to it any more"),
    "r_resolved": ("伏笔已回收，仍留在 active_foreshadowing 中", "the thread is resolved but still in active_foreshadowing"),
    "state_moved": (
        "第 {volume} 卷回顾的清理建议基于状态版本 {was}，但状态已是版本 {now}；未清理任何条目，请重新运行 review",
        "the clean-up of volume {volume}'s review was proposed against state version {was}, but the state is at "
        "version {now}; nothing was removed; run review again",
    ),
    "no_outline": ("第 {volume} 卷没有大纲，无法回顾", "volume {volume} has no outline, so it cannot be reviewed"),
    "no_review": ("第 {volume} 卷还没有回顾（{path} 不存在）", "volume {volume} has no review yet ({path} is missing)"),
}


# ---------------------------------------------------------------------------------------------- paths


def review_path(paths: ProjectPaths, volume: int) -> Path:
    return paths.volume_dir(volume) / "review.md"


def final_state_path(paths: ProjectPaths, volume: int) -> Path:
    return paths.state_history / f"{volume_id(volume)}-final-state.json"


def review_journal_path(paths: ProjectPaths, volume: int) -> Path:
    return paths.staging / "review" / f"{volume_id(volume)}.json"


def load_review_journal(paths: ProjectPaths, volume: int) -> ReviewJournal | None:
    path = review_journal_path(paths, volume)
    return ReviewJournal.load(path) if path.is_file() else None


def pending_reviews(paths: ProjectPaths) -> list[int]:
    """Volumes whose review journal waits to be finished."""
    folder = paths.staging / "review"
    out: list[int] = []
    for path in sorted(folder.glob("vol-*.json")) if folder.is_dir() else []:
        match = re.fullmatch(r"vol-(\d{2,})\.json", path.name)
        if match:
            out.append(int(match.group(1)))
    return out


def discard_review_journal(paths: ProjectPaths, volume: int) -> None:
    review_journal_path(paths, volume).unlink(missing_ok=True)
    for folder in (paths.staging / "review", paths.staging):
        try:
            folder.rmdir()
        except OSError:
            pass


# ---------------------------------------------------------------------------------------------- report


@dataclass(frozen=True)
class ChapterRow:
    number: int
    title: str
    words: int
    score: float | None
    storyline: str | None


@dataclass(frozen=True)
class StorylineRow:
    id: str
    name: str
    role: str
    written: int
    target: int | None
    goal: str


@dataclass(frozen=True)
class ViolationRow:
    chapter: int
    id: str
    confidence: str
    detail: str


@dataclass(frozen=True)
class FindingRow:
    chapter: int
    kind: str
    severity: str
    text: str


@dataclass
class VolumeReview:
    volume: int
    first: int
    last: int
    chapters: list[ChapterRow]
    planted: list[ForeshadowingItem]
    resolved: list[ForeshadowingItem]
    overdue: list[ForeshadowingItem]
    storylines: list[StorylineRow]
    violations: list[ViolationRow]
    findings: list[FindingRow]
    checks_ran: bool
    finished: bool
    suggestions: ReviewSuggestions | None = None
    cleanup: list[CleanupItem] = field(default_factory=list)
    cleanup_answer: CleanupAnswer | None = None

    @property
    def scored(self) -> list[ChapterRow]:
        return [c for c in self.chapters if c.score is not None]

    @property
    def average(self) -> float | None:
        scored = self.scored
        return round(sum(c.score or 0.0 for c in scored) / len(scored), 2) if scored else None

    @property
    def weakest(self) -> ChapterRow | None:
        scored = self.scored
        return min(scored, key=lambda c: (c.score, c.number)) if scored else None

    @property
    def words(self) -> int:
        return sum(c.words for c in self.chapters)

    def data(self) -> dict[str, object]:
        """Plain JSON for `--json` and the studio."""
        weakest = self.weakest
        return {
            "volume": self.volume,
            "first_chapter": self.first,
            "last_chapter": self.last,
            "finished": self.finished,
            "chapters": [
                {"chapter": c.number, "title": c.title, "words": c.words, "score": c.score, "storyline": c.storyline}
                for c in self.chapters
            ],
            "average": self.average,
            "weakest": None if weakest is None else {"chapter": weakest.number, "score": weakest.score},
            "foreshadowing": {
                "planted": [t.id for t in self.planted],
                "resolved": [t.id for t in self.resolved],
                "overdue": [t.id for t in self.overdue],
            },
            "storylines": [
                {"id": s.id, "role": s.role, "written": s.written, "target": s.target} for s in self.storylines
            ],
            "violations": [{"chapter": v.chapter, "id": v.id, "confidence": v.confidence, "detail": v.detail}
                           for v in self.violations],
            "findings": [{"chapter": f.chapter, "kind": f.kind, "severity": f.severity, "text": f.text}
                         for f in self.findings],
            "suggestions": None if self.suggestions is None else self.suggestions.to_data(),
            "cleanup": [item.to_data() for item in self.cleanup],
            "cleanup_answer": self.cleanup_answer,
        }


def volume_outline(paths: ProjectPaths, volume: int) -> VolumeOutline | None:
    path = paths.outline(volume)
    if not path.is_file():
        return None
    return parse_outline(read_text(path), path)


def volume_range(paths: ProjectPaths, volume: int) -> tuple[int, int] | None:
    """(first, last) chapter of the volume's outline, or None without one."""
    outline = volume_outline(paths, volume)
    return None if outline is None else outline.chapter_range


def review_kind(project: Project, volume: int, lang: Lang = "zh") -> ReviewKind:
    """See the module docstring; raises StudioError for a volume without an outline or not begun."""
    current = project.current_volume
    cp = project.checkpoint
    if volume < current:
        return "past"
    span = volume_range(project.paths, volume)
    if volume > current or span is None:
        raise StudioError(tr(MESSAGES, "no_outline", lang, volume=volume))
    if project.last_completed_chapter < span[1]:
        return "unfinished"
    if cp.orchestrator_state is OrchestratorState.VOL_PLANNING and load_review_journal(project.paths, volume) is None:
        return "past" if review_path(project.paths, volume).is_file() else "finished"
    return "finished"


def _title(outline: VolumeOutline | None, n: int) -> str:
    chapter = outline.get(n) if outline is not None else None
    return chapter.title if chapter is not None else ""


def _threads(ledger: ForeshadowingLedger, first: int, last: int) -> tuple[list[ForeshadowingItem], ...]:
    planted = [t for t in ledger.foreshadowing if t.planted_chapter is not None and first <= t.planted_chapter <= last]
    resolved = [
        t for t in ledger.foreshadowing
        if t.status == "resolved" and any(h.action == "resolved" and first <= h.chapter <= last for h in t.history)
    ]
    overdue = [
        t for t in ledger.foreshadowing
        if t.scope == "short" and t.status != "resolved" and t.target_resolve_range is not None
        and last >= t.target_resolve_range[1]
    ]
    return planted, resolved, overdue


def _storylines(project: Project, volume: int, chapters: list[ChapterRow]) -> list[StorylineRow]:
    path = project.paths.schedule(volume)
    try:
        schedule = StorylineSchedule.load(path) if path.is_file() else None
    except StudioError:
        schedule = None
    names = {line.id: line.name for line in project.storylines.storylines}
    counts: dict[str, int] = {}
    for c in chapters:
        if c.storyline:
            counts[c.storyline] = counts.get(c.storyline, 0) + 1
    rows: list[StorylineRow] = []
    seen: set[str] = set()
    for entry in schedule.active_storylines if schedule is not None else []:
        seen.add(entry.storyline_id)
        rows.append(StorylineRow(entry.storyline_id, names.get(entry.storyline_id, entry.storyline_id),
                                 entry.volume_role, counts.get(entry.storyline_id, 0), entry.target_chapters,
                                 entry.arc_goal))
    for line_id, count in sorted(counts.items()):
        if line_id not in seen:
            rows.append(StorylineRow(line_id, names.get(line_id, line_id), "", count, None, ""))
    return rows


def _violations(project: Project, numbers: Iterable[int]) -> list[ViolationRow]:
    rows: list[ViolationRow] = []
    for n in numbers:
        path = project.paths.evaluation(n)
        if not path.is_file():
            continue
        try:
            evaluation = Evaluation.load(path)
        except StudioError:
            continue
        rows += [ViolationRow(n, v.id, v.confidence, v.detail or v.evidence) for v in evaluation.violations()]
    return rows


def _findings(paths: ProjectPaths, numbers: Iterable[int]) -> tuple[list[FindingRow], bool]:
    rows: list[FindingRow] = []
    ran = False
    for n in numbers:
        path = paths.checks_log(n)
        if not path.is_file():
            continue
        try:
            report = ChecksReport.load(path)
        except StudioError:
            continue
        ran = True
        rows += [FindingRow(n, f.kind, f.severity, (f.message or f.text).strip()) for f in report.findings]
    rows.sort(key=lambda f: (-severity_rank(f.severity), f.chapter))
    return rows, ran


def build_review(project: Project, volume: int, lang: Lang = "zh") -> VolumeReview:
    """The deterministic review of `volume` as the project holds it now (reads only)."""
    paths = project.paths
    outline = volume_outline(paths, volume)
    if outline is None or outline.chapter_range is None:
        raise StudioError(tr(MESSAGES, "no_outline", lang, volume=volume))
    first, last = outline.chapter_range
    committed = [n for n in project.committed_chapters() if first <= n <= last]
    # imported here: studio.views.scores -> studio.status -> studio.coldstart -> this module
    from studio.views.scores import chapter_scores

    scores = chapter_scores(project)  # the stat-keyed evaluation cache shared with status
    chapters: list[ChapterRow] = []
    for n in committed:
        text = project.chapter_text(n) or ""
        chapter = outline.get(n)
        score = scores[n].overall if n in scores else None
        chapters.append(ChapterRow(n, _title(outline, n), word_count(text), score,
                                   chapter.storyline if chapter is not None else None))
    ledger = project.foreshadowing
    planted, resolved, overdue = _threads(ledger, first, last)
    findings, ran = _findings(paths, committed)
    return VolumeReview(
        volume=volume,
        first=first,
        last=last,
        chapters=chapters,
        planted=planted,
        resolved=resolved,
        overdue=overdue,
        storylines=_storylines(project, volume, chapters),
        violations=_violations(project, committed),
        findings=findings,
        checks_ran=ran,
        finished=bool(committed) and committed[-1] == last and project.last_completed_chapter >= last,
    )


# ---------------------------------------------------------------------------------------------- markdown


def _items(threads: list[ForeshadowingItem], lang: Lang) -> str:
    if not threads:
        return tr(MESSAGES, "none", lang)
    sep = "、" if lang == "zh" else ", "
    return sep.join(f"{t.id}（{t.description}）" if t.description else t.id for t in threads)


def render_review(review: VolumeReview, lang: Lang = "zh", *, final_state: str | None = None,
                  interim: bool = False) -> str:
    """The review as Markdown (`review.md` in Chinese; the same text in English on request)."""
    out = [tr(MESSAGES, "title", lang, volume=review.volume, first=review.first, last=review.last)]
    if interim:
        out += ["", tr(MESSAGES, "interim", lang)]
    total = review.last - review.first + 1
    out += ["", tr(MESSAGES, "h_chapters", lang), "",
            tr(MESSAGES, "written", lang, done=len(review.chapters), total=total, words=review.words), ""]
    for c in review.chapters:
        score = f"{c.score:.2f}" if c.score is not None else tr(MESSAGES, "no_score", lang)
        out.append(tr(MESSAGES, "chapter_row", lang, n=c.number, title=c.title, words=c.words, score=score))
    out += ["", tr(MESSAGES, "h_scores", lang), ""]
    weakest = review.weakest
    if review.average is not None and weakest is not None and weakest.score is not None:
        out.append(tr(MESSAGES, "average", lang, avg=review.average, weakest=weakest.number, low=weakest.score))
    else:
        out.append(tr(MESSAGES, "no_scores", lang))
    out += ["", tr(MESSAGES, "h_threads", lang), ""]
    out.append("- " + tr(MESSAGES, "planted", lang, n=len(review.planted), items=_items(review.planted, lang)))
    out.append("- " + tr(MESSAGES, "resolved", lang, n=len(review.resolved), items=_items(review.resolved, lang)))
    out.append("- " + tr(MESSAGES, "overdue", lang, n=len(review.overdue), items=_items(review.overdue, lang)))
    out += ["", tr(MESSAGES, "h_lines", lang), ""]
    for s in review.storylines:
        target = tr(MESSAGES, "line_target", lang, n=s.target) if s.target else ""
        goal = tr(MESSAGES, "line_goal", lang, goal=s.goal) if s.goal else ""
        out.append(tr(MESSAGES, "line_row", lang, name=s.name, id=s.id, role=s.role or "-", done=s.written,
                      target=target, goal=goal))
    if not review.storylines:
        out.append(tr(MESSAGES, "no_lines", lang))
    out += ["", tr(MESSAGES, "h_violations", lang), ""]
    for v in review.violations:
        out.append(tr(MESSAGES, "violation_row", lang, n=v.chapter, id=v.id, confidence=v.confidence,
                      detail=v.detail or "-"))
    if not review.violations:
        out.append(tr(MESSAGES, "no_violations", lang))
    out += ["", tr(MESSAGES, "h_findings", lang), ""]
    if review.checks_ran:
        by = {s: sum(1 for f in review.findings if f.severity == s) for s in ("high", "medium", "low")}
        out.append(tr(MESSAGES, "findings_count", lang, n=len(review.findings), **by))
        for f in review.findings[:MAX_FINDINGS]:
            out.append(tr(MESSAGES, "finding_row", lang, n=f.chapter, kind=f.kind, severity=f.severity, text=f.text))
        if len(review.findings) > MAX_FINDINGS:
            out.append(tr(MESSAGES, "more_findings", lang, n=len(review.findings) - MAX_FINDINGS))
    else:
        out.append(tr(MESSAGES, "no_findings", lang))
    if review.suggestions is not None:
        out += ["", tr(MESSAGES, "h_suggestions", lang), ""]
        out += _suggestion_lines(review.suggestions, lang)
    if not interim:
        out += ["", tr(MESSAGES, "h_cleanup", lang), ""]
        out += _cleanup_lines(review.cleanup, review.cleanup_answer, lang)
        if final_state:
            out += ["", tr(MESSAGES, "final_state", lang, path=final_state)]
    return "\n".join(out).rstrip() + "\n"


def _suggestion_lines(s: ReviewSuggestions, lang: Lang) -> list[str]:
    out: list[str] = []
    if s.summary.strip():
        out += [tr(MESSAGES, "s_summary", lang, text=s.summary.strip()), ""]
    for key, items in (("s_strengths", s.strengths), ("s_problems", s.problems), ("s_next", s.next_volume),
                       ("s_threads", s.threads_to_pay_off)):
        if items:
            out += [tr(MESSAGES, key, lang), "", *(f"- {i.strip()}" for i in items if i.strip()), ""]
    if s.raw.strip():
        out += [tr(MESSAGES, "s_raw", lang), "", s.raw.strip(), ""]
    return out or [tr(MESSAGES, "no_suggestions", lang)]


def _cleanup_lines(items: list[CleanupItem], answer: CleanupAnswer | None, lang: Lang) -> list[str]:
    if not items:
        return [tr(MESSAGES, "cleanup_none", lang)]
    key = "cleanup_applied" if answer == "apply" else "cleanup_kept"
    out = [tr(MESSAGES, key, lang, n=len(items))]
    for item in items:
        label = f"（{item.label}）" if item.label and lang == "zh" else (f" ({item.label})" if item.label else "")
        reason = item.reason if lang == "zh" else (item.reason_en or item.reason)
        out.append(tr(MESSAGES, "cleanup_row", lang, path=item.path, label=label, reason=reason))
    return out


def cleanup_lines(items: list[CleanupItem], lang: Lang) -> list[str]:
    """The proposal as lines for the clean-up question (no answer yet)."""
    return _cleanup_lines(items, None, lang)[1:]


# ---------------------------------------------------------------------------------------------- clean-up


def _changed_in(paths: ProjectPaths, first: int, last: int) -> set[str]:
    """`items.<slug>` / `locations.<slug>` touched by an op of a chapter in first..last."""
    touched: set[str] = set()
    for entry in load_changelog(paths.changelog):
        if entry.kind in ("init", "foreign") or not first <= entry.chapter <= last or is_review_cleanup(entry):
            continue
        for op in entry.ops:
            parts = op.path.split(".")
            if len(parts) >= 2 and parts[0] in ("items", "locations"):
                touched.add(f"{parts[0]}.{parts[1]}")
    return touched


def _later_outlines(paths: ProjectPaths, volume: int) -> str:
    texts: list[str] = []
    for folder in sorted((paths.root / "volumes").glob("vol-*")):
        match = re.fullmatch(r"vol-(\d{2,})", folder.name)
        outline = folder / "outline.md"
        if match and int(match.group(1)) > volume and outline.is_file():
            texts.append(read_text(outline))
    return "\n".join(texts)


def _references(project: Project, state: CurrentState, volume: int) -> str:
    """All the text that may name an item or place that is still in play."""
    parts = [t.id + " " + t.description for t in project.foreshadowing.foreshadowing if t.status != "resolved"]
    parts += [line.model_dump_json() for line in project.storylines.storylines if line.status != "resolved"]
    for character in state.characters.values():
        parts.append(character.location or "")
        parts += [str(i) for i in character.inventory or []]
    parts.append(_later_outlines(project.paths, volume))
    return "\n".join(parts)


def _gone(entry: dict[str, object]) -> str | None:
    status = str(entry.get("status") or "")
    return next((w for w in GONE_WORDS if w in status.lower()), None)


def cleanup_proposal(project: Project, volume: int, state: CurrentState | None = None) -> list[CleanupItem]:
    """The temporary entries the review proposes to remove (rules in the module docstring)."""
    paths = project.paths
    state = state if state is not None else load_state(paths)
    span = volume_range(paths, volume)
    first, last = span if span is not None else (1, project.last_completed_chapter)
    items: list[CleanupItem] = []
    retired = paths.root / "characters" / "retired"
    for slug, character in sorted(state.characters.items()):
        if (retired / f"{slug}.json").is_file() and not paths.character(slug).is_file():
            items.append(CleanupItem(kind="retired_character", path=f"characters.{slug}",
                                     label=character.display_name or "", reason=tr(MESSAGES, "r_retired", "zh"),
                                     reason_en=tr(MESSAGES, "r_retired", "en")))
    refs = _references(project, state, volume)
    touched = _changed_in(paths, first, last)
    for category, kind in (("items", "stale_item"), ("locations", "stale_location")):
        entries: dict[str, dict[str, object]] = getattr(state, category)
        for slug, entry in sorted(entries.items()):
            name = str(entry.get("display_name") or "")
            if slug in refs or (name and name in refs):
                continue
            gone = _gone(entry)
            if gone is not None:
                reason = {lang: tr(MESSAGES, "r_gone", lang, status=str(entry.get("status"))) for lang in ("zh", "en")}
            elif entry.get("temporary") is True:
                reason = {lang: tr(MESSAGES, "r_temporary", lang) for lang in ("zh", "en")}
            elif f"{category}.{slug}" not in touched:
                reason = {lang: tr(MESSAGES, "r_idle", lang) for lang in ("zh", "en")}
            else:
                continue
            items.append(CleanupItem(kind=kind, path=f"{category}.{slug}", label=name, reason=reason["zh"],
                                     reason_en=reason["en"]))
    resolved = {t.id for t in project.foreshadowing.foreshadowing if t.status == "resolved"}
    for thread in state.active_foreshadowing:
        if thread in resolved:
            items.append(CleanupItem(kind="resolved_thread", path=f"active_foreshadowing.{thread}",
                                     reason=tr(MESSAGES, "r_resolved", "zh"), reason_en=tr(MESSAGES, "r_resolved", "en")))
    return items


def cleaned_state(state: CurrentState, items: Iterable[CleanupItem]) -> CurrentState:
    """`state` without the entries of `items` (entries already gone are skipped)."""
    data = state.to_data()
    for item in items:
        top, _, key = item.path.partition(".")
        if top == "active_foreshadowing":
            data[top] = [i for i in data[top] if i != key]
        elif isinstance(data.get(top), dict):
            data[top].pop(key, None)
    return CurrentState.model_validate(data)


def _cleanup_applied(paths: ProjectPaths, volume: int) -> bool:
    last = last_changelog_entry(paths.changelog)
    return last is not None and getattr(last, "review_cleanup", None) == volume


def apply_cleanup(paths: ProjectPaths, journal: ReviewJournal) -> bool:
    """Remove the proposed entries in one state-engine line (at most once per review); True if it wrote."""
    reconcile(paths)  # a kill between the clean-up's log line and its state write is finished here
    if not journal.cleanup or _cleanup_applied(paths, journal.volume):
        return False
    state = load_state(paths)
    if state.state_version != journal.state_version:  # the state moved since the proposal: apply nothing
        raise StudioError(tr(MESSAGES, "state_moved", "zh", volume=journal.volume, was=journal.state_version,
                             now=state.state_version))
    merge_snapshot(paths, cleaned_state(state, journal.cleanup), chapter=journal.last_chapter, volume=journal.volume)
    return True


# ---------------------------------------------------------------------------------------------- steps


def archive_final_state(paths: ProjectPaths, volume: int, state: CurrentState) -> None:
    """Step 1a, before the journal: `state/history/vol-NN-final-state.json` = the state as the volume left it
    (nothing changes the state between this write and the journal; same bytes are not written again)."""
    final = final_state_path(paths, volume)
    data = dumps_json(state.to_data())
    if not final.is_file() or read_text(final) != data:
        atomic_write_text(final, data)


def write_review_md(paths: ProjectPaths, review: VolumeReview) -> None:
    """Step 2: `volumes/vol-NN/review.md` in Chinese (same bytes are not written again)."""
    final = final_state_path(paths, review.volume)
    text = render_review(review, "zh", final_state=final.relative_to(paths.root).as_posix())
    target = review_path(paths, review.volume)
    if not target.is_file() or read_text(target) != text:
        atomic_write_text(target, text)


def finish_review(paths: ProjectPaths, journal: ReviewJournal, review: VolumeReview) -> None:
    """Steps 2-4 for a journal whose answer is set (or whose proposal is empty). Safe to run again."""
    review.suggestions = journal.suggestions
    review.cleanup = journal.cleanup
    review.cleanup_answer = journal.answer
    write_review_md(paths, review)
    if journal.answer == "apply":
        apply_cleanup(paths, journal)
    cp = Checkpoint.load_or_default(paths.checkpoint)
    if cp.orchestrator_state is not OrchestratorState.VOL_PLANNING:
        cp.orchestrator_state = OrchestratorState.VOL_PLANNING
        cp.pending_actions = [a for a in cp.pending_actions if a.kind != VOLUME_END_KIND]
        save_checkpoint(paths, cp)
    discard_review_journal(paths, journal.volume)
