"""The studio side of the judge's blacklist proposals: the dialog from the command palette, approve and reject."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import OptionList

from screens.blacklist_proposals import BlacklistCommands, BlacklistProposalsDialog
from studio.blacklist_review import record_suggestions
from studio.models.blacklist import AiBlacklist
from studio.models.blacklist_proposals import BlacklistProposals, SuggestedEntry
from studio.paths import ProjectPaths
from studio.tui.app import NovelStudioApp
from tests.tui_helpers import make_app

TEXT = "她眸光微闪，没有说话。他心下一沉。\n"


async def _wait(pilot: Any, predicate: Any, *, limit: int = 300) -> None:
    for _ in range(limit):
        if predicate():
            return
        await pilot.pause(0.02)
    raise AssertionError("condition not reached")


async def test_the_dialog_approves_and_rejects_from_the_studio(sample: Path) -> None:
    paths = ProjectPaths(sample)
    suggestions = [SuggestedEntry(phrase="眸光微闪", count_in_chapter=2), SuggestedEntry(phrase="心下一沉")]
    record_suggestions(paths, AiBlacklist.load(paths.ai_blacklist), 4, TEXT, suggestions)
    # the App names the provider lazily (a callable that imports it when the palette opens): resolve it
    assert BlacklistCommands in {c if isinstance(c, type) else c() for c in NovelStudioApp.COMMANDS}
    app = make_app(sample)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        results: list[int | None] = []
        app.push_screen(BlacklistProposalsDialog(paths, "zh"), results.append)
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, BlacklistProposalsDialog)
        listing = dialog.query_one("#proposals-list", OptionList)
        assert listing.option_count == 2 and "“眸光微闪”  禁用  第 4 章  2 次" in str(listing.get_option_at_index(0).prompt)
        await pilot.press("a")
        await _wait(pilot, lambda: "眸光微闪" in AiBlacklist.load(paths.ai_blacklist).listed_words())
        await _wait(pilot, lambda: listing.option_count == 1)
        await pilot.press("r")
        await _wait(pilot, lambda: not BlacklistProposals.load(paths.blacklist_proposals).pending())
        assert "心下一沉" not in AiBlacklist.load(paths.ai_blacklist).listed_words()
        await pilot.press("escape")
        await _wait(pilot, lambda: results == [2])
