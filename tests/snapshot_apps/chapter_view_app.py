"""Snapshot app: chapter 1 of the sample novel in the chapter pane, titled as the main screen titles it
(`build(lang)`)."""

from __future__ import annotations

from snapshot_data import sample_project
from textual.app import App, ComposeResult

from screens.main_screen import MESSAGES as MAIN_MESSAGES
from studio.i18n import Lang, tr
from widgets.chapter_view import ChapterView


class ChapterViewApp(App[None]):
    def __init__(self, lang: Lang = "zh") -> None:
        super().__init__()
        self.lang: Lang = lang

    def compose(self) -> ComposeResult:
        yield ChapterView(lang=self.lang, id="chapter")

    def on_mount(self) -> None:
        project = sample_project()
        title = tr(MAIN_MESSAGES, "chapter_title", self.lang, n=1, title="子时送单")
        self.query_one(ChapterView).show_text(project.chapter_text(1) or "", title=title)


def build(lang: Lang = "zh") -> ChapterViewApp:
    return ChapterViewApp(lang)


app = ChapterViewApp()
if __name__ == "__main__":
    app.run()
