"""Snapshot app: the state diff of the sample novel's chapter 2 (`build(lang)`)."""

from __future__ import annotations

from snapshot_data import sample_project
from textual.app import App, ComposeResult

from studio.i18n import Lang
from studio.views.state_diff import state_diff_for_chapter
from widgets.state_diff_view import StateDiffView


class StateDiffApp(App[None]):
    def __init__(self, lang: Lang = "zh") -> None:
        super().__init__()
        self.lang: Lang = lang

    def compose(self) -> ComposeResult:
        yield StateDiffView(state_diff_for_chapter(sample_project(), 2), lang=self.lang, id="diff")


def build(lang: Lang = "zh") -> StateDiffApp:
    return StateDiffApp(lang)


app = StateDiffApp()
if __name__ == "__main__":
    app.run()
