"""A broken TOML file (the project's novel-studio.toml, hand-edited) is reported in the UI's language (issue 12
item 4): every message `tomllib` has, with its line and column, also at the end of the file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.errors import FormatError
from studio.init_project import init_project
from studio.toml_file import parse_toml

BROKEN = [
    "a = ", "a = [1,", "a = 'x", "[a\n", "[[a]\n", "a b", "a = 1\na = 2", "a = 1 b", "= 1", "a = tru",
    'a = "\\q"', "[a]\n[a]", "a = {b = 1", 'a = "x\n"', "a = {b=1}\na.c=2", "a={b=1,b=2}", "a = 1979-12-01T25:00",
    'a = "\\ud800"', "a = [1 2]", "a = 0x", "\x01",
]
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|\([^)]*\)")


@pytest.mark.parametrize("text", BROKEN)
def test_every_tomllib_message_has_a_chinese_form_with_a_position(text: str) -> None:
    with pytest.raises(FormatError) as caught:
        parse_toml(text, Path("novel-studio.toml"))
    problem = caught.value.problems[0]
    zh, en = problem.describe("zh"), problem.describe("en")
    assert problem.line is not None and problem.column is not None, en  # "at end of document" too
    assert zh.startswith(f"novel-studio.toml:{problem.line}:{problem.column}：不是有效的 TOML："), zh
    words = re.findall(r"[A-Za-z]{2,}", QUOTED.sub("", zh.split("：", 1)[1]))
    assert set(words) <= {"TOML", "true", "false", "Unicode"}, zh
    assert en.startswith(f"novel-studio.toml:{problem.line}:{problem.column}: invalid TOML: "), en


def test_a_broken_settings_file_is_reported_in_chinese_by_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NOVEL_STUDIO_LANG", raising=False)
    root = tmp_path / "novel"
    init_project(root)
    settings = root / "novel-studio.toml"
    lines = settings.read_text(encoding="utf-8").count("\n")
    settings.write_text(settings.read_text(encoding="utf-8") + "model = \n", encoding="utf-8")
    assert main(["check", "--project", str(root)]) == 1
    err = capsys.readouterr().err
    assert f"novel-studio.toml:{lines + 1}:9：不是有效的 TOML：这里的值无效" in err, err
    assert "tomllib" not in err and "Invalid" not in err, err
