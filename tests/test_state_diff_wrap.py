"""The state diff pane wraps English at word boundaries: no display name, slug or English word is cut between
two lines at any pane width that can hold it (the 100x30 pane's 21 cells among them). Chinese keeps `关系·许青禾`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rich.console import Console

from studio.init_project import init_project
from studio.project import Project
from studio.views.state_diff import field_label, state_diff_for_chapter
from tests.tui_helpers import make_app
from widgets.state_diff_view import StateDiffView, render_state_diff


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return init_project(tmp_path / "sample", sample=True)


def wrapped(text_width: int, lang: str, root: Path) -> tuple[str, list[str]]:
    diff = state_diff_for_chapter(Project.open(root), 2)
    text = render_state_diff(diff, "en" if lang == "en" else "zh")
    console = Console(width=text_width, legacy_windows=False)
    return text.plain, [line.plain for line in text.wrap(console, text_width)]


def whole_words(plain: str) -> list[str]:
    """The words a line break must not cut: runs of letters, digits and hyphens, and runs of CJK after `with`
    or `·` (the names of the relationships)."""
    return re.findall(r"[A-Za-z0-9][A-Za-z0-9-]*|(?<=with )[\u4e00-\u9fff]+", plain)


@pytest.mark.parametrize("width", [21, 24, 28, 36, 50])
def test_english_lines_break_between_words(sample: Path, width: int) -> None:
    plain, lines = wrapped(width, "en", sample)
    assert "relationship with 许青禾: 0 -> 10 (+10)" in plain
    for word in whole_words(plain):
        if len(word) + 2 <= width:
            assert plain.count(word) == sum(line.count(word) for line in lines), (word, lines)


def test_the_field_labels_per_language() -> None:
    names = {"xu-qinghe": "许青禾"}
    assert field_label("relationships.xu-qinghe", "zh", names) == "关系·许青禾"
    assert field_label("relationships.xu-qinghe", "en", names) == "relationship with 许青禾"
    assert field_label("relationships.chen-lao", "en") == "relationship with chen-lao"
    assert field_label("status.health", "en") == "status · health"
    assert field_label("status.health", "zh") == "状态·health"


async def test_the_english_pane_at_100x30_keeps_the_name_whole(sample: Path) -> None:
    """The real main screen: the state diff pane (21 cells wide at 100x30) shows the name on one line."""
    app = make_app(sample, lang="en")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        pane = app.screen.query_one(StateDiffView)
        inner = pane.query("#diff-body")  # a Static inside the pane, or the pane draws its text itself
        body = inner.first() if inner else pane
        for _ in range(20):
            if "许青禾" in "".join(body.render_line(y).text for y in range(body.size.height)):
                break
            await pilot.pause()
        drawn = [body.render_line(y).text.rstrip() for y in range(body.size.height)]
        assert any("许青禾:" in line for line in drawn), drawn
        assert not any(line.endswith("许青") for line in drawn), drawn


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("width", [20, 21, 36, 76])
def test_the_header_keeps_the_versions_together(sample: Path, lang: str, width: int) -> None:
    """`状态版本 1 → 2` is never broken inside (`状态版本 1` / `→ 2` at the 100x30 pane's width before)."""
    _, lines = wrapped(width, lang, sample)
    assert lines[0] == ("第2章" if lang == "zh" else "Ch 2")
    assert lines[1] == ("状态版本 1 → 2" if lang == "zh" else "version 1 -> 2")
