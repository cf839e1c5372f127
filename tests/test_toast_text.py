"""Toasts keep every character of Chinese text where they cross other widgets' borders (issue 12, item 3).

Before `widgets.compat.keep_toasts_whole`, the compositor cut a toast's line at every pane border under it and
a double-width character straddling such a cut became two spaces: holes in the text at 100+ columns.
"""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from widgets import compat

MESSAGE = "第三章需要复查第二章的修改可能与之矛盾林枫已经离开雾港灯塔的钥匙在老陈手里还有很多字要写下去"


class Columns(App[None]):
    """Five bordered columns side by side: borders every 26 cells at 130 columns."""

    CSS = "Static { border: round green; width: 1fr; height: 1fr; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            for i in range(5):
                yield Static(str(i))


def _toast_text(lines: list[str]) -> str:
    """The toast's text from the screen's lines: what follows its left bar, borders and padding dropped."""
    body = []
    for line in lines:
        if "▌" not in line:
            continue
        rest = line.split("▌", 1)[1].rstrip().rstrip("│").strip()
        if rest:
            body.append(rest)
    return "".join(body)


@pytest.mark.parametrize("shift", [0, 1])
async def test_toast_over_borders_loses_no_characters(shift: int) -> None:
    compat.keep_toasts_whole()
    app = Columns()
    async with app.run_test(size=(130, 30), notifications=True) as pilot:
        app.notify("x" * shift + MESSAGE, timeout=100)
        await pilot.pause()
        await pilot.pause()
        shown = _toast_text(compat.screen_lines(app.screen))
        assert shown == "x" * shift + MESSAGE


async def test_borders_outside_the_toast_stay() -> None:
    compat.keep_toasts_whole()
    app = Columns()
    async with app.run_test(size=(130, 30), notifications=True) as pilot:
        app.notify(MESSAGE, timeout=100)
        await pilot.pause()
        await pilot.pause()
        lines = compat.screen_lines(app.screen)
        assert lines[0].count("╭") == 5  # above the toast every column is drawn as before
        toast_line = next(line for line in lines if "▌" in line)
        assert toast_line.startswith("│")  # the columns left of the toast keep their borders
