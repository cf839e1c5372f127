"""Snapshots of the four panes' widgets with the sample novel's text, in Chinese and in English (labels, column
headings, the chapter's title line; the novel's text stays Chinese): each widget alone at 80x24 and 160x48, and
at the size its pane has on the 100x30 main screen (`pane100x30`: 23 columns for the state diff and the scores,
48 for the chapter), where the panes wrap. At 80x24 and wider nothing wraps (100x30 alone would repeat 80x24).
The outline at its 100x30 pane width is in the main screen's snapshots (its volume line is cut there: left to
the outline's owner). The chapter view's English
differs only in its title line: 80x24 only.

Regenerate on purpose with `pytest tests/test_widget_snapshots.py --snapshot-update` and look at the SVGs
(tests/__snapshots__/test_widget_snapshots/). Nothing shown depends on the clock: the data are the sample's
fixed files, the chapter view has no cursor to blink.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

APPS = Path(__file__).parent / "snapshot_apps"
sys.path.insert(0, str(APPS))

import chapter_view_app  # noqa: E402
import outline_tree_app  # noqa: E402
import scores_app  # noqa: E402
import state_diff_app  # noqa: E402

SIDE_PANE = (23, 26)
"""The outline's, the state diff's and the scores' pane inside its border on the 100x30 main screen (taller:
the whole content shows)."""
CHAPTER_PANE = (48, 26)


def cases(pane: tuple[int, int], langs: tuple[str, ...] = ("zh", "en")) -> list[Any]:
    sizes = {"80x24": (80, 24), "160x48": (160, 48), "pane100x30": pane}
    return [pytest.param(lang, size, id=f"{lang}-{name}") for lang in langs for name, size in sizes.items()]


CASES = cases(SIDE_PANE)


@pytest.mark.parametrize(("lang", "size"), [c for c in CASES if not c.id.endswith("pane100x30")])
def test_outline_tree_snapshot(snap_compare: Any, lang: Any, size: tuple[int, int]) -> None:
    assert snap_compare(outline_tree_app.build(lang), terminal_size=size)


@pytest.mark.parametrize(("lang", "size"), [*cases(CHAPTER_PANE, ("zh",)), pytest.param("en", (80, 24), id="en-80x24")])
def test_chapter_view_snapshot(snap_compare: Any, lang: Any, size: tuple[int, int]) -> None:
    assert snap_compare(chapter_view_app.build(lang), terminal_size=size)


@pytest.mark.parametrize(("lang", "size"), CASES)
def test_state_diff_snapshot(snap_compare: Any, lang: Any, size: tuple[int, int]) -> None:
    assert snap_compare(state_diff_app.build(lang), terminal_size=size)


@pytest.mark.parametrize(("lang", "size"), CASES)
def test_scores_snapshot(snap_compare: Any, lang: Any, size: tuple[int, int]) -> None:
    assert snap_compare(scores_app.build(lang), terminal_size=size)
