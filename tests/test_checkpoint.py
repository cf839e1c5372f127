"""Checkpoint model: defaults, old files, round trip, corrupt examples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.errors import FormatError
from studio.models.checkpoint import (
    Checkpoint,
    OrchestratorState,
    PendingAction,
    PipelineStage,
    save_checkpoint,
)
from studio.paths import ProjectPaths


def test_missing_file_means_init(tmp_path: Path) -> None:
    cp = Checkpoint.load_or_default(tmp_path / ".checkpoint.json")
    assert cp.orchestrator_state is OrchestratorState.INIT
    assert cp.last_completed_chapter == 0
    assert cp.current_volume == 1
    assert cp.pipeline_stage is None
    assert cp.inflight_chapter is None
    assert cp.pending_actions == []
    assert cp.skipped_ops_chapters == []
    assert cp.next_chapter == 1


def test_seed_example_without_new_fields_loads(tmp_path: Path) -> None:
    path = tmp_path / ".checkpoint.json"
    path.write_text(
        json.dumps(
            {
                "last_completed_chapter": 47,
                "current_volume": 2,
                "orchestrator_state": "WRITING",
                "pipeline_stage": "committed",
                "inflight_chapter": None,
                "pending_actions": [],
                "last_checkpoint_time": "2026-02-21T15:30:00",
            }
        ),
        encoding="utf-8",
    )
    cp = Checkpoint.load(path)
    assert cp.orchestrator_state is OrchestratorState.WRITING
    assert cp.pipeline_stage is PipelineStage.COMMITTED
    assert cp.revision_count == 0
    assert cp.revision_kind is None
    assert cp.next_chapter == 48


def test_save_stamps_time_and_round_trips(tmp_path: Path) -> None:
    paths = ProjectPaths(tmp_path)
    cp = Checkpoint(
        last_completed_chapter=3,
        orchestrator_state=OrchestratorState.WRITING,
        pipeline_stage=PipelineStage.REVISING,
        inflight_chapter=4,
        revision_count=1,
        revision_kind="polish",
        pending_actions=[
            PendingAction(
                kind="gate_low_score",
                chapter=4,
                question="第 4 章得分 2.8，怎么办？",
                options=["重写", "接受"],
                recommended="重写",
                evaluation_path="staging/evaluations/chapter-004-eval.json",
                note="kept",
            )
        ],
        skipped_ops_chapters=[2],
        future_field={"x": 1},
    )
    save_checkpoint(paths, cp)
    assert cp.last_checkpoint_time is not None
    text = paths.checkpoint.read_text(encoding="utf-8")
    assert "第 4 章" in text  # Chinese is not escaped
    again = Checkpoint.load(paths.checkpoint)
    assert again == cp
    assert again.to_data()["future_field"] == {"x": 1}
    assert again.pending_actions[0].to_data()["note"] == "kept"
    assert again.pending_actions[0].created_at


@pytest.mark.parametrize(
    ("data", "json_path"),
    [
        ({"last_completed_chapter": -1}, "$.last_completed_chapter"),
        ({"current_volume": -1}, "$.current_volume"),
        ({"orchestrator_state": "SLEEPING"}, "$.orchestrator_state"),
        ({"pipeline_stage": "polishing"}, "$.pipeline_stage"),
        ({"inflight_chapter": "seven"}, "$.inflight_chapter"),
        ({"revision_kind": "redo"}, "$.revision_kind"),
        ({"pending_actions": [{"chapter": 3}]}, "$.pending_actions[0].kind"),
        ({"pending_actions": [{"kind": "x", "options": "a"}]}, "$.pending_actions[0].options"),
        ({"skipped_ops_chapters": ["a"]}, "$.skipped_ops_chapters[0]"),
    ],
)
def test_corrupt_examples_name_file_and_json_path(
    tmp_path: Path, data: dict[str, object], json_path: str
) -> None:
    path = tmp_path / ".checkpoint.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(FormatError) as err:
        Checkpoint.load_or_default(path)
    assert str(path) in str(err.value)
    assert json_path in {p.json_path for p in err.value.problems}


def test_not_json_is_a_format_error(tmp_path: Path) -> None:
    path = tmp_path / ".checkpoint.json"
    path.write_text("{ not json", encoding="utf-8")
    with pytest.raises(FormatError) as err:
        Checkpoint.load_or_default(path)
    assert str(path) in str(err.value)
