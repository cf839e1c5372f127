"""Character counts (字数) follow one rule per language everywhere they are shown (issue 12 item 4):
`studio.i18n.format_count` / `chars_text`. Chinese as web-novel sites show them: `2747字`, no thousands separator
below 10,000, `1.29万字` from 10,000; English `2,747 characters`.

The walk renders each place that shows a count, in both languages, from the sample novel (chapters of 2,725 and
2,747 字) or from a made-up count of 12,918, and reads the text: no `2,747字` or `2747 字` in Chinese, no bare
`2747` or 字 in English."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pipeline.agents.writer import DraftProblem
from pipeline.orchestrator import ChapterReport
from pipeline.planning.quick_start import trial_question
from screens.export_dialog import result_message
from studio.checks.matcher import Matcher
from studio.checks.names import NameRegistry
from studio.checks.prose import LengthCheck
from studio.checks.registry import ChapterText, CheckContext
from studio.cli.continue_cmd import chapter_line
from studio.export import ExportedChapter, ExportResult
from studio.i18n import Lang, chars_text, format_count
from studio.importing.preview import preview_lines
from studio.importing.source import read_source
from studio.importing.split import split_manuscript
from studio.paths import ProjectPaths
from studio.planning.review_report import build_review, render_review
from studio.project import Project
from studio.status import build_status, render_status
from studio.views.outline_rows import ChapterRow, ChapterStatus, VolumeRow
from tests.snapshot_apps.screens_app import snapshot_sample
from widgets.outline_tree import chapter_label, columns_for, volume_label

LANGS: tuple[Lang, ...] = ("zh", "en")

_ZH_BAD = re.compile(r"\d,\d{3}|\d 字|\d\s+万")  # a separator, or a space between the number and its unit
_EN_BAD = re.compile(r"(?<![\d,.])\d{4,}(?![\d,])(?!\s*(?:s\b|年))|字|万")  # an ungrouped count, or a Chinese unit


def assert_counts_follow_the_rule(text: str, lang: Lang) -> None:
    bad = (_ZH_BAD if lang == "zh" else _EN_BAD).findall(text)
    assert not bad, f"{bad} in:\n{text}"


def test_the_rule() -> None:
    assert [format_count(n, "zh") for n in (0, 7, 2747, 9999)] == ["0", "7", "2747", "9999"]
    assert [format_count(n, "zh") for n in (10_000, 12_918, 125_000, 99_999, 1_234_567)] == [
        "1万", "1.29万", "12.5万", "9.99万", "123.45万"]
    assert [format_count(n, "en") for n in (7, 2747, 12_918, 1_234_567)] == ["7", "2,747", "12,918", "1,234,567"]
    assert chars_text(2747, "zh") == "2747字"
    assert chars_text(12_918, "zh") == "1.29万字"
    assert chars_text(1, "en") == "1 character"
    assert chars_text(2747, "en") == "2,747 characters"


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return snapshot_sample(tmp_path_factory.mktemp("counts") / "novel")


@pytest.mark.parametrize("lang", LANGS)
def test_the_volume_review(sample: Path, lang: Lang) -> None:
    review = build_review(Project.open(sample), 1)
    text = render_review(review, lang)
    # the checks' findings are saved texts (in the language of the check that wrote them), not rendered here
    for finding in review.findings:
        text = text.replace(finding.text, "")
    assert_counts_follow_the_rule(text, lang)
    assert chars_text(2747, lang) in text


@pytest.mark.parametrize("lang", LANGS)
def test_status(sample: Path, lang: Lang) -> None:
    text = render_status(build_status(Project.open(sample), lang=lang), lang)
    assert_counts_follow_the_rule(text, lang)
    assert format_count(8219, lang) in text  # the three chapters: 2,725 + 2,747 + 2,747


@pytest.mark.parametrize("lang", LANGS)
def test_the_trial_confirm_facts(sample: Path, lang: Lang) -> None:
    question = trial_question(ProjectPaths(sample))
    facts = question.facts if lang == "zh" else question.data["facts_en"]
    assert isinstance(facts, list)
    text = "\n".join(str(f) for f in facts)
    assert_counts_follow_the_rule(text, lang)
    assert chars_text(2725, lang) in text


@pytest.mark.parametrize("lang", LANGS)
def test_the_outline(lang: Lang) -> None:
    chapters = [ChapterRow(1, "子时送单", 2725, 4.15, ChapterStatus.COMMITTED),
                ChapterRow(2, "守灯司的规矩", 12_918, 3.92, ChapterStatus.COMMITTED)]
    rows = [VolumeRow(1, "子时灯", chapters)]
    columns = columns_for(rows, lang)
    text = "\n".join([volume_label(rows[0], lang).plain, *(chapter_label(c, columns, lang).plain for c in chapters)])
    assert_counts_follow_the_rule(text, lang)
    assert format_count(15_643, lang) in text
    if lang == "en":  # not the cryptic 2,725c: the unit is on the volume line, the rows show the number
        head, *lines = text.splitlines()
        assert "15,643 chars" in head and "2,725 4.15" in lines[0] and not any("chars" in line for line in lines)


@pytest.mark.parametrize("lang", LANGS)
def test_the_import_preview(tmp_path: Path, lang: Lang) -> None:
    source = tmp_path / "book.txt"
    source.write_text("".join(f"第{n}章 标题{n}\n" + "字" * (2747 + n) + "\n" for n in range(1, 6)), encoding="utf-8")
    text = "\n".join(preview_lines(split_manuscript(read_source(source)), lang))
    assert_counts_follow_the_rule(text.replace(str(source), "book.txt"), lang)
    assert chars_text(13_750, lang) in text


@pytest.mark.parametrize("lang", LANGS)
def test_the_export_and_the_cli_chapter_line(tmp_path: Path, lang: Lang) -> None:
    chapters = [ExportedChapter(n, "t", 2747 + n, tmp_path / "out.txt") for n in (1, 2, 3, 4, 5)]
    exported = result_message(ExportResult(tmp_path / "out.txt", "txt", False, chapters), lang)
    line = chapter_line(ChapterReport(chapter=5, word_count=2747), lang)
    for text in (exported.replace(str(tmp_path), "tmp"), line):
        assert_counts_follow_the_rule(text, lang)
    assert chars_text(13_750, lang) in exported
    assert chars_text(2747, lang) in line


@pytest.mark.parametrize("lang", LANGS)
def test_the_length_check(lang: Lang) -> None:
    chapters = [ChapterText(1, "字" * 2747), ChapterText(2, "字" * 12_918)]
    ctx = CheckContext(chapters=chapters, registry=NameRegistry([]), blacklist=Matcher([]), min_chars=3000,
                       max_chars=12_000, lang=lang)
    messages = [f.message for f in LengthCheck().run(ctx)]
    assert len(messages) == 2
    for message in messages:
        assert_counts_follow_the_rule(message, lang)
    assert chars_text(12_918, lang) in messages[1]


@pytest.mark.parametrize("lang", LANGS)
def test_an_invalid_draft(lang: Lang) -> None:
    for problem in (DraftProblem("too_short", 120, 900), DraftProblem("too_long", 36_500, 12_000)):
        text = problem.describe(lang, min_chars=3000, max_chars=4000)
        assert_counts_follow_the_rule(text, lang)
        assert chars_text(problem.count, lang) in text and chars_text(3000 if problem.kind == "too_short" else 4000,
                                                                      lang) in text
