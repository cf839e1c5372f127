"""The volume review's report (卷末回顾; issue 7 item 5, seed 000 §2.2 2d): what the review holds and its
Markdown. Pure: reads the project, writes nothing.

What a review holds (`build_review`): the volume's chapters (title, words, score), the average and the weakest
score, the threads planted / resolved in the volume and those overdue at its end, each storyline's progress
(chapters written against the schedule's target), the open contract violations of the judge's evaluations, and
the checks' findings (`logs/chapter-NNN/checks.json`) when they exist; once finished, also the model's
suggestions and the clean-up with the author's answer.

`render_review` is the Markdown of `volumes/vol-NN/review.md` (Chinese; English on request): a `# 第 N 卷回顾`
title, then `## 章节`, `## 评分`, `## 伏笔`, `## 故事线进度`, `## 未解决的违规`, `## 检查发现` (at most
`MAX_FINDINGS` findings one by one, the most severe first), `## 下一卷建议`, `## 状态清理`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from studio.checks.finding_text import finding_message
from studio.checks.findings_list import MESSAGES as FINDING_WORDS
from studio.errors import StudioError
from studio.fileio import read_text
from studio.i18n import Catalog, Lang, chars_text, tr, tr_count
from studio.i18n_names import storyline_role_name
from studio.models.evaluation import Evaluation
from studio.models.findings import ChecksReport, severity_rank
from studio.models.foreshadowing import ForeshadowingItem, ForeshadowingLedger
from studio.models.schedule import StorylineSchedule
from studio.models.volume_review import CleanupAnswer, CleanupItem, ReviewSuggestions
from studio.outline import VolumeOutline, parse_outline
from studio.paths import ProjectPaths
from studio.project import Project
from studio.wordcount import word_count

__all__ = [
    "MAX_FINDINGS",
    "ChapterRow",
    "FindingRow",
    "StorylineRow",
    "ViolationRow",
    "VolumeReview",
    "build_review",
    "cleanup_lines",
    "render_review",
    "volume_outline",
    "volume_range",
]

MAX_FINDINGS = 20  # findings listed one by one in review.md; the rest are counted

MESSAGES: Catalog = {
    "title": ("# 第 {volume} 卷回顾（第 {first}-{last} 章）", "# Review of volume {volume} (chapters {first}-{last})"),
    "interim": ("（中期报告：本卷还有章节未写，未保存任何文件）", "(interim report: chapters are left; nothing was saved)"),
    "h_chapters": ("## 章节", "## Chapters"),
    "chapter_row": ("- 第{n}章 {title}：{words}，评分 {score}", "- Ch {n} {title}: {words}, score {score}"),
    "no_score": ("无", "none"),
    "written": ("已写 {done}/{total} 章，共 {words}", "{done}/{total} chapters written, {words} in all"),
    "written_one": ("已写 {done}/{total} 章，共 {words}", "{done}/{total} chapter written, {words} in all"),
    "h_scores": ("## 评分", "## Scores"),
    "average": ("平均分 {avg:.2f}；最低：第 {weakest} 章 {low:.2f}", "average {avg:.2f}; weakest: chapter {weakest} at {low:.2f}"),
    "no_scores": ("没有评分记录", "no scores recorded"),
    "h_threads": ("## 伏笔", "## Foreshadowing"),
    "planted": ("本卷埋下 {n} 条：{items}", "planted in the volume ({n}): {items}"),
    "resolved": ("本卷回收 {n} 条：{items}", "resolved in the volume ({n}): {items}"),
    "overdue": ("已逾期未回收 {n} 条：{items}", "overdue ({n}): {items}"),
    "none": ("无", "none"),
    "h_lines": ("## 故事线进度", "## Storylines"),
    "line_row": ("- {name}（{id}，{role}）：本卷 {done} 章{target}", "- {name} ({id}, {role}): {done} chapters{target}"),
    "line_row_one": ("- {name}（{id}，{role}）：本卷 {done} 章{target}", "- {name} ({id}, {role}): {done} chapter{target}"),
    "line_target": ("/计划 {n} 章", " of {n} planned"),
    "line_goal": ("目标：{goal}", "goal: {goal}"),
    "no_lines": ("本卷没有故事线调度", "no storyline schedule for the volume"),
    "h_violations": ("## 未解决的违规", "## Open violations"),
    "violation_row": ("- 第{n}章 {id}（{confidence}）：{detail}", "- Ch {n} {id} ({confidence}): {detail}"),
    "no_violations": ("没有未解决的契约违规", "no open contract violations"),
    "h_findings": ("## 检查发现", "## Check findings"),
    "findings_count": ("共 {n} 条（高 {high}，中 {medium}，低 {low}）", "{n} in all ({high} high, {medium} medium, {low} low)"),
    "finding_row": ("- 第{n}章 · {severity} · {text}", "- Ch {n} · {severity} · {text}"),
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
    "cleanup_applied_one": ("已清理 {n} 个临时条目：", "removed {n} temporary entry:"),
    "cleanup_kept": ("建议清理 {n} 个临时条目，作者选择保留：", "{n} temporary entries proposed, the author kept them:"),
    "cleanup_kept_one": ("建议清理 {n} 个临时条目，作者选择保留：", "{n} temporary entry proposed, the author kept it:"),
    "cleanup_none": ("没有需要清理的临时条目", "no temporary entries to remove"),
    "cleanup_row": ("- {path}{label}：{reason}", "- {path}{label}: {reason}"),
    "final_state": ("卷末状态存档：{path}", "final state archived: {path}"),
    "no_outline": ("第 {volume} 卷没有大纲，无法回顾", "volume {volume} has no outline, so it cannot be reviewed"),
}


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
    text: str  # the saved message (or the quoted text when there is none), as the check wrote it
    quote: str = ""  # the chapter text the finding points at
    suggestion: str | None = None
    message: str = ""
    count: int = 1  # how often it occurs (`Finding.count`): kept when the message gives way to the kind's name

    def said(self, lang: Lang) -> str:
        """The row's text in `lang`: a message saved in the other language gives way to the kind's name."""
        return finding_message(self.kind, self.message, self.quote, self.suggestion, lang, self.count)


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
        rows += [FindingRow(n, f.kind, f.severity, (f.message or f.text).strip(), f.text, f.suggestion,
                            f.message.strip(), f.count)
                 for f in report.findings]
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
    # imported here: studio.views.scores -> studio.status -> studio.coldstart -> studio.planning.review -> here
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


def _thread(thread: ForeshadowingItem, lang: Lang) -> str:
    left, right = ("（", "）") if lang == "zh" else (" (", ")")
    return f"{thread.id}{left}{thread.description}{right}" if thread.description else thread.id


def render_review(review: VolumeReview, lang: Lang = "zh", *, final_state: str | None = None,
                  interim: bool = False) -> str:
    """The review as Markdown (`review.md` in Chinese; the same text in English on request)."""
    out = [tr(MESSAGES, "title", lang, volume=review.volume, first=review.first, last=review.last)]
    if interim:
        out += ["", tr(MESSAGES, "interim", lang)]
    total = review.last - review.first + 1
    out += ["", tr(MESSAGES, "h_chapters", lang), "",
            tr_count(MESSAGES, "written", lang, total, done=len(review.chapters), total=total,
                     words=chars_text(review.words, lang)), ""]
    for c in review.chapters:
        score = f"{c.score:.2f}" if c.score is not None else tr(MESSAGES, "no_score", lang)
        out.append(tr(MESSAGES, "chapter_row", lang, n=c.number, title=c.title, words=chars_text(c.words, lang),
                      score=score))
    out += ["", tr(MESSAGES, "h_scores", lang), ""]
    weakest = review.weakest
    if review.average is not None and weakest is not None and weakest.score is not None:
        out.append(tr(MESSAGES, "average", lang, avg=review.average, weakest=weakest.number, low=weakest.score))
    else:
        out.append(tr(MESSAGES, "no_scores", lang))
    out += ["", tr(MESSAGES, "h_threads", lang), ""]
    for key, threads in (("planted", review.planted), ("resolved", review.resolved), ("overdue", review.overdue)):
        # each thread on a line of its own: a run of them joined by 、 is one long unbreakable line
        items = "" if threads else tr(MESSAGES, "none", lang)
        out.append("- " + tr(MESSAGES, key, lang, n=len(threads), items=items).rstrip())
        out += [f"  - {_thread(t, lang)}" for t in threads]
    out += ["", tr(MESSAGES, "h_lines", lang), ""]
    for s in review.storylines:
        target = tr(MESSAGES, "line_target", lang, n=s.target) if s.target else ""
        out.append(tr_count(MESSAGES, "line_row", lang, s.written, name=s.name, id=s.id,
                            role=storyline_role_name(s.role or None, lang), done=s.written, target=target))
        if s.goal:
            out.append("  - " + tr(MESSAGES, "line_goal", lang, goal=s.goal))
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
            # the severity as the findings list says it (高 / high); the check's kind is an identifier, not shown
            severity = tr(FINDING_WORDS, f.severity, lang) if f.severity in FINDING_WORDS else f.severity
            out.append(tr(MESSAGES, "finding_row", lang, n=f.chapter, severity=severity, text=f.said(lang)))
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
    out = [tr_count(MESSAGES, key, lang, len(items), n=len(items))]
    for item in items:
        label = f"（{item.label}）" if item.label and lang == "zh" else (f" ({item.label})" if item.label else "")
        reason = item.reason if lang == "zh" else (item.reason_en or item.reason)
        out.append(tr(MESSAGES, "cleanup_row", lang, path=item.path, label=label, reason=reason))
    return out


def cleanup_lines(items: list[CleanupItem], lang: Lang) -> list[str]:
    """The proposal as lines for the clean-up question (no answer yet)."""
    return _cleanup_lines(items, None, lang)[1:]
