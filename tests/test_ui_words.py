"""Issue 12 item 4, the words around the figures: the Chinese state diff shows the Chinese UI's arrow `→` (English
keeps `->`) and its values in Chinese (是/否, （空）), and every token total says `tokens`, abbreviated by one rule
per language, in the studio's header and in `status` alike (no `tok`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.i18n import Lang, format_tokens
from studio.init_project import init_project
from studio.project import Project
from studio.status import build_status
from studio.status_text import render_data
from studio.views.state_diff import FieldChange, format_value, state_diff_for_chapter
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
