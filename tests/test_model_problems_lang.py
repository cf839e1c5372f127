"""A file that does not fit its model is reported in the author's language (issue 11): pydantic's errors by
their type (`studio.models.validation_text`), the models' own cross-reference problems (`FieldProblem`), through
the CLI's `status`, `check`, `continue` and a broken settings file; English with `--lang en`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from studio.cli.main import main
from studio.errors import FormatError
from studio.i18n import Lang
from studio.models.character import CharacterFile
from studio.models.relationships import Relationships
from studio.models.schedule import StorylineSchedule
from studio.models.storylines import Storylines
from studio.models.validation_text import ZH, error_text, problems_from
from studio.models.world_rules import WorldRules
from studio.paths import ProjectPaths
from studio.project import validate_project


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    count: int = Field(default=0, ge=1)
    kind: Literal["a", "b"] = "a"


def _errors(data: Any) -> list[Any]:
    with pytest.raises(ValidationError) as caught:
        _Strict.model_validate(data)
    return caught.value.errors()


@pytest.mark.parametrize(
    ("data", "type_", "zh"),
    [
        ({}, "missing", "缺少必填字段"),
        ({"name": 3}, "string_type", "应为文本（字符串）"),
        ({"name": "x", "count": "many"}, "int_parsing", "应为整数（这段文字无法解读为整数）"),
        ({"name": "x", "count": 0}, "greater_than_equal", "应大于或等于 1"),
        ({"name": "x", "kind": "c"}, "literal_error", "取值应为以下之一：'a' or 'b'"),
        ({"name": "x", "extra": 1}, "extra_forbidden", "不允许出现这个字段"),
    ],
)
def test_each_error_type_has_its_chinese_text_and_keeps_pydantics_english(
    data: dict[str, Any], type_: str, zh: str
) -> None:
    (err,) = _errors(data)
    assert err["type"] == type_
    assert error_text(err, "zh") == zh
    assert error_text(err, "en") == err["msg"]


def test_invalid_json_is_said_in_chinese() -> None:
    with pytest.raises(ValidationError) as caught:
        _Strict.model_validate_json('{"name": ')
    (err,) = caught.value.errors()
    assert err["type"] == "json_invalid"
    assert error_text(err, "zh").startswith("不是有效的 JSON：")


def test_an_unknown_type_falls_back_to_the_english_message() -> None:
    err = {"type": "not_a_real_type", "msg": "Something odd", "loc": ("x",)}
    assert error_text(err, "zh") == "Something odd"
    assert "not_a_real_type" not in ZH
    # a known type whose template needs a field this error lacks: English rather than a crash
    assert error_text({"type": "greater_than_equal", "msg": "Input should be >= 1", "ctx": {}}, "zh") == (
        "Input should be >= 1"
    )


def test_problems_carry_the_field_path_and_both_languages() -> None:
    with pytest.raises(ValidationError) as caught:
        CharacterFile.model_validate({"display_name": "", "contracts": [{"id": "C-1", "rule": "r",
                                                                         "valid_from_chapter": "x"}]})
    problems = problems_from(caught.value, "characters/active/a.json")
    by_path = {p.json_path: p for p in problems}
    assert set(by_path) == {"$.display_name", "$.contracts[0].valid_from_chapter"}
    short = by_path["$.display_name"]
    assert short.text("zh") == "文本太短：至少要 1 个字符"
    assert short.text("en") == "String should have at least 1 character"
    assert short.describe("zh") == "characters/active/a.json [$.display_name]：文本太短：至少要 1 个字符"


def test_an_unsafe_id_uses_the_raisers_chinese_text() -> None:
    with pytest.raises(FormatError) as caught:
        CharacterFile.parse_data({"id": "主角", "display_name": "林枫"}, "c.json")
    zh, en = caught.value.text("zh"), caught.value.text("en")
    assert "'主角' 不是合规的 slug" in zh and "Value error" not in zh and "not a slug" not in zh
    assert "character id '主角' is not a slug" in en


# ------------------------------------------------------------------------------ the models' own problems


def test_cross_reference_problems_in_both_languages() -> None:
    char = CharacterFile.parse_data({
        "id": "lu-chen", "display_name": "陆尘",
        "contracts": [{"id": "C-1", "rule": "r", "valid_from_chapter": 5, "valid_until": 3},
                      {"id": "C-1", "rule": "s"}],
    })
    texts = {p.json_path: (p.text("zh"), p.text("en")) for p in char.problems("lin-feng")}
    assert texts == {
        "$.id": ("id 'lu-chen' 与文件名 'lin-feng' 不一致", "id 'lu-chen' does not match the file name 'lin-feng'"),
        "$.contracts[0].valid_until": ("结束章节早于 valid_from_chapter", "ends before valid_from_chapter"),
        "$.contracts[1].id": ("契约 id 'C-1' 重复", "duplicate contract id 'C-1'"),
    }
    lines = Storylines.parse_data({
        "storylines": [{"id": "main", "name": "主线", "type": "romance", "status": "paused"}],
        "relationships": [{"from": "main", "to": "ghost"}],
    })
    zh = [p.text("zh") for p in lines.problems()]
    assert zh == ["未知的故事线类型 'romance'（不在 storyline_types 中）", "未知的状态 'paused'",
                  "未知的故事线 'ghost'"]
    assert [str(p) for p in lines.problems()][-1] == "$.relationships[0].to: unknown storyline 'ghost'"
    rules = WorldRules.parse_data({"rules": [{"id": "W-1", "rule": "a"}, {"id": "W-1", "rule": "b"}]})
    assert [p.text("zh") for p in rules.problems()] == ["规则 id 'W-1' 重复"]
    schedule = StorylineSchedule.parse_data({"volume": 1, "dormant_storylines": ["ghost"]})
    assert [p.text("zh") for p in schedule.problems(lines)] == ["未知的故事线 'ghost'"]
    rel = Relationships.parse_data({"relationships": [{"from": "a", "to": "a", "type": "x"}]})
    assert [p.text("zh") for p in rel.problems()] == ["角色与自己建立了关系（'a'）"]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_project_reports_cross_references_in_the_authors_language(sample: Path, lang: Lang) -> None:
    paths = ProjectPaths(sample)
    data = json.loads(paths.storylines.read_text(encoding="utf-8"))
    data["storylines"][0]["type"] = "romance"
    paths.storylines.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    (found,) = [p for p in validate_project(sample, lang=lang) if p.json_path == "$.storylines[0].type"]
    said = found.describe(lang)
    if lang == "zh":
        assert "未知的故事线类型 'romance'" in said and "unknown" not in said
    else:
        assert "unknown storyline type 'romance'" in said


# ------------------------------------------------------------------------------ through the CLI


def _break_character(root: Path) -> Path:
    """A character file with its required name gone and a chapter number written as words."""
    path = sorted((root / "characters" / "active").glob("*.json"))[0]
    data = json.loads(path.read_text(encoding="utf-8"))
    del data["display_name"]
    data["contracts"][0]["valid_from_chapter"] = "第三章"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.mark.parametrize("command", ["status", "check"])
def test_a_corrupt_file_through_the_cli_in_chinese(
    sample: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    _break_character(sample)
    assert main([command, "--project", str(sample)]) == 1
    err = capsys.readouterr().err
    assert "[$.display_name]：缺少必填字段" in err
    assert "[$.contracts[0].valid_from_chapter]：应为整数（这段文字无法解读为整数）" in err
    assert "Field required" not in err and "valid integer" not in err


def test_a_corrupt_file_through_the_cli_in_english(sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _break_character(sample)
    assert main(["status", "--project", str(sample), "--lang", "en"]) == 1
    err = capsys.readouterr().err
    assert "[$.display_name]: Field required" in err and "缺少" not in err


def test_continue_stopped_by_a_corrupt_file_says_it_in_chinese(
    sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _break_character(sample)
    main(["continue", "--project", str(sample), "--offline", "--yes"])
    out = capsys.readouterr()
    said = out.out + out.err
    assert "缺少必填字段" in said
    assert "Field required" not in said


@pytest.mark.parametrize(("lang", "said", "unsaid"), [("zh", "应为整数", "valid integer"),
                                                        ("en", "valid integer", "应为整数")])
def test_a_broken_settings_value_in_the_authors_language(
    sample: Path, capsys: pytest.CaptureFixture[str], lang: Lang, said: str, unsaid: str
) -> None:
    toml = sample / "novel-studio.toml"
    text = toml.read_text(encoding="utf-8")
    assert "\n[writing]" not in text
    toml.write_text(text + '\n[writing]\nchapter_min_chars = "很多"\n', encoding="utf-8")
    main(["status", "--project", str(sample), "--lang", lang])
    shown = capsys.readouterr().out
    assert said in shown and unsaid not in shown and "很多" in shown  # the value the author wrote is shown
    assert "[writing.chapter_min_chars]" in shown


@pytest.mark.parametrize(("lang", "said"), [("zh", "volume_length: 应大于或等于 3"),
                                            ("en", "volume_length: Input should be greater than or equal to 3")])
def test_start_options_out_of_range_in_the_authors_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: Lang, said: str
) -> None:
    code = main(["start", str(tmp_path / "novel"), "--volume-length", "1", "--style", "preset", "--preset", "x",
                 "--offline", "--yes", "--lang", lang])
    out = capsys.readouterr()
    assert code != 0 and said in out.out + out.err


@pytest.mark.parametrize(("lang", "said", "unsaid"),
                         [("zh", "：不是有效的 JSON：这里应是用双引号括起的字段名", "Expecting"),
                          ("en", ": invalid JSON: Expecting property name enclosed in double quotes", "不是有效")])
def test_a_file_that_is_not_json_in_the_authors_language(
    sample: Path, capsys: pytest.CaptureFixture[str], lang: Lang, said: str, unsaid: str
) -> None:
    path = sorted((sample / "characters" / "active").glob("*.json"))[0]
    path.write_text('{display_name: "沈照"}', encoding="utf-8")
    assert main(["status", "--project", str(sample), "--lang", lang]) == 1
    err = capsys.readouterr().err
    assert f"{path.name}:1:2{said}" in err and unsaid not in err


def test_a_file_that_is_not_utf8_in_chinese(sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = sorted((sample / "characters" / "active").glob("*.json"))[0]
    path.write_bytes(b'{"display_name": "\xff"}')
    assert main(["status", "--project", str(sample)]) == 1
    err = capsys.readouterr().err
    assert "不是 UTF-8 文本（第 18 个字节）" in err and "not UTF-8" not in err
