"""The full `status` report reads the settings through their record (`studio.validated_files.SettingsRecord`):
once the settings loaded without a problem under the same files, variables and code, a later full report
builds none of the settings' models (nor imports `studio.config`), and prints exactly what a run without any
record or memo prints (zh, en, `--json`); a settings file changed after the record is validated again, so a
broken one is still reported."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from studio.init_project import init_project
from studio.paths import ProjectPaths
from studio.status_memo import MEMO_FILE, cache_file
from studio.validated_files import SETTINGS_RECORD
from tests.status_child import ChildInfo, status_child

VARIANTS: tuple[tuple[str, ...], ...] = ((), ("--lang", "en"), ("--json",))


def _state_changed(paths: ProjectPaths) -> None:
    """The state file rewritten (same bytes, a new mtime): the full report, not the memo or the kept report."""
    path = paths.current_state
    path.write_bytes(path.read_bytes())


def _settings_models(info: ChildInfo) -> list[str]:
    return [m for m in info["models"] if m.startswith("studio.models.settings:")]


def _forget(root: Path) -> None:
    cache_file(root, MEMO_FILE).unlink(missing_ok=True)
    cache_file(root, SETTINGS_RECORD).unlink(missing_ok=True)


def test_recorded_settings_build_no_settings_model_and_print_the_same(tmp_path: Path) -> None:
    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)
    text = paths.settings.read_text(encoding="utf-8")
    paths.settings.write_text(text.replace("# [ui]\n# lang = \"zh\"", "[ui]\nlang = \"en\"", 1), encoding="utf-8")
    loaded = [status_child(root, *extra)[1]["config"] for extra in VARIANTS]
    assert loaded == [True, False, False]  # the first full run loads the settings and records them
    _state_changed(paths)
    lights = []
    for extra in VARIANTS:
        out, info = status_child(root, *extra)
        assert info["rc"] == 0 and info["config"] is False and _settings_models(info) == [], extra
        lights.append(out)
    assert "Words:" in lights[0]  # the settings' language (en) without loading them: from the record
    _state_changed(paths)
    for extra, light in zip(VARIANTS, lights, strict=True):
        _forget(root)
        out, info = status_child(root, *extra)
        assert info["config"] is True and _settings_models(info) != []
        assert out == light, extra  # what a run without any record or memo prints


def test_a_settings_change_after_the_record_is_validated_again(tmp_path: Path) -> None:
    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)
    status_child(root, "--lang", "en")
    _state_changed(paths)
    _, info = status_child(root, "--lang", "en")
    assert info["config"] is False  # recorded
    paths.settings.write_text(paths.settings.read_text(encoding="utf-8") + "\n[provider\n", encoding="utf-8")
    broken, info = status_child(root, "--lang", "en")
    assert info["config"] is True
    assert "continue would refuse" in broken and "novel-studio.toml" in broken
    _forget(root)
    assert status_child(root, "--lang", "en")[0] == broken


def test_the_environment_is_part_of_the_settings_record(tmp_path: Path) -> None:
    """NOVEL_STUDIO_* variables change the effective settings: another value is loaded again, never answered
    from the record of the old one."""
    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)
    status_child(root)
    _state_changed(paths)
    zh, info = status_child(root)
    assert info["config"] is False and "字数" in zh
    _state_changed(paths)
    broken, info = status_child(root, env={"NOVEL_STUDIO_TIMEOUT": "soon"})
    assert info["config"] is True and "NOVEL_STUDIO_TIMEOUT" in broken
    _state_changed(paths)
    en, info = status_child(root, env={"NOVEL_STUDIO_LANG": "en"})
    assert "Words:" in en


# ---------------------------------------------------------------------------------------------- report parts

FULL_REPORT_MODELS = 23  # 49 before the records and kept parts
UNCHANGED_BY_A_COMMIT = ("studio.models.settings:", "studio.models.storylines:", "studio.models.schedule:",
                         "studio.models.blacklist:", "studio.outline:")


def test_a_full_report_builds_no_model_of_the_files_a_commit_leaves_alone(tmp_path: Path) -> None:
    """Storylines, schedule, blacklist, outline and settings recorded as valid, their parts of the report kept
    (`studio.status.ReportParts`): the full report builds none of their models, and prints what a run without
    any record, kept part or memo prints."""
    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)
    status_child(root)  # records, kept parts
    outputs = []
    for extra in VARIANTS:
        _state_changed(paths)
        out, info = status_child(root, *extra)
        models = info["models"]
        assert isinstance(models, list)
        assert [m for m in models if m.startswith(UNCHANGED_BY_A_COMMIT)] == [], extra
        assert len(models) <= FULL_REPORT_MODELS, models  # the report's own 9, the files a commit changes, the lock
        outputs.append(out)
    for extra, out in zip(VARIANTS, outputs, strict=True):
        _state_changed(paths)
        _forget_all(root)
        assert status_child(root, *extra)[0] == out, extra


def _forget_all(root: Path) -> None:
    from studio.status import PARTS_CACHE
    from studio.validated_files import RECORDS_FILE

    _forget(root)
    cache_file(root, RECORDS_FILE).unlink(missing_ok=True)
    cache_file(root, PARTS_CACHE).unlink(missing_ok=True)


def _edit_json(path: Path, edit: Callable[[dict[str, Any]], object]) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")


def _rename_storyline(paths: ProjectPaths) -> None:
    _edit_json(paths.storylines, lambda d: d["storylines"][0].update(name="新的主线名"))


def _category_only_word(paths: ProjectPaths) -> None:
    _edit_json(paths.ai_blacklist, lambda d: d["categories"].update({"新类": {"words": ["只在分类里的词"]}}))


def _outline_grows(paths: ProjectPaths) -> None:
    path = paths.outline(1)
    path.write_text(path.read_text(encoding="utf-8") + "\n## 第11章 多出的一章\n- Storyline: main-arc\n",
                    encoding="utf-8")


def _lang_en(paths: ProjectPaths) -> None:
    text = paths.settings.read_text(encoding="utf-8")
    paths.settings.write_text(text.replace("# [ui]\n# lang = \"zh\"", "[ui]\nlang = \"en\"", 1), encoding="utf-8")


PART_CHANGES: dict[str, Callable[[ProjectPaths], object]] = {
    "a storyline renamed": _rename_storyline,
    "storylines broken": lambda p: p.storylines.write_text('{"storylines": 3}', encoding="utf-8"),
    "the schedule removed": lambda p: p.schedule(1).unlink(),
    "the schedule broken": lambda p: p.schedule(1).write_text("{", encoding="utf-8"),
    "a word only in a category": _category_only_word,
    "the blacklist broken": lambda p: p.ai_blacklist.write_text('{"words": 3}', encoding="utf-8"),
    "the outline grows": _outline_grows,
    "the outline removed": lambda p: p.outline(1).unlink(),
    "the settings in English": _lang_en,
    "the settings broken": lambda p: p.settings.write_text("[provider\n", encoding="utf-8"),
}


@pytest.mark.parametrize("change", sorted(PART_CHANGES))
def test_a_changed_part_is_read_again(change: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Each file a part of the report comes from, changed after its record: the full report shows the change
    (or the problem) exactly as a run without any record, kept part or memo."""
    import studio.status as status_module
    import studio.status_memo as memo_module
    import studio.validated_files as records_module
    from studio.cli.main import main

    for module in (memo_module, records_module, status_module):
        monkeypatch.setattr(module, "RACY_NS", 0)
    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)

    def outputs() -> list[tuple[int, str]]:
        answered = []
        for extra in VARIANTS:
            rc = main(["status", "--project", str(root), *extra])
            captured = capsys.readouterr()
            answered.append((rc, captured.out + captured.err))
        return answered

    before = outputs()
    _state_changed(paths)
    assert outputs() == before  # from the records and the kept parts
    PART_CHANGES[change](paths)
    answered = outputs()
    assert answered != before
    _forget_all(root)
    assert outputs() == answered  # as without any record, kept part or memo


def test_kept_parts_of_another_shape_are_not_believed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A parts cache edited by hand (its keys right, its values of another shape): computed again."""
    import studio.status as status_module
    import studio.status_memo as memo_module
    import studio.validated_files as records_module
    from studio.cli.main import main
    from studio.status import PARTS_CACHE

    for module in (memo_module, records_module, status_module):
        monkeypatch.setattr(module, "RACY_NS", 0)
    root = init_project(tmp_path / "novel", sample=True)
    assert main(["status", "--project", str(root)]) == 0
    before = capsys.readouterr().out
    cache = cache_file(root, PARTS_CACHE)
    data = json.loads(cache.read_text(encoding="utf-8"))
    assert set(data["parts"]) == {"chapter_range", "storylines", "category_only", "changelog"}
    for name, garbage in (("chapter_range", ["1", 2]), ("storylines", [{"id": 3}]), ("category_only", [["x"]]),
                          ("changelog", [True, "patch", "9", [], False])):
        data["parts"][name][1] = garbage
    cache.write_text(json.dumps(data), encoding="utf-8")
    _state_changed(ProjectPaths(root))
    assert main(["status", "--project", str(root)]) == 0
    assert capsys.readouterr().out == before
