"""bench/synth.py: the synthetic project is consistent (state = changelog replay, valid files)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from studio.fileio import read_json, read_text
from studio.models.evaluation import Evaluation
from studio.models.pipeline_log import PipelineLog
from studio.outline import parse_outline
from studio.paths import ProjectPaths
from studio.project import Project
from studio.state_engine import load_changelog, load_state, replay

BENCH = Path(__file__).resolve().parent.parent / "bench"


def load_synth() -> ModuleType:
    spec = importlib.util.spec_from_file_location("novel_studio_bench_synth", BENCH / "synth.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def synth_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("synth") / "novel"
    load_synth().generate_project(root, 60, chars_per_chapter=1200, seed=3)
    return root


def test_layout_and_checkpoint(synth_project: Path) -> None:
    paths = ProjectPaths(synth_project)
    cp = read_json(paths.checkpoint)
    assert cp["last_completed_chapter"] == 60
    assert cp["current_volume"] == 2
    for n in (1, 30, 60):
        assert paths.chapter(n).is_file()
        assert paths.summary(n).is_file()
        assert paths.evaluation(n).is_file()
        assert paths.log(n).is_file()
    assert not paths.chapter(61).exists()


def test_state_equals_changelog_replay(synth_project: Path) -> None:
    paths = ProjectPaths(synth_project)
    state = load_state(paths)
    assert state.state_version == 60
    assert state.last_updated_chapter == 60
    assert replay(load_changelog(paths.changelog)).to_data() == state.to_data()
    assert "lin-feng" in state.characters


def test_outlines_parse_with_50_chapters_per_volume(synth_project: Path) -> None:
    paths = ProjectPaths(synth_project)
    vol1 = parse_outline(read_text(paths.outline(1)), paths.outline(1))
    vol2 = parse_outline(read_text(paths.outline(2)), paths.outline(2))
    assert vol1.chapter_range == (1, 50)
    assert vol2.chapter_range == (51, 100)
    ch = vol1.get(7)
    assert ch is not None and ch.storyline and ch.pov and ch.location and ch.conflict


def test_evaluations_and_logs_are_valid(synth_project: Path) -> None:
    paths = ProjectPaths(synth_project)
    for n in range(1, 61):
        ev = Evaluation.load(paths.evaluation(n))
        assert ev.overall == ev.computed_overall()
        log = PipelineLog.load(paths.log(n))
        assert log.cost() is not None and log.total_tokens() > 0


def test_whole_project_validates(synth_project: Path) -> None:
    project = Project.open(synth_project)
    assert project.validate_all(include_text=True) == []
    assert project.committed_chapters() == list(range(1, 61))


def test_same_seed_same_text(tmp_path: Path) -> None:
    synth = load_synth()
    synth.generate_project(tmp_path / "a", 3, chars_per_chapter=500, seed=9)
    synth.generate_project(tmp_path / "b", 3, chars_per_chapter=500, seed=9)
    for n in (1, 2, 3):
        name = f"chapters/chapter-{n:03d}.md"
        assert (tmp_path / "a" / name).read_text(encoding="utf-8") == (tmp_path / "b" / name).read_text(encoding="utf-8")
