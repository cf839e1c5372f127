"""The CLI's help and usage errors in the UI's language (issue 12 item 4): argparse's own words too (用法, 选项,
-h) in Chinese, no Chinese in the English help but the values an author types (tone presets), the studio's step
names instead of the pipeline's agents (PlotArchitect, CharacterWeaver), and Chinese help wrapped to the
terminal's width in cells without breaking a word or starting a line with a closing mark."""

from __future__ import annotations

import re

import pytest

from studio.cli.common import wrap_cells
from studio.cli.main import main
from studio.cli.prompt_cmd import ALIASES
from studio.i18n import Lang
from studio.i18n_names import stage_name, state_name
from studio.models.quick_start import TONE_PRESETS

COMMANDS = [
    ["init"], ["status"], ["demo"], ["continue"], ["plan"], ["start"], ["review"], ["undo"], ["rebuild"],
    ["repair"], ["export"], ["serve"], ["check"], ["prompt"], ["prompts"], ["prompts", "upgrade"], ["character"],
    ["character", "add"], ["character", "update"], ["world", "rule", "add"], ["import"], ["extract"],
    ["blacklist"], ["blacklist", "add"], [],
]
ARGPARSE_WORDS = re.compile(r"usage:|options:|positional arguments|show this help message|error:")
AGENTS = re.compile(r"PlotArchitect|CharacterWeaver|StyleRefiner|QualityJudge|ChapterWriter")
CJK = re.compile(r"[\u4e00-\u9fff]")


def _cells(line: str) -> int:
    return sum(2 if CJK.match(ch) or ch in "，。、；：？！（）「」“”《》…" else 1 for ch in line)


def _help(argv: list[str], lang: Lang, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["--lang", lang, *argv, "--help"]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda argv: " ".join(argv) or "top")
def test_every_help_is_in_the_ui_language(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    zh = _help(argv, "zh", capsys)
    assert zh.startswith("用法：novel-studio") and "显示本帮助并退出" in zh, zh
    assert not ARGPARSE_WORDS.search(zh), zh
    assert not AGENTS.search(zh), zh
    too_wide = [line for line in zh.splitlines() if _cells(line) > 80]
    assert not too_wide, "\n".join(too_wide)
    assert not [line for line in zh.splitlines() if line.strip()[:1] in set("，。、；：）」")], zh
    en = _help(argv, "en", capsys)
    assert en.startswith("usage: novel-studio") and not AGENTS.search(en), en
    typed = "".join(TONE_PRESETS)  # the preset names are values the author types
    assert not CJK.search("".join(ch for ch in en if ch not in typed)), en


def test_the_prompt_help_names_each_step_as_the_studio_does(capsys: pytest.CaptureFixture[str]) -> None:
    for lang in ("zh", "en"):
        out = _help(["prompt"], lang, capsys)
        text = re.sub(r"\s*\n\s*", "", out) if lang == "zh" else " ".join(out.split())
        left, right = ("（", "）") if lang == "zh" else (" (", ")")
        for alias, stage in (("writer", "draft"), ("reviser", "revise"), ("summarizer", "summarize"),
                             ("refiner", "refine"), ("judge", "judge")):
            assert f"{alias}{left}{stage_name(stage, lang)}{right}" in text, text
        assert f"plot{left}{state_name('VOL_PLANNING', lang)}{right}" in text, text
        assert all(alias in text for alias in ALIASES)


@pytest.mark.parametrize(("argv", "zh"), [
    (["status", "--bogus"], "novel-studio：错误：无法识别的参数：--bogus"),
    (["continue", "x"], "novel-studio continue：错误：参数 N：无效的值 'x'（应为 int）"),
    (["character", "add"], "novel-studio character add：错误：缺少参数：NAME"),
])
def test_usage_errors_are_in_the_ui_language(
    argv: list[str], zh: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NOVEL_STUDIO_LANG", "zh")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("用法：novel-studio") and zh in err, err
    assert main(["--lang", "en", *argv]) == 2
    assert "error:" in capsys.readouterr().err


def test_chinese_wraps_by_cells_and_keeps_words_and_marks_in_place() -> None:
    lines = wrap_cells("查看某一步将要发送给模型的完整请求（不发送、不加锁）与 chapter-writer 的区别", 20)
    assert all(_cells(line) <= 20 for line in lines), lines
    assert any("chapter-writer" in line for line in lines)  # a Latin word is never cut
    assert not any(line.endswith("（") or line.startswith(("、", "）")) for line in lines), lines
    assert "".join(lines).replace(" ", "") == "查看某一步将要发送给模型的完整请求（不发送、不加锁）与chapter-writer的区别"
