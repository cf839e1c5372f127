"""The end-of-volume question: the run stopped at the volume's last chapter (VOL_REVIEW); what next?

The dialog offers the volume review (卷末回顾: the report, the model's suggestions for the next volume, the state
clean-up; `studio.tui.volume_review_flow`, which then offers to plan the next volume) or exporting the volume.
"""

from __future__ import annotations

from pipeline.brief import QualityBrief
from pipeline.decisions import Option, Question, QuestionKind
from studio.i18n import Catalog, Lang, tr
from studio.project import Project
from studio.views.scores import chapter_scores

MESSAGES: Catalog = {
    "title": ("第 {volume} 卷写完了", "Volume {volume} is finished"),
    "range": ("本卷：第 {first}-{last} 章，共 {count} 章已提交", "This volume: chapters {first}-{last}, {count} committed"),
    "average": ("本卷均分 {avg:.2f}", "Volume average {avg:.2f}"),
    "next": (
        "先做卷末回顾（本卷报告、下一卷建议、状态清理），再进入下一卷的卷规划",
        "Review the volume first (report, suggestions for the next volume, state clean-up), then plan the next "
        "volume",
    ),
    "review": ("卷末回顾", "Review this volume"),
    "export": ("导出本卷", "Export this volume"),
    "later": ("稍后再说", "Later"),
}


def volume_chapters(project: Project, volume: int) -> list[int]:
    """The committed chapters of `volume` (its outline's range; all committed ones without an outline)."""
    committed = project.committed_chapters()
    outline = project.outline
    if outline is None or outline.chapter_range is None:
        return committed
    first, last = outline.chapter_range
    return [n for n in committed if first <= n <= last]


def volume_end_question(project: Project, volume: int, brief: QualityBrief | None, lang: Lang) -> Question:
    chapters = volume_chapters(project, volume)
    facts: list[str] = []
    if chapters:
        facts.append(tr(MESSAGES, "range", lang, first=chapters[0], last=chapters[-1], count=len(chapters)))
        scores = chapter_scores(project)
        values = [scores[n].overall for n in chapters if n in scores]
        if values:
            facts.append(tr(MESSAGES, "average", lang, avg=sum(values) / len(values)))
    if brief is not None:
        facts.extend(brief.lines(lang))
    facts.append(tr(MESSAGES, "next", lang))
    return Question(
        kind=QuestionKind.VOLUME_END,
        chapter=chapters[-1] if chapters else None,
        title_zh=tr(MESSAGES, "title", "zh", volume=volume),
        title_en=tr(MESSAGES, "title", "en", volume=volume),
        facts=facts,
        options=[
            Option("review", MESSAGES["review"][0], MESSAGES["review"][1]),
            Option("export", MESSAGES["export"][0], MESSAGES["export"][1]),
            Option("later", MESSAGES["later"][0], MESSAGES["later"][1]),
        ],
        # Enter and escape close the dialog: the review calls the model, so it is chosen, never defaulted into
        recommended="later",
        data={"escape": "later", "chapters": chapters},
    )
