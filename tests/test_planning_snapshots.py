"""Snapshots (SVG) of the planning screens at 80x24 and 160x48, with Chinese text: the plan-approval screen,
the re-plan note dialog, the brief form, the style choice and the welcome screen with the new-novel path.

Regenerate on purpose with ``.venv/bin/pytest tests/test_planning_snapshots.py --snapshot-update`` and look at
the SVGs under ``tests/__snapshots__/test_planning_snapshots/`` before committing them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, TextArea

from screens.brief_form import BriefForm
from screens.plan_approval import PlanApprovalScreen, PlanNoteDialog
from screens.style_choice import StyleChoice
from screens.welcome_screen import WelcomeScreen
from studio.models.quick_start import QuickStartRequest
from studio.tui.new_novel import BriefAnswers
from tests.snapshot_apps.dialogs_app import HostApp
from tests.snapshot_apps.planning_app import DIFF, NAMES, plan_question

SnapCompare = Callable[..., bool]
SIZES = [(80, 24), (160, 48)]
SIZE_IDS = ["80x24", "160x48"]
FIXED = Path("/novel/雾港")  # shown on screen: a fixed path, so the snapshot does not depend on tmp_path

BRIEF = BriefAnswers(
    title="雾港守灯人",
    answers={"genre": "都市悬疑", "protagonist": "林雾，十九岁，接手失踪父亲的灯塔", "tone": "冷峻克制，偶有幽默"},
    volume_length=30,
)


async def _steady(pilot: Pilot[Any]) -> None:
    """Stop cursor blinking so the snapshot does not depend on timing."""
    await pilot.pause()
    for widget in pilot.app.screen.query("Input, TextArea"):
        if isinstance(widget, Input | TextArea):
            widget.cursor_blink = False
    await pilot.pause()


SCREENS: dict[str, Callable[[], Screen[Any]]] = {
    "approval": lambda: PlanApprovalScreen(plan_question(diff=DIFF), "zh", names=NAMES),
    "approval_en": lambda: PlanApprovalScreen(plan_question(), "en", names=NAMES),
    "brief_form": lambda: BriefForm("zh", initial=BRIEF),
    "style_preset": lambda: StyleChoice(
        FIXED, "zh", initial=QuickStartRequest(style_source="preset", preset="冷峻悬疑")
    ),
    "style_samples": lambda: StyleChoice(
        FIXED,
        "zh",
        initial=QuickStartRequest(
            style_source="samples", sample_paths=["/novel/旧作/第一章.txt", "/novel/旧作/第二章.txt"]
        ),
    ),
    "welcome": lambda: WelcomeScreen(FIXED, "zh"),
}


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("name", list(SCREENS))
def test_planning_screen_snapshot(name: str, size: tuple[int, int], snap_compare: SnapCompare) -> None:
    assert snap_compare(HostApp(SCREENS[name]), terminal_size=size, run_before=_steady)


def test_note_dialog_snapshot(snap_compare: SnapCompare) -> None:
    app = HostApp(lambda: PlanNoteDialog("zh", initial="第 5 章之前让周老的旧账浮出水面；节奏放慢。"))
    assert snap_compare(app, terminal_size=(80, 24), run_before=_steady)


def test_approval_scrolled_snapshot(snap_compare: SnapCompare) -> None:
    app = HostApp(lambda: PlanApprovalScreen(plan_question(), "zh", names=NAMES))
    assert snap_compare(app, terminal_size=(80, 24), press=["pagedown"], run_before=_steady)
