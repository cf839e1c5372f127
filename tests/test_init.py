"""`init`: the layout of seed 001 9.1, valid starter files, refusal of an existing project, the sample."""

from __future__ import annotations

import json
import tomllib
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path

import pytest

from studio import init_project as init_module
from studio.config import load_settings
from studio.errors import StudioError
from studio.init_project import EMPTY_DIRS, existing_project_marker, init_project
from studio.models.blacklist import AiBlacklist
from studio.models.storyline_spec import StorylineSpec
from studio.models.style_profile import StyleProfile
from studio.paths import ProjectPaths


def test_creates_the_layout(project_dir: Path) -> None:
    root = init_project(project_dir)
    assert root == project_dir
    for rel in EMPTY_DIRS:
        assert (root / rel).is_dir(), rel
    for rel in (
        "brief.md",
        "style-profile.json",
        "ai-blacklist.json",
        "novel-studio.toml",
        "storylines/storylines.json",
        "storylines/storyline-spec.json",
        "state/current-state.json",
        "state/changelog.jsonl",
        "foreshadowing/global.json",
        "world/rules.json",
    ):
        assert (root / rel).is_file(), rel
    assert not (root / ".checkpoint.json").exists()  # no checkpoint = INIT
    assert not (root / "__init__.py").exists()
    assert list((root / "chapters").iterdir()) == []


def test_starter_files_content(project_dir: Path) -> None:
    paths = ProjectPaths(init_project(project_dir))
    state = json.loads(paths.current_state.read_text(encoding="utf-8"))
    assert state == {
        "schema_version": 1,
        "state_version": 0,
        "last_updated_chapter": 0,
        "characters": {},
        "world_state": {},
        "active_foreshadowing": [],
    }
    assert paths.changelog.read_text(encoding="utf-8") == ""
    assert json.loads(paths.global_foreshadowing.read_text(encoding="utf-8")) == {"foreshadowing": []}
    assert json.loads(paths.world_rules.read_text(encoding="utf-8")) == {"rules": []}
    spec = StorylineSpec.load(paths.storyline_spec)
    assert [r.id for r in spec.rules] == ["LS-001", "LS-002", "LS-003", "LS-004", "LS-005"]
    assert {r.id for r in spec.hard_rules()} == {"LS-001", "LS-005"}
    profile = StyleProfile.load(paths.style_profile)
    assert profile.source_type == "template" and profile.writing_directives
    blacklist = AiBlacklist.load(paths.ai_blacklist)
    assert len(blacklist.effective_words()) >= 30
    brief = paths.brief.read_text(encoding="utf-8")
    for section in ("题材", "核心卖点", "主角", "世界观一句话", "目标读者", "字数规划"):
        assert f"## {section}" in brief


def test_project_models_accept_the_starter_files(project_dir: Path) -> None:
    project = pytest.importorskip("studio.project")
    init_project(project_dir)
    project.Project.open(project_dir)


def test_title_goes_to_brief_and_settings(project_dir: Path) -> None:
    init_project(project_dir, title='剑来 "二"')
    assert '剑来 "二"' in (project_dir / "brief.md").read_text(encoding="utf-8")
    settings = load_settings(project_dir, env={}, user_file=project_dir / "absent.toml")
    assert settings.project.title == '剑来 "二"'
    assert settings.source_of("project.title") == str(project_dir / "novel-studio.toml")


def test_settings_file_keeps_user_settings_in_charge(project_dir: Path, tmp_path: Path) -> None:
    """The project file only has comments for the defaults, so the user's own settings still apply."""
    init_project(project_dir)
    user = tmp_path / "user.toml"
    user.write_text('[ui]\nlang = "en"\n', encoding="utf-8")
    assert load_settings(project_dir, env={}, user_file=user).ui.lang == "en"
    data = tomllib.loads((project_dir / "novel-studio.toml").read_text(encoding="utf-8"))
    # Only the title and the prompt pins (issue 9 item 8) are set; every other setting is a comment.
    assert data.keys() == {"project", "prompts"} and data["project"] == {"title": ""}


def test_untitled_brief(project_dir: Path) -> None:
    init_project(project_dir)
    brief = (project_dir / "brief.md").read_text(encoding="utf-8")
    assert "{{title}}" not in brief and "书名待定" in brief


def test_existing_empty_dir_is_fine(project_dir: Path) -> None:
    project_dir.mkdir()
    init_project(project_dir)
    assert (project_dir / "novel-studio.toml").is_file()


def test_unrelated_files_are_kept(project_dir: Path) -> None:
    project_dir.mkdir()
    (project_dir / "notes.txt").write_text("mine", encoding="utf-8")
    (project_dir / "brief.md").write_text("# 我自己的纲领\n", encoding="utf-8")
    init_project(project_dir)
    assert (project_dir / "notes.txt").read_text(encoding="utf-8") == "mine"
    assert (project_dir / "brief.md").read_text(encoding="utf-8") == "# 我自己的纲领\n"


@pytest.mark.parametrize("marker", ["novel-studio.toml", ".checkpoint.json", "chapters/chapter-001.md"])
def test_refuses_an_existing_project(project_dir: Path, marker: str) -> None:
    (project_dir / marker).parent.mkdir(parents=True, exist_ok=True)
    (project_dir / marker).write_text("{}", encoding="utf-8")
    with pytest.raises(StudioError) as err:
        init_project(project_dir)
    assert str(project_dir) in str(err.value)
    assert existing_project_marker(project_dir) is not None


def test_second_init_refused_and_changes_nothing(project_dir: Path) -> None:
    init_project(project_dir, title="一")
    (project_dir / "brief.md").write_text("作者写的", encoding="utf-8")
    before = sorted(p.relative_to(project_dir) for p in project_dir.rglob("*"))
    with pytest.raises(StudioError):
        init_project(project_dir, title="二")
    assert sorted(p.relative_to(project_dir) for p in project_dir.rglob("*")) == before
    assert (project_dir / "brief.md").read_text(encoding="utf-8") == "作者写的"


def test_interrupted_init_can_be_rerun(project_dir: Path) -> None:
    init_project(project_dir)
    (project_dir / "novel-studio.toml").unlink()  # the settings file is written last
    (project_dir / "world" / "rules.json").unlink()
    init_project(project_dir)
    assert (project_dir / "world" / "rules.json").is_file()
    assert (project_dir / "novel-studio.toml").is_file()


def test_target_is_a_file(tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("x", encoding="utf-8")
    with pytest.raises(StudioError):
        init_project(target)


def test_sample_missing_is_a_clear_error(project_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = init_module._templates_root

    def no_sample(name: str) -> Traversable:
        return real("does-not-exist") if name == "sample" else real(name)

    monkeypatch.setattr(init_module, "_templates_root", no_sample)
    with pytest.raises(StudioError) as err:
        init_project(project_dir, sample=True)
    assert "templates/sample" in str(err.value)
    assert not project_dir.exists()  # checked before anything is written


def test_sample_is_copied(project_dir: Path) -> None:
    sample = resources.files("templates").joinpath("sample")
    if not sample.is_dir():
        pytest.skip("the sample novel is not in this tree yet")
    init_project(project_dir, sample=True)
    for item in sample.iterdir():
        if item.name in {"__init__.py", "__pycache__"}:
            continue
        assert (project_dir / item.name).exists(), item.name
    assert not (project_dir / "__init__.py").exists()
    assert (project_dir / "novel-studio.toml").is_file()
    for rel in EMPTY_DIRS:
        assert (project_dir / rel).is_dir()
