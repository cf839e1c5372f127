"""Snapshot app: chapter 1 of the sample novel in the chapter pane."""

from __future__ import annotations

from snapshot_data import sample_project
from textual.app import App, ComposeResult

from widgets.chapter_view import ChapterView


class ChapterViewApp(App[None]):
    def compose(self) -> ComposeResult:
        yield ChapterView(id="chapter")

    def on_mount(self) -> None:
        project = sample_project()
        self.query_one(ChapterView).show_text(project.chapter_text(1) or "", title="第1章 子时送单")


app = ChapterViewApp()
if __name__ == "__main__":
    app.run()
