"""What the state engine says about a broken changelog or state is Chinese in the Chinese UI and English with
`--lang en` (issue 11): `Problem.text/describe(lang)` and `StudioError.text(lang)` render the
`studio.op_reasons.PROBLEMS` catalog; `str()` stays English for logs and older callers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.coldstart import check_cold_start
from studio.errors import FormatError, StateVersionMismatch
from studio.i18n import Lang
from studio.models.patch import StatePatch
from studio.paths import ProjectPaths
from studio.repair import plan_repair
from studio.state_engine import load_changelog, merge_patch, replay

_STALE = "characters.林枫.location"  # a display name where a slug belongs: the op no longer validates


def _stale_op_project(root: Path) -> ProjectPaths:
    """The sample novel whose second changelog line holds an op that no longer applies."""
    from studio.init_project import init_project

    init_project(root, sample=True)
    paths = ProjectPaths(root)
    lines = paths.changelog.read_text(encoding="utf-8").splitlines()
    data = json.loads(lines[1])
    data["ops"][0]["path"] = _STALE
    lines[1] = json.dumps(data, ensure_ascii=False)
    paths.changelog.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return paths


def test_a_logged_op_that_no_longer_applies_in_both_languages(tmp_path: Path) -> None:
    paths = _stale_op_project(tmp_path / "novel")
    with pytest.raises(FormatError) as caught:
        replay(load_changelog(paths.changelog))
    zh, en = caught.value.text("zh"), caught.value.text("en")
    assert "记录在案的状态操作已无法应用" in zh and "实体 id '林枫' 必须是 slug" in zh
    assert "logged op" not in zh and "must be a slug" not in zh
    assert "logged op no longer applies" in en and "entity id '林枫' must be a slug" in en
    assert "[$[1].ops]" in zh and "[$[1].ops]" in en  # where it is stays the same
    assert str(caught.value) == en  # logs keep the English text


@pytest.mark.parametrize(
    ("lang", "said", "unsaid"),
    [("zh", "记录在案的状态操作已无法应用", "logged op"), ("en", "logged op no longer applies", "记录在案")],
)
def test_undo_says_it_in_the_authors_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: Lang, said: str, unsaid: str
) -> None:
    paths = _stale_op_project(tmp_path / "novel")
    assert main(["undo", "--yes", "--project", str(paths.root), "--lang", lang]) == 1
    err = capsys.readouterr().err
    assert said in err and unsaid not in err


def test_a_torn_line_in_the_middle_in_both_languages(tmp_path: Path) -> None:
    paths = _stale_op_project(tmp_path / "novel")
    raw = paths.changelog.read_bytes().split(b"\n")
    raw[1] = raw[1][:-3] + "灯".encode()[:2] + b'"}'  # cut inside a character, not the last line
    paths.changelog.write_bytes(b"\n".join(raw))
    with pytest.raises(FormatError) as caught:
        load_changelog(paths.changelog)
    problem = caught.value.problems[0]
    assert problem.line == 2
    assert "不是 UTF-8" in problem.text("zh") and "novel-studio repair" in problem.text("zh")
    assert problem.text("en").startswith("not UTF-8 (torn or edited line?)")
    # repair cannot fix it and says why, in each language
    [cannot] = plan_repair(paths).cannot
    assert "无法自动修复" in cannot.describe("zh") and "不是 UTF-8" in cannot.describe("zh")
    assert "not UTF-8" in cannot.describe("en") and "不是" not in cannot.describe("en")
    # the cold start refuses with the same detail
    found = [f for f in check_cold_start(paths) if f.key == "changelog_invalid"]
    assert found and "不是 UTF-8" in found[0].describe("zh") and "not UTF-8" in found[0].describe("en")
    assert "不是 UTF-8" not in found[0].describe("en")


def test_a_state_behind_its_log_in_both_languages(tmp_path: Path) -> None:
    paths = ProjectPaths(tmp_path / "novel")
    for version in range(2):
        merge_patch(paths, StatePatch.model_validate(
            {"chapter": version + 1, "storyline_id": "main-arc", "base_state_version": version,
             "ops": [{"op": "set", "path": "world_state.x", "value": version}]}
        ))
    state = json.loads(paths.current_state.read_text(encoding="utf-8"))
    state["state_version"] = 0  # two versions behind the log: not an interrupted merge
    paths.current_state.write_text(json.dumps(state), encoding="utf-8")
    with pytest.raises(StateVersionMismatch) as caught:
        merge_patch(paths, StatePatch.model_validate(
            {"chapter": 3, "storyline_id": "main-arc", "base_state_version": 0, "ops": []}
        ))
    assert "结束于版本 2" in caught.value.text("zh") and "novel-studio repair" in caught.value.text("zh")
    assert "ends at 2" in caught.value.text("en") and caught.value.text("en") == str(caught.value)


def test_a_character_file_not_named_by_its_slug_in_both_languages(tmp_path: Path) -> None:
    from studio.init_project import init_project
    from studio.project import validate_project

    root = tmp_path / "novel"
    init_project(root, sample=True)
    active = ProjectPaths(root).characters_active
    (active / "Lin_Feng.json").write_bytes(sorted(active.glob("*.json"))[0].read_bytes())
    zh = [p.text("zh") for p in validate_project(root, lang="zh") if p.path == active / "Lin_Feng.json"]
    en = [p.text("en") for p in validate_project(root, lang="en") if p.path == active / "Lin_Feng.json"]
    assert "文件名 'Lin_Feng' 不是 slug 形式的 id（例如 lin-feng.json）" in zh
    assert "file name 'Lin_Feng' is not a slug id (e.g. lin-feng.json)" in en


def test_a_repeated_line_in_both_languages(tmp_path: Path) -> None:
    paths = _stale_op_project(tmp_path / "novel")
    lines = paths.changelog.read_bytes().split(b"\n")
    paths.changelog.write_bytes(b"\n".join([lines[0], lines[0], *lines[1:]]))
    with pytest.raises(FormatError) as caught:
        load_changelog(paths.changelog)
    [problem] = caught.value.problems
    assert problem.text("zh") == "第 2 行与上一行重复；请运行 novel-studio repair"
    assert problem.text("en") == "line 2 repeats the line before it; run novel-studio repair"


def test_a_dropped_character_field_op_says_pydantics_error_in_chinese() -> None:
    from studio.models.changelog import OpWarning
    from studio.models.state import CurrentState
    from studio.op_reasons import reason_text
    from studio.state_engine import apply_ops

    state = CurrentState.model_validate({"characters": {"shen-zhao": {"display_name": "沈照"}}})
    _, _, (warning,) = apply_ops(state, [{"op": "set", "path": "characters.shen-zhao.relationships", "value": "朋友"}])
    assert reason_text(warning, "zh") == "角色字段 $.characters.shen-zhao.relationships 不合规：应为对象（JSON 对象）"
    assert reason_text(warning, "en") == "$.characters.shen-zhao.relationships: Input should be a valid dictionary"
    # a line logged before `error_zh` existed still reads (its stored English reason)
    older = OpWarning(entry=warning.entry, reason=warning.reason, code=warning.code,
                      params={k: v for k, v in warning.params.items() if k != "error_zh"})
    assert reason_text(older, "zh") == warning.reason
