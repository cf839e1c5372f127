"""studio.project: opening validates the cold-start files, reports every problem at once, reads no text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.errors import FormatError, ProjectNotFoundError
from studio.paths import ProjectPaths
from studio.project import Project, is_project, validate_project

SAMPLE = Path(__file__).resolve().parent.parent / "templates" / "sample"


def _init(root: Path, *, sample: bool = False) -> Path:
    from studio.init_project import init_project

    init_project(root, sample=sample)
    return root


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _seed_project(root: Path) -> Path:
    """A project in the seed formats, as another tool writes it: no novel-studio.toml, an old checkpoint."""
    _write(
        root / ".checkpoint.json",
        json.dumps(
            {
                "last_completed_chapter": 2,
                "current_volume": 1,
                "orchestrator_state": "WRITING",
                "pipeline_stage": "committed",
                "inflight_chapter": None,
                "pending_actions": [],
                "last_checkpoint_time": "2026-02-21T15:30:00",
            }
        ),
    )
    _write(
        root / "state" / "current-state.json",
        json.dumps(
            {
                "schema_version": 1,
                "state_version": 2,
                "last_updated_chapter": 2,
                "characters": {"lin-feng": {"display_name": "林枫", "location": "魔都"}},
                "world_state": {"time_marker": "第三年冬"},
                "active_foreshadowing": ["ancient_prophecy"],
            },
            ensure_ascii=False,
        ),
    )
    _write(
        root / "foreshadowing" / "global.json",
        json.dumps(
            {
                "foreshadowing": [
                    {
                        "id": "ancient_prophecy",
                        "description": "远古预言",
                        "scope": "short",
                        "status": "planted",
                        "planted_chapter": 1,
                        "target_resolve_range": [1, 1],
                        "history": [{"chapter": 1, "action": "planted", "detail": "提及"}],
                    }
                ]
            },
            ensure_ascii=False,
        ),
    )
    _write(root / "characters" / "active" / "lin-feng.json", json.dumps({"display_name": "林枫", "contracts": []}))
    _write(
        root / "volumes" / "vol-01" / "outline.md",
        "# 第一卷 起\n\n## 第1章 开端\n- Storyline: main-arc\n\n## 第2章 相遇\n- Storyline: main-arc\n\n"
        "## 第3章 风波\n- Storyline: main-arc\n",
    )
    _write(root / "chapters" / "chapter-001.md", "# 第1章 开端\n\n林枫醒来。\n")
    _write(root / "chapters" / "chapter-002.md", "# 第2章 相遇\n\n他遇见了陈老。\n")
    _write(root / "summaries" / "chapter-001-summary.md", "林枫醒来。\n")
    _write(root / "summaries" / "chapter-002-summary.md", "林枫遇见陈老。\n")
    return root


def test_fresh_init_project_opens(project_dir: Path) -> None:
    _init(project_dir)
    project = Project.open(project_dir)
    assert project.last_completed_chapter == 0
    assert project.current_volume == 1
    assert project.committed_chapters() == []
    assert project.outline is None
    assert project.last_summaries() == []


def test_sample_project_opens(tmp_path: Path) -> None:
    if not (SAMPLE / "chapters").is_dir():
        pytest.skip("templates/sample is not there yet")
    root = _init(tmp_path / "sample", sample=True)
    project = Project.open(root)
    assert project.committed_chapters()
    assert project.characters
    assert project.name


def test_not_a_project(tmp_path: Path) -> None:
    with pytest.raises(ProjectNotFoundError) as err:
        Project.open(tmp_path)
    assert "novel-studio init" in str(err.value)
    with pytest.raises(ProjectNotFoundError):
        Project.open(tmp_path / "missing")
    assert not is_project(tmp_path)


def test_seed_format_project_without_settings_opens(tmp_path: Path) -> None:
    root = _seed_project(tmp_path / "seed")
    assert not (root / "novel-studio.toml").exists()
    project = Project.open(root)
    assert project.checkpoint.revision_count == 0
    assert project.last_completed_chapter == 2
    assert project.state.characters["lin-feng"].location == "魔都"
    assert project.outline is not None and project.outline.chapter_range == (1, 3)
    assert list(project.characters) == ["lin-feng"]
    assert project.name == "seed"


def test_three_corrupt_files_reported_at_once(tmp_path: Path) -> None:
    root = _seed_project(tmp_path / "seed")
    _write(root / ".checkpoint.json", json.dumps({"last_completed_chapter": -3, "current_volume": 1}))
    _write(root / "storylines" / "storylines.json", '{"storylines": [')
    _write(root / "characters" / "active" / "chen-lao.json", json.dumps({"contracts": []}))
    with pytest.raises(FormatError) as err:
        Project.open(root)
    problems = err.value.problems
    names = {Path(p.path).name for p in problems}
    assert {".checkpoint.json", "storylines.json", "chen-lao.json"} <= names
    by_name = {Path(p.path).name: p for p in problems}
    assert by_name[".checkpoint.json"].json_path == "$.last_completed_chapter"
    assert by_name["chen-lao.json"].json_path == "$.display_name"
    assert by_name["storylines.json"].line is not None
    text = str(err.value)
    assert "chen-lao.json" in text and "storylines.json" in text and ".checkpoint.json" in text


def test_broken_outline_and_non_utf8_state_reported(tmp_path: Path) -> None:
    root = _seed_project(tmp_path / "seed")
    (root / "state" / "current-state.json").write_bytes("{\"x\": \"林\"}".encode("gbk"))
    _write(root / "volumes" / "vol-01" / "outline.md", "## 第2章 a\n\n## 第1章 b\n")
    with pytest.raises(FormatError) as err:
        Project.open(root)
    names = sorted(Path(p.path).name for p in err.value.problems)
    assert names == ["current-state.json", "outline.md"]
    assert any("UTF-8" in p.reason for p in err.value.problems)


def test_open_reads_no_chapter_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _seed_project(tmp_path / "seed")
    read: list[Path] = []
    original_bytes = Path.read_bytes
    original_text = Path.read_text

    def spy_bytes(self: Path) -> bytes:
        read.append(self)
        return original_bytes(self)

    def spy_text(self: Path, *args: object, **kwargs: object) -> str:
        read.append(self)
        return original_text(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "read_bytes", spy_bytes)
    monkeypatch.setattr(Path, "read_text", spy_text)
    project = Project.open(root)
    assert project.committed_chapters() == [1, 2]
    assert read, "the spy saw nothing: the test is broken"
    assert not [p for p in read if p.parent.name in ("chapters", "summaries")]


def test_lazy_accessors(tmp_path: Path) -> None:
    root = _seed_project(tmp_path / "seed")
    _write(root / "chapters" / "notes.md", "not a chapter")
    _write(root / "chapters" / "chapter-1.md", "bad id")
    (root / "chapters" / "chapter-003.md").write_bytes("第三章".encode("gbk"))
    project = Project.open(root)
    assert project.committed_chapters() == [1, 2, 3]
    assert project.chapter_text(1) is not None and "林枫醒来" in (project.chapter_text(1) or "")
    assert project.chapter_text(9) is None
    with pytest.raises(FormatError) as err:
        project.chapter_text(3)
    assert "UTF-8" in str(err.value)
    assert project.summary(2) == "林枫遇见陈老。\n"
    assert [n for n, _ in project.last_summaries(k=3)] == [1, 2]
    assert [n for n, _ in project.last_summaries(k=1)] == [2]
    assert project.evaluation(1) is None
    assert project.log(1) is None


def test_validate_all_checks_evaluations_and_logs(tmp_path: Path) -> None:
    root = _seed_project(tmp_path / "seed")
    paths = ProjectPaths(root)
    _write(paths.evaluation(1), json.dumps({"chapter": 1, "scores": {}}))
    _write(paths.log(2), "{not json")
    project = Project.open(root)  # opening does not read them
    problems = project.validate_all()
    names = sorted({Path(p.path).name for p in problems})
    assert names == ["chapter-001-eval.json", "chapter-002-log.json"]
    assert any(p.json_path.startswith("$.scores") for p in problems)
    assert validate_project(root) == problems


def test_brief_title_used_as_name(tmp_path: Path) -> None:
    root = _seed_project(tmp_path / "seed")
    _write(root / "brief.md", "# 创作纲领：《青云剑歌》\n\n正文\n")
    assert Project.open(root).name == "青云剑歌"
