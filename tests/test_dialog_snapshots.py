"""Snapshots (SVG) of every dialog and of the refine review screen, with Chinese text.

Regenerate on purpose with ``.venv/bin/pytest tests/test_dialog_snapshots.py --snapshot-update`` and look at the
SVGs under ``tests/__snapshots__/test_dialog_snapshots/`` before committing them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, TextArea

from screens.decision_dialog import DecisionDialog
from screens.help_screen import HelpScreen
from screens.prompt_dialogs import ConfirmDialog, GotoDialog, NumberDialog, TextDialog
from screens.refine_review import RefineReviewScreen
from tests.snapshot_apps.dialogs_app import (
    DRAFT,
    HELP_BINDINGS,
    HostApp,
    gate_question,
    interrupted_question,
    sample_decisions,
)

SnapCompare = Callable[..., bool]


async def _steady(pilot: Pilot[Any]) -> None:
    """Stop cursor blinking so the snapshot does not depend on timing."""
    await pilot.pause()
    for widget in pilot.app.screen.query("Input, TextArea"):
        if isinstance(widget, Input | TextArea):
            widget.cursor_blink = False
    await pilot.pause()


DIALOGS: dict[str, Callable[[], Screen[Any]]] = {
    "decision_gate": lambda: DecisionDialog(gate_question(), "zh"),
    "decision_interrupted_en": lambda: DecisionDialog(interrupted_question("en"), "en"),
    "confirm_quit": lambda: ConfirmDialog(
        "第 3 章正在生成，现在退出会中断这一章（可恢复）。确定退出吗？", "zh"
    ),
    "number": lambda: NumberDialog(
        20, lambda n: f"预计 {n} 章 · 约 {n * 0.42:.2f} 美元 · 约 {n * 6} 分钟", "zh", initial=3
    ),
    "text_note": lambda: TextDialog(
        "第 13 章的本章要求", "zh", initial="让林晚第一次主动开口。\n结尾留下玉佩的线索。"
    ),
    "goto": lambda: GotoDialog(range(1, 121), "zh", current=12),
    "help": lambda: HelpScreen(HELP_BINDINGS, "zh"),
}


@pytest.mark.parametrize("name", list(DIALOGS))
def test_dialog_snapshot(name: str, snap_compare: SnapCompare) -> None:
    assert snap_compare(HostApp(DIALOGS[name]), terminal_size=(80, 24), run_before=_steady)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_refine_review_snapshot(size: tuple[int, int], snap_compare: SnapCompare) -> None:
    app = HostApp(lambda: RefineReviewScreen(DRAFT, sample_decisions(), "zh", chapter=1, markers=False))
    assert snap_compare(app, terminal_size=size, press=["y"], run_before=_steady)


def test_refine_review_markers_snapshot(snap_compare: SnapCompare) -> None:
    app = HostApp(lambda: RefineReviewScreen(DRAFT, sample_decisions(), "zh", chapter=1, markers=True))
    assert snap_compare(app, terminal_size=(80, 24), press=["j"], run_before=_steady)
