"""The volume review screen shows its title once (issue 12): the report's own `#` heading, with the chapter range,
is the title line; the Markdown body starts under it. A report without a heading gets "第 N 卷回顾"."""

from __future__ import annotations

from pathlib import Path

import pytest

from screens.review_screen import VolumeReviewScreen
from studio.i18n import Lang
from studio.planning.review_report import build_review, render_review
from studio.project import Project
from tests.snapshot_apps.dialogs_app import HostApp
from tests.snapshot_apps.screens_app import snapshot_sample
from widgets import compat


@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_the_title_shows_once(tmp_path: Path, lang: Lang) -> None:
    report = render_review(build_review(Project.open(snapshot_sample(tmp_path / "novel")), 1), lang)
    heading = report.lstrip().splitlines()[0].lstrip("# ").strip()
    assert heading  # the report starts with its title
    app = HostApp(lambda: VolumeReviewScreen(report, lang, volume=1, next_volume=2))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        lines = compat.screen_lines(app.screen)
        title = "第 1 卷回顾" if lang == "zh" else "Review of volume 1"
        with_title = [line for line in lines if title in line]
        assert len(with_title) == 1, "\n".join(lines)
        assert heading in with_title[0]
        assert lines.index(with_title[0]) <= 3  # it is the box's title line, not a heading inside the body


async def test_a_report_without_heading_gets_the_screen_title() -> None:
    app = HostApp(lambda: VolumeReviewScreen("- 第1章 子时送单：2725字", "zh", volume=3))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        lines = compat.screen_lines(app.screen)
        assert sum("第 3 卷回顾" in line for line in lines) == 1
        assert any("子时送单" in line for line in lines)
