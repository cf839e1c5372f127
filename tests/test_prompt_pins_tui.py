"""The studio side of prompt pins (issue 9 item 8): a project without pins is pinned when the studio opens and
the author is told once; the header counts the prompts with a newer version."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.paths import ProjectPaths
from studio.prompt_pins import read_pins
from tests.test_prompt_pins import _settings_without_pins, install_newer_prompts
from tests.tui_helpers import main_screen, make_app, notes, wait_for


async def test_the_studio_pins_a_project_without_pins_and_says_it_once(sample: Path) -> None:
    _settings_without_pins(sample)
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        assert await wait_for(pilot, lambda: "首次固定了提示词版本" in notes(app))
    assert read_pins(ProjectPaths(sample))
    again = make_app(sample)
    async with again.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        await wait_for(pilot, lambda: main_screen(again).is_mounted)
        await pilot.pause(0.2)
        assert "首次固定了提示词版本" not in notes(again)


async def test_the_header_counts_prompts_with_a_newer_version(
    sample: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from studio import prompt_pins

    assert read_pins(ProjectPaths(sample)) is not None  # the sample was pinned at init, before v2 exists
    install_newer_prompts(tmp_path, monkeypatch)
    assert prompt_pins.PROMPTS_FOLDER is not None  # the header reads the same copy as the registry
    app = make_app(sample)
    async with app.run_test(size=(200, 48)) as pilot:
        assert await wait_for(pilot, lambda: main_screen(app).is_mounted)
        header = main_screen(app).header
        assert header.info.prompt_updates == 1
        assert "提示词可升级 1" in header.plain()
