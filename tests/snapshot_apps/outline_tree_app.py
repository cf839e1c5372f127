"""Snapshot app: the outline tree of the sample novel, cursor on chapter 2 (`build(lang)`)."""

from __future__ import annotations

from snapshot_data import sample_project
from textual.app import App, ComposeResult

from studio.i18n import Lang
from studio.views.outline_rows import build_outline_rows
from widgets.outline_tree import OutlineTree


class OutlineTreeApp(App[None]):
    def __init__(self, lang: Lang = "zh") -> None:
        super().__init__()
        self.lang: Lang = lang

    def compose(self) -> ComposeResult:
        yield OutlineTree(build_outline_rows(sample_project(), needs_rebuild=set()), lang=self.lang, id="outline")

    def on_mount(self) -> None:
        self.query_one(OutlineTree).select_chapter(2)


def build(lang: Lang = "zh") -> OutlineTreeApp:
    return OutlineTreeApp(lang)


app = OutlineTreeApp()
if __name__ == "__main__":
    app.run()
