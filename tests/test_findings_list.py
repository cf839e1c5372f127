"""The studio's findings list: labels, where a finding sits in the chapter text, the saved and the fresh lists,
and in the studio: `f` lists them and enter jumps to the finding in the chapter text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from screens.findings_screen import FindingsScreen
from screens.main_screen import MainScreen
from studio.checks.findings_list import finding_label, fresh_findings, saved_findings, text_location
from studio.models.findings import ChecksReport, Finding
from studio.paths import ProjectPaths
from studio.project import Project
from tests.tui_helpers import main_screen, make_app

TEXT = "# 第3章 雾\n\n　　沈照推门。\n\n　　许青禾站在门口，低声道：“跟我来。”\n"


def test_labels_and_locations() -> None:
    f = Finding(kind="storyline_leak", chapter=3, text="许青禾", severity="high", paragraph=2, offset=0, message="串线")
    assert finding_label(f) == "第3章 · 第2段 · 高 · 串线"
    assert finding_label(Finding(kind="x", severity="info", text="t"), "en") == "book · info · x: t"
    assert text_location(TEXT, f) == (4, 2)  # the fifth line, after the two full-width spaces
    moved = "# 第3章 雾\n\n　　新加的一段。\n\n" + TEXT.split("\n\n", 1)[1]
    assert text_location(moved, f) == (6, 2)  # paragraph 2 is another one now: found by its text
    assert text_location(TEXT, Finding(kind="x", chapter=3)) is None
    assert text_location("", f) is None


def test_saved_findings_skip_broken_reports_and_put_the_severe_first(sample: Path) -> None:
    paths = ProjectPaths(sample)
    ChecksReport(findings=[Finding(kind="a", chapter=1, severity="low", paragraph=3)]).save(paths.checks_log(1))
    ChecksReport(findings=[Finding(kind="b", chapter=2, severity="high", paragraph=9)]).save(paths.checks_log(2))
    paths.checks_log(3).parent.mkdir(parents=True, exist_ok=True)
    paths.checks_log(3).write_text("{broken", encoding="utf-8")
    assert [f.kind for f in saved_findings(paths, [1, 2, 3, 4])] == ["b", "a"]


def test_fresh_findings_run_the_cheap_checks(sample: Path) -> None:
    chapter = ProjectPaths(sample).chapter(1)
    chapter.write_text(chapter.read_text(encoding="utf-8") + "\n\n她眉头微皱，没有说话。\n", encoding="utf-8")
    found = fresh_findings(Project.open(sample))
    assert {f.kind for f in found} >= {"blacklist"} and "new_name" not in {f.kind for f in found}


async def wait_for(pilot: Any, predicate: Any, *, limit: int = 300) -> None:
    for _ in range(limit):
        if predicate():
            return
        await pilot.pause(0.02)
    raise AssertionError("condition not reached")


async def test_f_lists_the_findings_and_enter_jumps_to_one(sample: Path) -> None:
    paths = ProjectPaths(sample)
    text = paths.chapter(1).read_text(encoding="utf-8")
    target = "二十八块"  # in the middle of chapter 1
    pos = text.index(target)
    from studio.checks.paragraphs import Paragraphs

    paragraph, offset = Paragraphs(text).locate(pos) or (0, 0)
    finding = Finding(kind="continuity_item", chapter=1, text=target, severity="medium", paragraph=paragraph,
                      offset=offset, message="物品已易手")
    ChecksReport(findings=[finding]).save(paths.checks_log(1))
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        assert screen.selected == 2
        await pilot.press("f")
        await pilot.pause()
        listing = app.screen
        assert isinstance(listing, FindingsScreen)
        await wait_for(pilot, lambda: listing.loads > 0)
        assert listing.findings == [finding]
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen) and screen.selected == 1)
        row, column = text.count("\n", 0, pos), pos - text.rfind("\n", 0, pos) - 1
        area = screen.chapter_view.text_area
        await wait_for(pilot, lambda: area.selected_text == target)
        view = screen.chapter_view  # the pane shows the text typeset (heading dropped): map the file's place
        assert (area.selection.start, area.selection.end) == (
            view.display_row(row + 1, column), view.display_row(row + 1, column + len(target))
        )


def test_a_finding_shown_in_the_other_language_keeps_its_count() -> None:
    """A Chinese message says how often (`本章 3 次`); the English view of it gave the kind and the text only."""
    saved = Finding(kind="blacklist", chapter=1, text="嘴角微微上扬", count=3, severity="medium",
                    message="「嘴角微微上扬」在 AI 腔黑名单中（禁用，本章 3 次）")
    assert finding_label(saved, "en") == "Ch 1 · medium · blacklisted phrase: 嘴角微微上扬 (3 times)"
    english = saved.model_copy(update={"message": "'嘴角微微上扬' is on the AI-phrase blacklist (3 in this chapter)",
                                       "count": 1234})
    assert finding_label(english, "zh") == "第1章 · 中 · AI 腔黑名单：嘴角微微上扬（1234 次）"
    assert finding_label(english, "en").endswith("(3 in this chapter)")  # its own language: as it was written
    once = saved.model_copy(update={"count": 1})
    assert finding_label(once, "en").endswith("blacklisted phrase: 嘴角微微上扬")  # once: no count to state
