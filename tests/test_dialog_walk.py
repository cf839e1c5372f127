"""Defects found walking every dialog at 80x24, 100x30 and 160x48 in both languages (issue 12): a question of
five options listed "5." with no key for it (only 1-4 were bound, and the hint said "1-4"); the project error
screen's English title had a Chinese colon; the new-novel form's multi-line fields started a column right of
the others; keys lines broke between a key and its label ("Enter" / "完成"); the snapshot host showed Textual's English "palette" key in the
Chinese UI."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.widgets import TextArea

from pipeline.decisions import Option, Question, QuestionKind
from screens.brief_form import BriefForm
from screens.decision_dialog import DecisionDialog
from screens.prompt_dialogs import fold_items
from screens.refine_review import RefineReviewScreen
from studio.i18n import Lang
from studio.tui.app import ProjectErrorScreen
from studio.tui.hunks import fold_offsets
from tests.snapshot_apps.dialogs_app import DRAFT, HostApp, sample_decisions
from widgets import compat


def _five_options() -> Question:
    return Question(
        kind=QuestionKind.GATE_LOW,
        chapter=3,
        title_zh="调整什么？",
        title_en="Adjust what?",
        facts=[],
        options=[Option(f"k{n}", f"选项{n}", f"option {n}") for n in range(1, 6)],
        recommended="k2",
    )


@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_every_numbered_option_has_its_key(lang: Lang) -> None:
    app = HostApp(lambda: DecisionDialog(_five_options(), lang))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        text = "\n".join(compat.screen_lines(app.screen))
        assert "5. " in text and "1-5" in text and "1-4" not in text
        await pilot.press("5")
        await pilot.pause()
        assert app.results == ["k5"]


@pytest.mark.parametrize(("lang", "title"), [("zh", "无法打开项目：/novel"), ("en", "Cannot open the project: /novel")])
async def test_project_error_title_and_footer_in_the_ui_language(lang: Lang, title: str) -> None:
    app = HostApp(lambda: ProjectErrorScreen(Path("/novel"), "broken", lang), lang=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        lines = compat.screen_lines(app.screen)
        assert any(title in line for line in lines), "\n".join(lines)
        assert ("命令面板" if lang == "zh" else "palette") in lines[-1]
        assert ("q 退出" if lang == "zh" else "q Quit") in lines[-1], lines[-1]  # was 退出 in English too


async def test_brief_form_fields_start_in_one_column() -> None:
    """The multi-line fields' text started one column right of the one-line fields' (TextArea's padding)."""
    app = HostApp(lambda: BriefForm("zh"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        form = app.screen
        columns = {field.content_region.x for field in form.query("Input, TextArea")}
        assert len(columns) == 1, columns
        assert form.query(TextArea)  # both kinds were compared


def _lines(text: str, offsets: list[int]) -> list[str]:
    bounds = [0, *offsets, len(text)]
    return [text[a:b].rstrip() for a, b in zip(bounds, bounds[1:], strict=False)]


def test_a_keys_line_breaks_between_its_items() -> None:
    """The refine review's keys at 80x24 broke between "Enter" and "完成"; now only between items."""
    keys = "y 接受 · n 拒绝 · a 全部接受 · d 全部拒绝 · j/k 下一处/上一处 · m 标记 · Enter 完成 · Esc 取消"
    lines = _lines(keys, fold_items(keys, 78))
    assert lines == ["y 接受 · n 拒绝 · a 全部接受 · d 全部拒绝 · j/k 下一处/上一处 · m 标记 ·", "Enter 完成 · Esc 取消"]
    assert all(cell_len(line) <= 78 for line in lines)
    # an item wider than a line still folds inside, within the width
    long = "a " + "很长" * 30 + " · b 短"
    assert all(cell_len(line) <= 20 for line in _lines(long, fold_items(long, 20)))
    assert _lines(long, fold_items(long, 20))[-1].endswith("· b 短")
    assert fold_items("no items here", 5) == fold_offsets("no items here", 5)


async def test_refine_review_keys_line_keeps_each_key_with_its_label() -> None:
    app = HostApp(lambda: RefineReviewScreen(DRAFT, sample_decisions(), "zh"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        lines = compat.screen_lines(app.screen)
        assert any(line.strip().startswith("Enter 完成") for line in lines), "\n".join(lines[-3:])
