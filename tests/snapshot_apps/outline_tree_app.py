"""Snapshot app: the outline tree of the sample novel, cursor on chapter 2."""

from __future__ import annotations

from snapshot_data import sample_project
from textual.app import App, ComposeResult

from studio.views.outline_rows import build_outline_rows
from widgets.outline_tree import OutlineTree


class OutlineTreeApp(App[None]):
    def compose(self) -> ComposeResult:
        yield OutlineTree(build_outline_rows(sample_project(), needs_rebuild=set()), id="outline")

    def on_mount(self) -> None:
        self.query_one(OutlineTree).select_chapter(2)


app = OutlineTreeApp()
if __name__ == "__main__":
    app.run()
