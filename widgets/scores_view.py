"""评分 / Scores pane: the 8 dimensions as bars with weights, overall and recommendation, the force-passed
mark, contract violations with confidence, risk flags, required fixes, and a sparkline of overall scores.

Renders a `studio.views.scores.ScoresModel` (built by `scores_for_chapter(project, n)` or `build_scores`).
Labels are aligned in terminal cells (`rich.cells.cell_len`); every fact is written out in text, colour only
underlines it.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text

from studio.i18n import Catalog, Lang, tr
from studio.views.scores import (
    CONFIDENCE_LABELS,
    RECOMMENDATION_LABELS,
    ScoresModel,
    format_overall,
    label,
    trend_caption,
)
from studio.views.scores import (
    MESSAGES as SCORE_MESSAGES,
)
from widgets.text_pane import TextPane

MESSAGES: Catalog = {
    "select": ("（未选择章节）", "(no chapter selected)"),
    "weight": ("×{w:.2f}", "x{w:.2f}"),
    "bullet": ("- ", "- "),
}


def score_style(score: float | None) -> str:
    if score is None:
        return "dim"
    if score >= 4.0:
        return "green"
    if score >= 3.5:
        return "cyan"
    if score >= 3.0:
        return "yellow"
    return "red"


def _score_text(score: float) -> str:
    return str(int(score)) if float(score).is_integer() else f"{score:g}"


def render_scores(model: ScoresModel, lang: Lang = "zh") -> Text:
    """The pane's content as Rich Text."""
    out = Text(end="")
    if model.is_empty:
        out.append(tr(SCORE_MESSAGES, "empty", lang), style="dim")
        out.append("\n")
    else:
        if model.chapter is not None:
            out.append(tr(SCORE_MESSAGES, "chapter", lang, n=model.chapter), style="bold")
            out.append("  ")
        out.append(
            tr(SCORE_MESSAGES, "overall", lang, overall=format_overall(model.overall)),
            style="bold " + score_style(model.overall),
        )
        if model.recommendation:
            out.append("  ")
            out.append(
                tr(SCORE_MESSAGES, "recommendation", lang, label=label(RECOMMENDATION_LABELS, model.recommendation, lang))
            )
        if model.force_passed:
            out.append("  ")
            out.append(f"[{tr(SCORE_MESSAGES, 'force_passed', lang)}]", style="bold yellow")
        out.append("\n")
        width = max(cell_len(row.label(lang)) for row in model.dimensions)
        for row in model.dimensions:
            name = row.label(lang)
            out.append(name + " " * (width - cell_len(name)))
            out.append(" " + tr(MESSAGES, "weight", lang, w=row.weight) + " ", style="dim")
            out.append(row.bar, style=score_style(row.score))
            out.append(" " + _score_text(row.score))
            out.append("\n")
        bullet = tr(MESSAGES, "bullet", lang)
        if model.violations:
            out.append(tr(SCORE_MESSAGES, "violations", lang), style="bold red")
            out.append("\n")
            for v in model.violations:
                conf = tr(SCORE_MESSAGES, "confidence", lang, label=label(CONFIDENCE_LABELS, v.confidence, lang))
                out.append("  " + bullet)
                out.append(f"[{conf}]", style="bold red" if v.confidence == "high" else "yellow")
                out.append(f" {v.id}\n")
                if v.detail:  # on its own line: Chinese has no spaces to wrap at after a prefix
                    out.append("    " + v.detail + "\n")
        else:
            out.append(tr(SCORE_MESSAGES, "no_violations", lang), style="dim")
            out.append("\n")
        if model.risk_flags:
            out.append(tr(SCORE_MESSAGES, "risk_flags", lang), style="bold yellow")
            out.append("\n")
            for flag in model.risk_flags:
                out.append("  " + bullet + flag + "\n")
        if model.required_fixes:
            out.append(tr(SCORE_MESSAGES, "required_fixes", lang), style="bold")
            out.append("\n")
            for index, fix in enumerate(model.required_fixes, start=1):
                out.append(f"  {index}. ")
                if fix.target:
                    out.append(fix.target, style="bold")
                    out.append("\n    ")
                out.append(fix.instruction + "\n")
    if model.sparkline:
        out.append(tr(SCORE_MESSAGES, "trend", lang), style="bold")
        out.append(" ")
        out.append(model.sparkline, style="cyan")
        caption = trend_caption(model, lang)
        if caption:
            out.append("\n")
            out.append(caption, style="dim")
    out.rstrip()
    return out


class ScoresView(TextPane, can_focus=True):
    """Shows one chapter's `ScoresModel`: `show_scores(model)`."""

    def __init__(
        self,
        model: ScoresModel | None = None,
        *,
        lang: Lang = "zh",
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(lang=lang, name=name, id=id, classes=classes)
        self._model = model

    def initial_body(self) -> Text:
        if self._model is not None:
            return render_scores(self._model, self.lang)
        return Text(tr(MESSAGES, "select", self.lang), style="dim")

    @property
    def model(self) -> ScoresModel | None:
        return self._model

    def show_scores(self, model: ScoresModel) -> None:
        self._model = model
        self.show_body(render_scores(model, self.lang))

    def prepare_scores(self, model: ScoresModel) -> None:
        """Wrap `model`'s pane now without showing it (`TextPane.prepare_body`): a chapter about to be selected."""
        self.prepare_body(render_scores(model, self.lang))
