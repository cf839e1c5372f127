"""Snapshots of the studio's main screen with the sample novel's Chinese text at 80x24 (tabs) and 160x48
(grid), 100x30 and in English. Regenerate on purpose with `pytest tests/test_app_snapshots.py --snapshot-update` and look at the SVGs.
Nothing shown depends on the clock (no stage runs; the header's clock is frozen) or on the temp folder."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

APPS = Path(__file__).parent / "snapshot_apps"
sys.path.insert(0, str(APPS))

from app_main import build_app  # noqa: E402


def test_main_screen_narrow(snap_compare: Any) -> None:
    assert snap_compare(build_app(), terminal_size=(80, 24))


def test_main_screen_wide(snap_compare: Any) -> None:
    assert snap_compare(build_app(), terminal_size=(160, 48))


def test_main_screen_medium(snap_compare: Any) -> None:
    """100x30, the first width with the four panes side by side: the footer's keys that do not fit give way
    whole from the right; help, quit and the palette stay."""
    assert snap_compare(build_app(), terminal_size=(100, 30))


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (160, 48)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_main_screen_en(snap_compare: Any, size: tuple[int, int]) -> None:
    """English labels are longer: more keys give way, none is cut."""
    assert snap_compare(build_app(lang="en"), terminal_size=size)


def test_main_screen_marks_line_narrow(snap_compare: Any) -> None:
    """Chapter 2 needs review: the ⚑ mark in the outline and the reasons under the chapter's title."""
    assert snap_compare(build_app(marked=True), terminal_size=(80, 24))


def test_main_screen_marks_line_wide(snap_compare: Any) -> None:
    assert snap_compare(build_app(marked=True), terminal_size=(160, 48))


def test_help_narrow(snap_compare: Any) -> None:
    """Every key of the studio at 80x24: the rows scroll, the close key stays in sight."""
    assert snap_compare(build_app(), terminal_size=(80, 24), press=["question_mark"])


def test_help_wide(snap_compare: Any) -> None:
    assert snap_compare(build_app(), terminal_size=(160, 48), press=["question_mark"])
