"""Snapshot app: the scores of the sample novel's chapter 2, with a contract violation, a risk flag and the
force-passed mark added in memory so every section of the pane shows (`build(lang)`)."""

from __future__ import annotations

from snapshot_data import sample_project
from textual.app import App, ComposeResult

from studio.i18n import Lang
from studio.models.evaluation import ContractCheck, Evaluation
from studio.views.scores import build_scores, chapter_scores
from widgets.scores_view import ScoresView


def scores_model():
    project = sample_project()
    evaluation = Evaluation.load(project.paths.evaluation(2))
    evaluation.contract_verification.l2_checks.append(
        ContractCheck(id="C-XUQINGHE-002", status="violation", confidence="medium", detail="许青禾当众点灯，违背“三盏灯不点”")
    )
    evaluation.risk_flags.append("中段解释性对话偏多")
    evaluation.force_passed = True
    history = [(n, s.overall) for n, s in chapter_scores(project).items()]
    history += [(3, 3.6), (4, 4.3), (5, 3.2), (6, 4.0)]
    return build_scores(evaluation, history)


class ScoresApp(App[None]):
    def __init__(self, lang: Lang = "zh") -> None:
        super().__init__()
        self.lang: Lang = lang

    def compose(self) -> ComposeResult:
        yield ScoresView(scores_model(), lang=self.lang, id="scores")


def build(lang: Lang = "zh") -> ScoresApp:
    return ScoresApp(lang)


app = ScoresApp()
if __name__ == "__main__":
    app.run()
