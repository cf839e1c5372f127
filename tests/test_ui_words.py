"""Issue 12 item 4, the words around the figures: the Chinese state diff shows the Chinese UI's arrow `→` (English
keeps `->`) and its values in Chinese (是/否, （空）), and every token total says `tokens`, abbreviated by one rule
per language, in the studio's header and in `status` alike (no `tok`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pipeline.planning.quick_start import trial_question
from screens.decision_dialog import DecisionDialog
from studio.checks.finding_text import written_in
from studio.checks.findings_list import finding_label
from studio.i18n import Lang, format_tokens
from studio.init_project import init_project
from studio.models.findings import Finding
from studio.paths import ProjectPaths
from studio.planning.review_report import build_review, render_review
from studio.project import Project
from studio.status import build_status
from studio.status_text import render_data
from studio.views.state_diff import FieldChange, format_value, state_diff_for_chapter
from tests.snapshot_apps.screens_app import snapshot_sample
from widgets.state_diff_view import render_state_diff
from widgets.studio_header import HeaderInfo, render_header


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return init_project(tmp_path / "sample", sample=True)


def test_the_chinese_state_diff_has_no_ascii_arrow(sample: Path) -> None:
    diff = state_diff_for_chapter(Project.open(sample), 2)
    pane = render_state_diff(diff, "zh").plain
    assert "->" not in pane and "状态版本 1 → 2" in pane and "情绪：惊魂未定 → 将信将疑" in pane, pane
    assert "关系·许青禾：0 → 10 (+10)" in pane, pane
    assert diff is not None and "->" not in diff.render("zh")
    english = render_state_diff(diff, "en").plain
    assert "version 1 -> 2" in english and "mood: 惊魂未定 -> 将信将疑" in english, english


@pytest.mark.parametrize(("lang", "words"), [("zh", ("是", "否", "（空）")), ("en", ("yes", "no", "(empty)"))])
def test_state_values_are_in_the_ui_language(lang: Lang, words: tuple[str, str, str]) -> None:
    assert (format_value(True, lang), format_value(False, lang), format_value("", lang)) == words
    assert format_value([], lang) == words[2]
    change = FieldChange(path="sealed", op="set", before=False, after=True)
    arrow = " → " if lang == "zh" else " -> "
    assert change.change_text(lang) == f"{words[1]}{arrow}{words[0]}"


@pytest.mark.parametrize(("n", "zh", "en"), [
    (0, "0", "0"),
    (9999, "9999", "9999"),
    (12_345, "1.2万", "12.3k"),
    (2_345_678, "234.6万", "2.35M"),
    (123_456_789, "1.23亿", "123.46M"),
])
def test_token_totals_follow_one_rule_per_language(n: int, zh: str, en: str) -> None:
    assert (format_tokens(n, "zh"), format_tokens(n, "en")) == (zh, en)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_header_says_tokens_as_status_does(sample: Path, lang: Lang) -> None:
    info = HeaderInfo(title="雾港守灯人", run_tokens=12_345, project_tokens=2_345_678, project_cost=1.5)
    for width in (78, 158):
        header = render_header(info, lang, width=width).plain
        assert " tok " not in header and "tokens" in header, header
        assert f"{format_tokens(12_345, lang)} tokens" in header, header
        assert f"{format_tokens(2_345_678, lang)} tokens" in header, header
    data = build_status(Project.open(sample)).model_dump(mode="json")
    data.update(input_tokens=2_345_678, output_tokens=12_345)
    cost = next(line for line in render_data(data, lang).splitlines() if "$" in line)
    if lang == "zh":
        assert "输入 234.6万 tokens · 输出 1.2万 tokens" in cost, cost
    else:
        assert "2.35M input tokens · 12.3k output tokens" in cost, cost


# ---------------------------------------------------------------------------------------------- saved findings

_CJK = re.compile(r"[\u4e00-\u9fff]")


def test_a_message_s_language_is_judged_without_its_quotes() -> None:
    assert written_in("疑似人名写错：许清禾 → 许青禾", ("许清禾", "许青禾")) == "zh"
    assert written_in("possible name typo: 许清禾 -> 许青禾 (3 times)", ("许清禾", "许青禾")) == "en"
    assert written_in("“他深吸一口气，缓缓说道” repeats", ("他深吸一口气，缓缓说道",)) == "en"
    assert written_in("AI 腔黑名单词（限用，本章 2 次）") == "zh"


def test_the_english_volume_review_names_saved_chinese_findings_in_english(tmp_path: Path) -> None:
    """The sample's findings were saved by a Chinese run; the English review says what they are in English and
    keeps only the chapter's own words (the quoted text) in Chinese."""
    review = build_review(Project.open(snapshot_sample(tmp_path / "novel")), 1)
    english = render_review(review, "en")
    rows = english.split("## Check findings", 1)[1].split("##", 1)[0].strip().splitlines()[1:]
    assert len(rows) == 5, rows
    assert "- Ch 2 · high · name typo: 许清禾 -> 许青禾" in rows
    assert "- Ch 1 · low · punctuation: , -> ， (3 times)" in rows  # the count the Chinese message states
    for row, finding in zip(rows, review.findings, strict=True):
        left = row.replace(finding.quote, "").replace(finding.suggestion or "", "")
        assert not _CJK.search(left), row
    chinese = render_review(review, "zh")
    assert "- 第2章 · 高 · 疑似人名写错：许清禾 → 许青禾" in chinese  # as the check wrote it


def test_the_findings_list_shows_a_finding_in_the_ui_language() -> None:
    chinese = Finding(kind="name_variant", chapter=2, text="许清禾", suggestion="许青禾", severity="high",
                      paragraph=3, message="疑似人名写错：许清禾 → 许青禾")
    assert finding_label(chinese, "zh") == "第2章 · 第3段 · 高 · 疑似人名写错：许清禾 → 许青禾"
    assert finding_label(chinese, "en") == "Ch 2 · para 3 · high · name typo: 许清禾 -> 许青禾"
    english = Finding(kind="punctuation", chapter=1, text=",", suggestion="，",
                      message="a half-width comma in a Chinese sentence")
    assert finding_label(english, "en").endswith("a half-width comma in a Chinese sentence")
    assert finding_label(english, "zh") == "第1章 · 低 · 标点：, → ，"
    bare = Finding(kind="brand_new_check", chapter=1, text="某处")
    assert finding_label(bare, "zh") == "第1章 · 低 · brand_new_check：某处"


# ---------------------------------------------------------------------------------------------- the trial question


@pytest.mark.parametrize(("lang", "start"), [("zh", "试写的第 1-3 章已完成"), ("en", "Trial chapters 1-3 are written")])
def test_the_trial_dialog_title_names_the_three_chapters_in_the_ui_language(
    tmp_path: Path, lang: Lang, start: str
) -> None:
    """It said "Chapter 3 · The three trial chapters ..." (and "第 3 章 · ..."): the question is on all three."""
    question = trial_question(ProjectPaths(snapshot_sample(tmp_path / "novel")))
    title = DecisionDialog(question, lang).title_text
    assert title.startswith(start), title
    assert "·" not in title and (lang == "zh" or not _CJK.search(title)), title
