"""Pilot tests of the refine review screen: mixed verdicts, layouts, cancel, markers."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from screens.prompt_dialogs import ConfirmDialog, FoldedText
from screens.refine_review import RefineReviewScreen, ReviewOutcome, render_original, render_refined
from studio.tui.hunks import build_hunks
from tests.snapshot_apps.dialogs_app import DRAFT, HostApp, sample_decisions


def make_app(markers: bool | None = None) -> HostApp:
    return HostApp(lambda: RefineReviewScreen(DRAFT, sample_decisions(), "zh", chapter=1, markers=markers))


def rendered(app: HostApp, selector: str) -> str:
    widget = app.screen.query_one(selector)
    if isinstance(widget, FoldedText):
        return widget.plain
    assert isinstance(widget, Static)
    return str(widget.render())


@pytest.mark.parametrize(("size", "wide"), [((80, 24), False), ((160, 48), True)])
async def test_mixed_review_returns_accepted_and_text(size: tuple[int, int], wide: bool) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RefineReviewScreen)
        assert screen.wide is wide
        assert "第 1/4 处 · 已接受 0 · 已拒绝 0" in rendered(app, "#review-header")
        assert "1 处无法定位" in rendered(app, "#review-header")
        assert "嘴角微微上扬" in rendered(app, "#original-text")
        assert "咧了下嘴" in rendered(app, "#refined-text")
        assert "第 3 行" in rendered(app, "#review-meta") and "套话" in rendered(app, "#review-meta")
        # y on hunk 0, n on hunk 1, back with k and accept it after all, j past hunk 2, y on 3, back to 2 and n.
        await pilot.press("y", "n")
        assert "已接受 1 · 已拒绝 1" in rendered(app, "#review-header")
        await pilot.press("k")
        assert "第 2/4 处" in rendered(app, "#review-header")
        await pilot.press("y", "j")
        assert "第 4/4 处" in rendered(app, "#review-header")
        await pilot.press("y", "k", "n")
        assert "已接受 3 · 已拒绝 1" in rendered(app, "#review-header")
        await pilot.press("enter")
        await pilot.pause()
        (outcome,) = app.results
        assert isinstance(outcome, ReviewOutcome)
        assert outcome.accepted == (0, 1, 3)
        assert "咧了下嘴" in outcome.text and "说不清是什么滋味" in outcome.text
        assert "带着一股说不出的寒意" in outcome.text  # hunk 2 rejected
        assert "他笑了笑，转身走了" in outcome.text
        assert [(r["index"], r["decision"], r["by"]) for r in outcome.record] == [
            (0, "accepted", "author"),
            (1, "accepted", "author"),
            (2, "rejected", "author"),
            (3, "accepted", "author"),
        ]


async def test_accept_all_then_finish() -> None:
    """`a` accepts every hunk, also one rejected before (issue 12: a / d apply to every hunk)."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("n", "a")
        assert "已接受 4 · 已拒绝 0" in rendered(app, "#review-header")
        await pilot.press("enter")
        await pilot.pause()
        (outcome,) = app.results
        assert isinstance(outcome, ReviewOutcome)
        assert outcome.accepted == (0, 1, 2, 3)
        assert "嘴角微微上扬" not in outcome.text


async def test_reject_all_then_finish() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("y", "y", "d")
        assert "已接受 0 · 已拒绝 4" in rendered(app, "#review-header")
        await pilot.press("enter")
        await pilot.pause()
        (outcome,) = app.results
        assert isinstance(outcome, ReviewOutcome)
        assert outcome.accepted == ()


async def test_escape_asks_then_cancels() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("y", "escape")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")  # stay
        await pilot.pause()
        assert isinstance(app.screen, RefineReviewScreen) and app.results == []
        await pilot.press("escape", "y")
        await pilot.pause()
        assert app.results == [None]


async def test_resize_switches_layout() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RefineReviewScreen)
        assert not screen.wide
        await pilot.resize_terminal(120, 30)
        await pilot.pause()
        assert screen.wide


async def test_markers_toggle_and_default_follows_no_color() -> None:
    app = make_app(markers=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("j", "j")  # hunk 2: 带着[-一股说不出的-]寒意
        assert "[-" not in rendered(app, "#original-text")
        await pilot.press("m")
        assert "带着[-一股说不出的-]寒意" in rendered(app, "#original-text")
        assert "带着寒意" in rendered(app, "#refined-text")
    app = make_app()
    app.no_color = True
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "{+咧了下嘴+}" in rendered(app, "#refined-text")


def test_render_styles_changed_characters() -> None:
    hunk = build_hunks(sample_decisions(), DRAFT)[2]
    original = render_original(hunk, markers=False)
    struck = [original.plain[span.start : span.end] for span in original.spans if "strike" in str(span.style)]
    assert struck == ["一股说不出的"]
    refined = render_refined(hunk, markers=True)
    assert "{+" not in refined.plain  # nothing inserted in a pure deletion
    assert refined.plain.startswith(hunk.before)


async def test_empty_review_finishes_with_the_draft() -> None:
    app = HostApp(lambda: RefineReviewScreen(DRAFT, [], "en"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "No edits to review" in rendered(app, "#review-meta")
        await pilot.press("y", "enter")
        await pilot.pause()
        assert app.results == [ReviewOutcome(accepted=(), text=DRAFT, record=[])]
