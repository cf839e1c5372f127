"""The quality brief after every 5th committed chapter (PRD 8.3): average, weakest chapters, open issues,
and the "rebuild the state" hint once >= 3 chapters had their state ops skipped (seed 003 10.6)."""

from __future__ import annotations

from dataclasses import dataclass, field

from studio.errors import StudioError
from studio.i18n import Catalog, Lang, tr
from studio.models.evaluation import Evaluation
from studio.paths import ProjectPaths

BRIEF_EVERY = 5
REBUILD_AFTER_SKIPS = 3
WEAKEST = 2
MAX_ISSUES = 5

MESSAGES: Catalog = {
    "title": ("第 {first}-{last} 章质量简报", "Quality brief, chapters {first}-{last}"),
    "average": ("平均分 {avg:.2f}（{n} 章）", "average {avg:.2f} over {n} chapters"),
    "no_scores": ("这几章没有评分", "no scores for these chapters"),
    "weakest": ("最弱：{items}", "weakest: {items}"),
    "weak_item": ("第 {n} 章 {score:.2f}", "ch {n} {score:.2f}"),
    "forced": ("强制通过：第 {items} 章", "force-passed: chapters {items}"),
    "issues": ("待解决：{items}", "open issues: {items}"),
    "rebuild": (
        "已有 {n} 章的状态变更被跳过（第 {items} 章），建议执行状态重建",
        "state ops were skipped in {n} chapters ({items}); rebuild the state",
    ),
}


@dataclass(frozen=True)
class QualityBrief:
    first: int
    last: int
    scores: dict[int, float] = field(default_factory=dict)
    weakest: list[tuple[int, float]] = field(default_factory=list)
    open_issues: list[str] = field(default_factory=list)
    force_passed: list[int] = field(default_factory=list)
    skipped_ops_chapters: list[int] = field(default_factory=list)

    @property
    def average(self) -> float | None:
        if not self.scores:
            return None
        return round(sum(self.scores.values()) / len(self.scores), 2)

    @property
    def rebuild_hint(self) -> bool:
        return len(self.skipped_ops_chapters) >= REBUILD_AFTER_SKIPS

    def lines(self, lang: Lang) -> list[str]:
        out = [tr(MESSAGES, "title", lang, first=self.first, last=self.last)]
        avg = self.average
        if avg is None:
            out.append(tr(MESSAGES, "no_scores", lang))
        else:
            out.append(tr(MESSAGES, "average", lang, avg=avg, n=len(self.scores)))
        if self.weakest:
            sep = "、" if lang == "zh" else ", "
            items = sep.join(tr(MESSAGES, "weak_item", lang, n=n, score=s) for n, s in self.weakest)
            out.append(tr(MESSAGES, "weakest", lang, items=items))
        if self.force_passed:
            out.append(tr(MESSAGES, "forced", lang, items=", ".join(map(str, self.force_passed))))
        if self.open_issues:
            sep = "；" if lang == "zh" else "; "
            out.append(tr(MESSAGES, "issues", lang, items=sep.join(self.open_issues)))
        if self.rebuild_hint:
            chapters = ", ".join(map(str, self.skipped_ops_chapters))
            out.append(tr(MESSAGES, "rebuild", lang, n=len(self.skipped_ops_chapters), items=chapters))
        return out


def is_brief_chapter(chapters_done_in_project: int) -> bool:
    return chapters_done_in_project > 0 and chapters_done_in_project % BRIEF_EVERY == 0


def build_brief(
    paths: ProjectPaths, last: int, *, skipped_ops_chapters: list[int] | None = None, span: int = BRIEF_EVERY
) -> QualityBrief:
    """The brief of chapters `last - span + 1 .. last` from their evaluation files."""
    first = max(1, last - span + 1)
    scores: dict[int, float] = {}
    issues: list[str] = []
    forced: list[int] = []
    for n in range(first, last + 1):
        path = paths.evaluation(n)
        if not path.is_file():
            continue
        try:
            ev = Evaluation.load(path)
        except (StudioError, OSError):
            continue
        scores[n] = ev.computed_overall()
        if ev.force_passed:
            forced.append(n)
        for fix in ev.required_fixes:
            if fix.instruction and len(issues) < MAX_ISSUES:
                issues.append(f"{n}: {fix.instruction}")
        for issue in ev.issues:
            if len(issues) < MAX_ISSUES:
                issues.append(f"{n}: {issue}")
    weakest = sorted(scores.items(), key=lambda item: (item[1], item[0]))[:WEAKEST]
    return QualityBrief(
        first=first,
        last=last,
        scores=scores,
        weakest=weakest,
        open_issues=issues,
        force_passed=forced,
        skipped_ops_chapters=list(skipped_ops_chapters or []),
    )
