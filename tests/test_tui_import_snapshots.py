"""Snapshots (SVG) of the import screens at 80x24 and 160x48, with Chinese text: the form, the preview (its keys
on the last lines), the names to tick.

The preview reads through an injected reader (a fixed source in memory, the real splitter and preview lines),
so nothing on screen depends on tmp_path. Regenerate on purpose with
``.venv/bin/pytest tests/test_tui_import_snapshots.py --snapshot-update`` and look at the SVGs under
``tests/__snapshots__/test_tui_import_snapshots/`` before committing them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input

from screens.import_names import ImportNamesScreen, NameRow
from screens.import_preview import ImportPreviewScreen
from screens.import_source import ImportSourceForm
from studio.importing.source import SourceFile, SourceText
from studio.tui.import_flow import ImportTarget
from tests.import_extract_helpers import book_text
from tests.snapshot_apps.dialogs_app import HostApp

SnapCompare = Callable[..., bool]
SIZES = [(80, 24), (160, 48)]
SIZE_IDS = ["80x24", "160x48"]
SOURCE = Path("/novel/下载/青云旧事.txt")
TARGET = ImportTarget(SOURCE, Path("/novel/下载/青云旧事"))


def _read(path: Path, *, lang: str = "zh") -> SourceText:
    text = "作者：某某\n\n" + book_text(40, chars=300)
    return SourceText(path=str(path), files=[SourceFile(name=path.name, text=text, encoding="gb18030")])


ROWS = [
    NameRow("林枫", "人名 · 212 次 · 首见第1章", True),
    NameRow("苏晚晴", "人名 · 150 次 · 首见第1章", True),
    NameRow("韩老七", "人名 · 98 次 · 首见第1章", True),
    NameRow("青云城", "地名/势力 · 40 次 · 首见第1章", True),
    NameRow("落霞谷", "地名/势力 · 31 次 · 首见第1章", False),
]

SCREENS: dict[str, Callable[[], Screen[Any]]] = {
    "form": lambda: ImportSourceForm(Path("/novel"), "zh"),
    "preview": lambda: ImportPreviewScreen(TARGET, "zh", read=_read),
    "preview_en": lambda: ImportPreviewScreen(TARGET, "en", read=_read),
    "names": lambda: ImportNamesScreen(ROWS, "zh"),
}


async def _steady(pilot: Pilot[Any]) -> None:
    """Wait for the preview's worker; stop cursor blinking so the snapshot does not depend on timing."""
    screen = pilot.app.screen
    for _ in range(500):
        if not isinstance(screen, ImportPreviewScreen) or (not screen.busy and screen.manuscript is not None):
            break
        await pilot.pause(0.02)
    for widget in screen.query(Input):
        widget.cursor_blink = False
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("name", list(SCREENS))
def test_import_screen_snapshot(name: str, size: tuple[int, int], snap_compare: SnapCompare) -> None:
    assert snap_compare(HostApp(SCREENS[name]), terminal_size=size, run_before=_steady)
