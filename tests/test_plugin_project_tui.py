"""The studio opens a project made by the reference plugin and writes its next chapter (issue 11)."""

from __future__ import annotations

import shutil
from pathlib import Path

from studio.models.checkpoint import Checkpoint
from tests.tui_helpers import main_screen, make_app, run_to_end

FIXTURE = Path(__file__).parent / "fixtures" / "plugin-project"


async def test_studio_writes_the_next_chapter_of_a_plugin_project(tmp_path: Path) -> None:
    root = tmp_path / "plugin-novel"
    shutil.copytree(FIXTURE, root)
    app = make_app(root)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        assert screen.project is not None and screen.project.current_volume == 1
        await pilot.press("c")
        await run_to_end(app, pilot)
    assert (root / "chapters" / "chapter-003.md").is_file()
    assert Checkpoint.load(root / ".checkpoint.json").last_completed_chapter == 3
