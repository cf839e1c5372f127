"""The CLI's help and usage errors in the UI's language (issue 12 item 4): argparse's own words too (用法, 选项,
-h) in Chinese, no Chinese in the English help but the values an author types (tone presets), the studio's step
names instead of the pipeline's agents (PlotArchitect, CharacterWeaver), and Chinese help wrapped to the
terminal's width in cells without breaking a word or starting a line with a closing mark."""

from __future__ import annotations

import argparse
import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from studio.cli.common import argparse_message, wrap_cells
from studio.cli.main import build_parser, main
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
    (["rebuild", "x"], "novel-studio rebuild：错误：参数 N：无效的值 'x'（应为整数）"),
    (["continue", "0"], "novel-studio continue：错误：参数 N：章数应为正整数：0"),
    (["continue", "x"], "novel-studio continue：错误：参数 N：章数应为正整数：x"),
    (["continue", "--max-cost", "x"], "novel-studio continue：错误：参数 --max-cost：无效的值 'x'（应为数字）"),
    (["check", "--f", "1"], "novel-studio check：错误：选项 --f 不明确，可能是：--from, --fix-punctuation, --fail-on"),
    (["status", "--json=1"], "novel-studio status：错误：参数 --json：不接受值 '1'"),
    (["world", "rule", "add", "x", "--hard", "--soft"],
     "novel-studio world rule add：错误：参数 --soft：不能与参数 --hard 同时使用"),
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


# What a Chinese help or usage error may still show in Latin letters besides the parser's own option names,
# metavars, choices and command names: values the author types (brief keys, trial answers, rule categories,
# prompt ids, a field of ai-blacklist.json), folder and file names, and names of things (API, JSON, TXT, SSH ...).
TYPED = {
    "genre", "selling_points", "protagonist", "world", "conflict", "readers", "length", "tone", "references",
    "taboos", "confirm", "adjust", "style", "character", "id", "brief", "rewrite", "restart", "k", "v", "key",
    "value", "magic_system", "geography", "society", "characters", "active", "retired", "rules", "L1", "L2",
    "W-001", "novel-studio", "toml", "http", "localhost", "textual-serve", "token", "AI", "API", "JSON", "TXT",
    "Markdown", "SSH", "N", "limited_rate", *ALIASES.values(),
}
# The author's own words in the bad command lines below, echoed back by the error.
ECHOED = {"zzz", "xx", "abc", "f"}
LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*")


def _parsers(parser: argparse.ArgumentParser, path: list[str]) -> Iterator[tuple[list[str], argparse.ArgumentParser]]:
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, [*path, name])


def _own_words(parser: argparse.ArgumentParser) -> set[str]:
    words: set[str] = set()
    for action in parser._actions:
        metavar = action.metavar if isinstance(action.metavar, str) else action.dest.upper()  # argparse's default
        names = [*action.option_strings, metavar, action.dest, *map(str, action.choices or ())]
        words.update(w for name in names for w in LATIN_WORD.findall(name))
    return words


def _bad_command_lines(path: list[str], parser: argparse.ArgumentParser) -> Iterator[list[str]]:
    """Each kind of usage error argparse has for this parser: an unknown option, a missing value, a bad choice,
    a value given to a flag, and a number that is not one (every int or float option, the first positional)."""
    yield [*path, "--zzz"]
    yield [*path, "--lang"]
    yield [*path, "--lang", "xx"]
    yield [*path, "--json=1"]
    for action in parser._actions:
        if action.type in (int, float):
            if action.option_strings:
                yield [*path, action.option_strings[-1], "abc"]
            elif action is next(a for a in parser._actions if not a.option_strings):
                yield [*path, "abc"]


def test_no_english_word_in_any_chinese_help_or_usage_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Every command and subcommand, its help and every kind of argparse usage error, in the default language:
    no Latin word the author did not type or cannot type (issue 12 item 4: argparse's "invalid int value",
    "ambiguous option", "ignored explicit argument" ... were English)."""
    monkeypatch.delenv("NOVEL_STUDIO_LANG", raising=False)
    monkeypatch.chdir(tmp_path)  # no project here: nothing sets another language
    leaks: dict[str, list[str]] = {}
    top = build_parser("zh")
    # an unknown option is reported with the top parser's usage; a help may name another command
    allowed_everywhere = TYPED | ECHOED | set(ALIASES) | _own_words(top) | {w for p, _ in _parsers(top, []) for w in p}
    command_lines = 0
    for path, parser in _parsers(top, []):
        allowed = allowed_everywhere | _own_words(parser) | set(path)
        for argv in [[*path, "--help"], *_bad_command_lines(path, parser)]:
            code = main(argv)
            command_lines += 1
            captured = capsys.readouterr()
            text = captured.out + captured.err
            assert code == (0 if argv[-1] == "--help" else 2), (argv, text)
            for word in set(LATIN_WORD.findall(text)) - allowed:
                leaks.setdefault(word, []).append(" ".join(argv))
    assert command_lines > 100
    assert not leaks, "\n".join(f"{word}: {argvs[:3]}" for word, argvs in sorted(leaks.items()))


def test_every_argparse_error_wording_has_a_chinese_form() -> None:
    """argparse's messages as Python 3.11-3.13 word them (3.12 dropped the quotes around choices)."""
    english = [
        "argument N: invalid int value: 'x'",
        "argument --max-cost: invalid float value: 'x'",
        "argument COMMAND: invalid choice: 'x' (choose from 'a', 'b')",
        "argument COMMAND: invalid choice: 'x' (choose from a, b)",
        "unrecognized arguments: --x",
        "the following arguments are required: NAME",
        "one of the arguments --a --b is required",
        "argument --lang: expected one argument",
        "argument --x: expected at most one argument",
        "argument --x: expected at least one argument",
        "argument --x: expected 2 arguments",
        "argument --json: ignored explicit argument '1'",
        "ambiguous option: --f could match --from, --fail-on",
        "argument --soft: not allowed with argument --hard",
    ]
    for message in english:
        zh = argparse_message(message, "zh")
        left = set(LATIN_WORD.findall(zh)) - {"N", "COMMAND", "NAME", "x", "a", "b", "max-cost", "lang", "json",
                                                  "soft", "hard", "from", "fail-on", "f"}
        assert not left, (message, zh)
        assert argparse_message(message, "en") == message


def _ui_strings(path: Path) -> Iterator[tuple[int, str]]:
    """The string literals of a module that are not docstrings (f-strings' literal parts included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.lineno, node.value


def test_no_chinese_text_names_a_pipeline_agent() -> None:
    """The author reads the studio's step names (起草, 卷规划 ...), never the pipeline's classes: `plan` printed
    "PlotArchitect 正在规划……" and "交给 CharacterWeaver 创建"."""
    root = Path(__file__).resolve().parent.parent
    found = [
        f"{path.relative_to(root)}:{line}: {text}"
        for package in ("studio", "pipeline", "screens", "widgets")
        for path in sorted((root / package).rglob("*.py"))
        for line, text in _ui_strings(path)
        if CJK.search(text) and AGENTS.search(text)
    ]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("argv", [["prompt", "nosuch"], ["prompts", "upgrade", "nosuch", "--yes"]])
def test_an_unknown_step_lists_each_known_name_once(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`summarizer` is both a short name and a prompt id: it was listed twice."""
    from studio.init_project import init_project

    monkeypatch.delenv("NOVEL_STUDIO_LANG", raising=False)
    root = init_project(tmp_path / "novel")
    assert main([*argv, "--project", str(root)]) == 2
    said = capsys.readouterr().err
    known = said.split("可用：", 1)[1].strip().split(", ")
    assert "summarizer" in known and len(known) == len(set(known)), said
