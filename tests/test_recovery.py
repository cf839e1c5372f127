"""decide_recovery: every row of the seed 001 table plus the side-by-side Summarizer/Refiner cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.models.checkpoint import Checkpoint, PendingAction, PipelineStage, RevisionKind
from studio.paths import ProjectPaths
from studio.recovery import RecoveryAction, RecoveryKind, decide_recovery

N = 5
ALL = ("draft", "summary", "delta", "refine", "eval")


def make(paths: ProjectPaths, *files: str, partial: bool = False) -> None:
    targets = {
        "draft": paths.staged_chapter(N),
        "summary": paths.staged_summary(N),
        "delta": paths.staged_delta(N),
        "refine": paths.staged_refine(N),
        "eval": paths.staged_evaluation(N),
    }
    for name in files:
        targets[name].parent.mkdir(parents=True, exist_ok=True)
        targets[name].write_text("x", encoding="utf-8")
    if partial:
        paths.staged_draft_partial(N).parent.mkdir(parents=True, exist_ok=True)
        paths.staged_draft_partial(N).write_text("half", encoding="utf-8")


def cp(stage: PipelineStage | None, **kw: object) -> Checkpoint:
    return Checkpoint.model_validate(
        {"last_completed_chapter": N - 1, "pipeline_stage": stage, "inflight_chapter": N, **kw}
    )


@pytest.fixture
def paths(tmp_path: Path) -> ProjectPaths:
    return ProjectPaths(tmp_path)


def decide(paths: ProjectPaths, stage: PipelineStage | None, *files: str, **kw: object) -> RecoveryAction:
    make(paths, *files)
    return decide_recovery(cp(stage, **kw), paths)


def test_missing_checkpoint_starts_chapter_one(paths: ProjectPaths) -> None:
    act = decide_recovery(Checkpoint(), paths)
    assert (act.kind, act.chapter) == (RecoveryKind.NONE, 1)


@pytest.mark.parametrize("stage", [None, PipelineStage.COMMITTED])
def test_idle_or_committed_starts_next_chapter(paths: ProjectPaths, stage: PipelineStage | None) -> None:
    act = decide(paths, stage, *ALL)  # leftovers in staging do not matter
    assert (act.kind, act.chapter) == (RecoveryKind.NONE, N)


def test_nothing_inflight_is_none(paths: ProjectPaths) -> None:
    act = decide_recovery(Checkpoint(last_completed_chapter=9, pipeline_stage=PipelineStage.DRAFTING), paths)
    assert (act.kind, act.chapter) == (RecoveryKind.NONE, 10)


def test_drafting_without_draft_restarts(paths: ProjectPaths) -> None:
    act = decide(paths, PipelineStage.DRAFTING)
    assert act.kind is RecoveryKind.RESTART_CHAPTER
    assert act.chapter == N
    assert act.missing == ("draft", "summary", "refine")


def test_partial_draft_is_not_a_draft(paths: ProjectPaths) -> None:
    make(paths, partial=True)
    act = decide_recovery(cp(PipelineStage.DRAFTING), paths)
    assert act.kind is RecoveryKind.RESTART_CHAPTER


def test_drafting_with_draft_resumes_summarizer(paths: ProjectPaths) -> None:
    act = decide(paths, PipelineStage.DRAFTING, "draft")
    assert act.kind is RecoveryKind.RESUME_SUMMARIZER
    assert act.missing == ("summary", "refine")


def test_summary_without_delta_is_not_summarized(paths: ProjectPaths) -> None:
    act = decide(paths, PipelineStage.DRAFTING, "draft", "summary", "refine")
    assert act.kind is RecoveryKind.RESUME_SUMMARIZER
    assert act.missing == ("summary",)


def test_drafting_with_draft_and_refine_resumes_only_summarizer(paths: ProjectPaths) -> None:
    act = decide(paths, PipelineStage.DRAFTING, "draft", "refine")
    assert act.kind is RecoveryKind.RESUME_SUMMARIZER
    assert act.missing == ("summary",)


def test_drafted_resumes_refiner(paths: ProjectPaths) -> None:
    act = decide(paths, PipelineStage.DRAFTED, "draft", "summary", "delta")
    assert act.kind is RecoveryKind.RESUME_REFINER
    assert act.missing == ("refine",)


def test_drafting_with_summary_done_resumes_refiner(paths: ProjectPaths) -> None:
    act = decide(paths, PipelineStage.DRAFTING, "draft", "summary", "delta")
    assert act.kind is RecoveryKind.RESUME_REFINER


def test_drafted_without_summary_files_reruns_summarizer(paths: ProjectPaths) -> None:
    # The commit needs the files; the stage name alone does not stand in for them.
    act = decide(paths, PipelineStage.DRAFTED, "draft")
    assert act.kind is RecoveryKind.RESUME_SUMMARIZER


@pytest.mark.parametrize("stage", [PipelineStage.DRAFTING, PipelineStage.DRAFTED])
def test_everything_before_judge_present_resumes_judge(paths: ProjectPaths, stage: PipelineStage) -> None:
    act = decide(paths, stage, "draft", "summary", "delta", "refine")
    assert act.kind is RecoveryKind.RESUME_JUDGE
    assert act.missing == ()


def test_refined_resumes_judge(paths: ProjectPaths) -> None:
    # `refined` counts as refined even without the edits file: the refined text is the staged draft.
    act = decide(paths, PipelineStage.REFINED, "draft", "summary", "delta")
    assert act.kind is RecoveryKind.RESUME_JUDGE


def test_refined_with_eval_judges_again(paths: ProjectPaths) -> None:
    act = decide(paths, PipelineStage.REFINED, *ALL)
    assert act.kind is RecoveryKind.RESUME_JUDGE


def test_judged_commits(paths: ProjectPaths) -> None:
    act = decide(paths, PipelineStage.JUDGED, *ALL)
    assert act.kind is RecoveryKind.COMMIT
    assert act.chapter == N


def test_judged_without_eval_resumes_judge(paths: ProjectPaths) -> None:
    act = decide(paths, PipelineStage.JUDGED, "draft", "summary", "delta", "refine")
    assert act.kind is RecoveryKind.RESUME_JUDGE


def test_judged_without_draft_restarts(paths: ProjectPaths) -> None:
    act = decide(paths, PipelineStage.JUDGED, "summary", "delta", "refine", "eval")
    assert act.kind is RecoveryKind.RESTART_CHAPTER


@pytest.mark.parametrize("kind", ["revision", "polish", "rewrite"])
def test_revising_resumes_writer_keeping_count_and_kind(paths: ProjectPaths, kind: RevisionKind) -> None:
    act = decide(paths, PipelineStage.REVISING, *ALL, revision_count=2, revision_kind=kind)
    assert act.kind is RecoveryKind.RESUME_WRITER
    assert (act.chapter, act.revision_count, act.revision_kind) == (N, 2, kind)


def test_pending_action_asks_author_and_never_commits(paths: ProjectPaths) -> None:
    pending = [PendingAction(kind="gate_low_score", chapter=N).to_data()]
    act = decide(paths, PipelineStage.JUDGED, *ALL, pending_actions=pending)
    assert act.kind is RecoveryKind.ASK_AUTHOR
    assert act.chapter == N
    assert "gate_low_score" in act.reason


def test_pending_action_after_commit_asks_author(paths: ProjectPaths) -> None:
    c = Checkpoint(
        last_completed_chapter=10,
        pipeline_stage=PipelineStage.COMMITTED,
        pending_actions=[PendingAction(kind="volume_end", chapter=10)],
    )
    act = decide_recovery(c, paths)
    assert (act.kind, act.chapter) == (RecoveryKind.ASK_AUTHOR, 10)


def test_decision_reads_only(paths: ProjectPaths) -> None:
    make(paths, "draft")
    before = sorted(p.relative_to(paths.root) for p in paths.root.rglob("*"))
    decide_recovery(cp(PipelineStage.DRAFTING), paths)
    assert sorted(p.relative_to(paths.root) for p in paths.root.rglob("*")) == before


def test_descriptions_in_both_languages(paths: ProjectPaths) -> None:
    act = decide(paths, PipelineStage.DRAFTING, "draft")
    assert act.describe("zh") == f"第 {N} 章从摘要恢复（待生成：摘要与状态变更、润色）"
    assert (
        act.describe("en")
        == f"chapter {N}: resume at the summary (still to do: summary and state changes, polish)"
    )
    for kind in RecoveryKind:
        text = RecoveryAction(kind, 3, 1, "polish").describe("en")
        assert "3" in text
