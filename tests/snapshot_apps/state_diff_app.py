"""Snapshot app: the state diff of the sample novel's chapter 2."""

from __future__ import annotations

from snapshot_data import sample_project
from textual.app import App, ComposeResult

from studio.views.state_diff import state_diff_for_chapter
from widgets.state_diff_view import StateDiffView


class StateDiffApp(App[None]):
    def compose(self) -> ComposeResult:
        yield StateDiffView(state_diff_for_chapter(sample_project(), 2), id="diff")


app = StateDiffApp()
if __name__ == "__main__":
    app.run()
