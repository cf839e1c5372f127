"""Snapshots of the four panes' widgets with the sample novel's Chinese text at 80x24.

Regenerate on purpose with `pytest tests/test_widget_snapshots.py --snapshot-update` and look at the SVGs
(tests/__snapshots__/test_widget_snapshots/). Nothing shown depends on the clock: the data are the sample's
fixed files, the chapter view has no cursor to blink.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

APPS = Path(__file__).parent / "snapshot_apps"


def test_outline_tree_snapshot(snap_compare: Any) -> None:
    assert snap_compare(APPS / "outline_tree_app.py", terminal_size=(80, 24))


def test_chapter_view_snapshot(snap_compare: Any) -> None:
    assert snap_compare(APPS / "chapter_view_app.py", terminal_size=(80, 24))


def test_state_diff_snapshot(snap_compare: Any) -> None:
    assert snap_compare(APPS / "state_diff_app.py", terminal_size=(80, 24))


def test_scores_snapshot(snap_compare: Any) -> None:
    assert snap_compare(APPS / "scores_app.py", terminal_size=(80, 24))
