"""The orchestrator with scripted fake agents on the sample novel (chapters 1-2 committed, outline of 10)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pipeline.decisions import Question, QuestionKind, take_recommended
from pipeline.events import ChapterCommitted, Event, GateDecided, StageStarted, TextDelta
from pipeline.orchestrator import Orchestrator, RunResult
from pipeline.staging import ChapterStaging
from studio.cli.common import PausedForAuthor
from studio.init_project import init_project
from studio.models.checkpoint import Checkpoint, OrchestratorState, PipelineStage
from studio.models.evaluation import Evaluation
from studio.models.foreshadowing import ForeshadowingLedger
from studio.models.pipeline_log import PipelineLog
from studio.models.settings import Settings
from studio.paths import ProjectPaths
from studio.state_engine import load_changelog, load_state, replay
from tests.fake_agents import HINTS_MARK, FakeAgents


class Boom(BaseException):
    """Stands in for a kill at a step boundary (in process)."""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return init_project(tmp_path / "novel", sample=True)


class Recorder:
    def __init__(self, answers: dict[QuestionKind, str] | None = None, *, pause: bool = False) -> None:
        self.answers = answers or {}
        self.pause = pause
        self.questions: list[Question] = []

    async def __call__(self, question: Question) -> str:
        self.questions.append(question)
        if question.kind in self.answers:
            return self.answers[question.kind]
        if self.pause:
            raise PausedForAuthor("no terminal")
        return question.recommended

    def kinds(self) -> list[QuestionKind]:
        return [q.kind for q in self.questions]


def orchestrator(
    root: Path,
    agents: FakeAgents,
    events: list[Event] | None = None,
    decider: Any = take_recommended,
    hook: Callable[[str], None] | None = None,
) -> Orchestrator:
    sink = events if events is not None else []
    return Orchestrator(
        root, agents, decider=decider, emit=sink.append, settings=Settings(), step_hook=hook
    )


async def run(
    root: Path,
    agents: FakeAgents,
    chapters: int = 1,
    *,
    events: list[Event] | None = None,
    decider: Any = take_recommended,
    hook: Callable[[str], None] | None = None,
    **kwargs: Any,
) -> RunResult:
    return await orchestrator(root, agents, events, decider, hook).run(chapters, **kwargs)


def fake(root: Path, **kwargs: Any) -> FakeAgents:
    return FakeAgents(ProjectPaths(root), **kwargs)


def checkpoint(root: Path) -> Checkpoint:
    return Checkpoint.load(ProjectPaths(root).checkpoint)


def staging_files(root: Path) -> list[Path]:
    staging = ProjectPaths(root).staging
    return [p for p in staging.rglob("*") if p.is_file()] if staging.exists() else []


def assert_consistent(root: Path) -> None:
    paths = ProjectPaths(root)
    assert replay(load_changelog(paths.changelog)).to_data() == load_state(paths).to_data()
    assert not paths.lock_dir.exists()


def patch_chapters(root: Path) -> list[int]:
    return [e.chapter for e in load_changelog(ProjectPaths(root).changelog) if e.kind == "patch"]


# ---------------------------------------------------------------------------------------------- happy path


async def test_one_chapter_end_to_end(root: Path) -> None:
    events: list[Event] = []
    agents = fake(root)
    result = await run(root, agents, events=events)
    paths = ProjectPaths(root)

    assert result.committed == [3] and result.exit_code == 0
    text = paths.chapter(3).read_text(encoding="utf-8")
    assert "沈照轻轻推开门。" in text  # the refined text is what gets committed
    assert HINTS_MARK.strip() not in text
    assert paths.summary(3).is_file() and paths.evaluation(3).is_file()
    assert "截至第3章" in paths.storyline_memory("main-arc").read_text(encoding="utf-8")
    assert staging_files(root) == []

    cp = checkpoint(root)
    assert cp.last_completed_chapter == 3
    assert cp.pipeline_stage is PipelineStage.COMMITTED and cp.inflight_chapter is None
    assert cp.revision_count == 0 and cp.revision_kind is None

    assert patch_chapters(root) == [1, 2, 3]
    assert_consistent(root)
    ledger = ForeshadowingLedger.load(paths.global_foreshadowing)
    assert ledger.get("fs-ch3") is not None

    log = PipelineLog.load(paths.log(3))
    assert sorted(s.name for s in log.stages) == ["draft", "judge", "refine", "summarize"]
    assert log.gate_decision == "pass" and log.cost() == pytest.approx(0.04)
    assert (log.model_extra or {})["cache_read_share"] == 0.0  # the fakes report no cache reads
    archive = root / "logs" / "chapter-003"
    assert (archive / "chapter-003.draft.md").is_file()
    assert (archive / "chapter-003-refine.json").is_file()
    draft = (archive / "chapter-003.draft.md").read_text(encoding="utf-8")
    assert "沈照推开门。" in draft  # the original draft is kept

    assert any(isinstance(e, TextDelta) for e in events)
    assert {e.stage for e in events if isinstance(e, StageStarted)} == {"draft", "summarize", "refine", "judge"}
    committed = [e for e in events if isinstance(e, ChapterCommitted)]
    assert committed and committed[0].scores_path == [4.2]
    assert result.cost_usd == pytest.approx(0.04) and result.input_tokens == 4000


async def test_gate_polish_commits_without_second_judgement(root: Path) -> None:
    agents = fake(root, scores={3: [3.7]})
    events: list[Event] = []
    result = await run(root, agents, events=events)
    assert result.committed == [3]
    assert [s for s, _ in agents.log].count("judge") == 1
    # one judgement, one gate event: the re-gate after the polish pass is not reported twice
    assert [e.action for e in events if isinstance(e, GateDecided)] == ["polish"]
    assert ("polish", 3) in agents.log
    text = ProjectPaths(root).chapter(3).read_text(encoding="utf-8")
    assert "灯光只照得出三丈远" in text and "沈照轻轻推开门。" in text
    log = PipelineLog.load(ProjectPaths(root).log(3))
    assert log.gate_decision == "polish" and "polish" in [s.name for s in log.stages]
    assert (root / "logs" / "chapter-003" / "chapter-003-polish.json").is_file()


async def test_revise_then_pass(root: Path) -> None:
    agents = fake(root, scores={3: [3.2, 4.1]})
    events: list[Event] = []
    result = await run(root, agents, events=events)
    assert result.committed == [3]
    writes = [w for w in agents.writes if w[0] == 3]
    assert len(writes) == 2
    revision = writes[1][2]
    assert revision is not None and revision.kind == "revision"
    assert revision.required_fixes and "沈照轻轻推开门。" in revision.previous_text
    assert result.reports[0].scores == [3.2, 4.1] and result.reports[0].revisions == 1
    assert [e.action for e in events if isinstance(e, GateDecided)] == ["revise", "pass"]
    archive = root / "logs" / "chapter-003"
    assert (archive / "chapter-003.draft.md").is_file() and (archive / "chapter-003.rev1.md").is_file()
    assert (archive / "chapter-003-eval.pass0.json").is_file()
    assert not Evaluation.load(ProjectPaths(root).evaluation(3)).force_passed
    assert patch_chapters(root) == [1, 2, 3]  # the revision's patch replaced the draft's
    assert_consistent(root)


async def test_two_revisions_then_force_pass(root: Path) -> None:
    agents = fake(root, scores={3: [3.2, 3.3, 3.4]})
    result = await run(root, agents)
    assert result.committed == [3]
    assert len(agents.writes) == 3 and [s for s, _ in agents.log].count("judge") == 3
    evaluation = Evaluation.load(ProjectPaths(root).evaluation(3))
    assert evaluation.force_passed
    assert result.reports[0].force_passed and result.reports[0].scores == [3.2, 3.3, 3.4]


@pytest.mark.parametrize("rule", ["LS-002", "W-003"])  # a soft LS rule and a soft L1 rule of the sample
async def test_soft_violation_is_reported_never_revised(root: Path, rule: str) -> None:
    violations = {(3, r): [rule] for r in range(3)}
    agents = fake(root, scores={3: [4.5]}, violations=violations)
    events: list[Event] = []
    result = await run(root, agents, events=events)
    assert result.committed == [3]
    assert len(agents.writes) == 1 and [s for s, _ in agents.log].count("judge") == 1  # no revision
    evaluation = Evaluation.load(ProjectPaths(root).evaluation(3))
    assert not evaluation.force_passed
    assert [c.id for c in evaluation.violations()] == [rule]  # reported in the evaluation
    gate = [e for e in events if isinstance(e, GateDecided)]
    assert [e.action for e in gate] == ["pass"] and rule in gate[0].reason


async def test_contract_violation_still_forces_a_revision(root: Path) -> None:
    violations = {(3, 0): ["C-GUYUANZHOU-002"]}  # a character contract (L2): blocking
    agents = fake(root, scores={3: [4.5]}, violations=violations)
    result = await run(root, agents)
    assert result.committed == [3] and len(agents.writes) == 2


@pytest.mark.parametrize("rule", ["W-001", "LS-001"])
async def test_hard_violation_pauses_never_force_passed(root: Path, rule: str) -> None:
    violations = {(3, r): [rule] for r in range(3)}
    agents = fake(root, scores={3: [4.5]}, violations=violations)
    recorder = Recorder()
    result = await run(root, agents, decider=recorder)
    assert result.paused and result.exit_code == 3 and result.committed == []
    assert recorder.kinds() == [QuestionKind.GATE_HARD]
    assert recorder.questions[0].recommended == "edit_by_hand"
    cp = checkpoint(root)
    assert cp.pending_actions and cp.pending_actions[0].kind == "gate_hard"
    assert cp.revision_count == 2
    staged = Evaluation.load(ProjectPaths(root).staged_evaluation(3))
    assert not staged.force_passed
    assert not ProjectPaths(root).chapter(3).exists()
    assert not ProjectPaths(root).lock_dir.exists()


async def test_low_score_pauses_persists_and_is_asked_again(root: Path) -> None:
    agents = fake(root, scores={3: [2.5]})
    result = await run(root, agents, decider=Recorder(pause=True))
    assert result.paused and result.exit_code == 3 and result.pause_kind == "gate_low"
    cp = checkpoint(root)
    assert len(cp.pending_actions) == 1
    pending = cp.pending_actions[0]
    assert pending.kind == "gate_low" and pending.recommended == "auto_revise"
    assert pending.evaluation is not None and pending.evaluation["chapter"] == 3
    assert set(pending.options) == {"auto_revise", "edit_by_hand", "accept"}
    assert not ProjectPaths(root).chapter(3).exists()

    # a restart asks again and never commits on its own
    again = Recorder({QuestionKind.GATE_LOW: "pause"})
    result = await run(root, fake(root, scores={3: [2.5]}), decider=again)
    assert again.kinds() == [QuestionKind.GATE_LOW] and result.paused and result.committed == []
    assert not ProjectPaths(root).chapter(3).exists()

    # the author accepts: committed, marked force_passed, no new model call
    accept = Recorder({QuestionKind.GATE_LOW: "accept"})
    agents3 = fake(root, scores={3: [2.5]})
    result = await run(root, agents3, decider=accept)
    assert result.committed == [3] and agents3.log == []
    assert Evaluation.load(ProjectPaths(root).evaluation(3)).force_passed
    assert checkpoint(root).pending_actions == []
    assert_consistent(root)


async def test_low_score_auto_revise(root: Path) -> None:
    agents = fake(root, scores={3: [2.5, 4.0]})
    recorder = Recorder()
    result = await run(root, agents, decider=recorder)
    assert recorder.kinds() == [QuestionKind.GATE_LOW]
    assert result.committed == [3]
    assert agents.writes[1][2] is not None and agents.writes[1][2].kind == "revision"


async def test_below_two_is_rewritten(root: Path) -> None:
    agents = fake(root, scores={3: [1.5, 4.0]})
    result = await run(root, agents)
    assert result.committed == [3]
    revision = agents.writes[1][2]
    assert revision is not None and revision.kind == "rewrite"
    assert result.reports[0].actions == ["rewrite", "pass"]


async def test_note_reaches_the_writer_and_its_revisions(root: Path) -> None:
    agents = fake(root, scores={3: [3.2, 4.2]})
    await run(root, agents, note="沈照必须受伤")
    assert [w[1] for w in agents.writes] == ["沈照必须受伤", "沈照必须受伤"]
    assert (root / "logs" / "chapter-003" / "chapter-003.note.md").is_file()


# ---------------------------------------------------------------------------------------------- brief, volume, cost


async def test_quality_brief_after_fifth_chapter(root: Path) -> None:
    recorder = Recorder()
    result = await run(root, fake(root), 4, decider=recorder)
    assert result.committed == [3, 4, 5, 6]
    brief = [q for q in recorder.questions if q.kind is QuestionKind.QUALITY_BRIEF]
    assert len(brief) == 1 and brief[0].chapter == 5 and brief[0].recommended == "continue"
    assert any("平均分" in fact for fact in brief[0].facts)


async def test_quality_brief_review_stops(root: Path) -> None:
    recorder = Recorder({QuestionKind.QUALITY_BRIEF: "review"})
    result = await run(root, fake(root), 4, decider=recorder)
    assert result.committed == [3, 4, 5] and result.stopped_by_author and result.exit_code == 0
    assert result.brief is not None and result.brief.last == 5


async def test_brief_suggests_rebuild_after_three_skipped_ops(root: Path) -> None:
    recorder = Recorder()
    await run(root, fake(root, skip_ops={3, 4, 5}), 4, decider=recorder)
    cp = checkpoint(root)
    assert cp.skipped_ops_chapters == [3, 4, 5]
    assert patch_chapters(root) == [1, 2, 6]
    brief = next(q for q in recorder.questions if q.kind is QuestionKind.QUALITY_BRIEF)
    assert brief.data["rebuild_hint"] is True
    assert_consistent(root)


async def test_volume_end_stops_and_carries_the_brief(root: Path) -> None:
    recorder = Recorder()
    result = await run(root, fake(root), 20, decider=recorder)
    assert result.committed == list(range(3, 11))
    assert result.stopped_at_volume_end and result.volume == 1 and result.exit_code == 0
    assert checkpoint(root).orchestrator_state is OrchestratorState.VOL_REVIEW
    # a brief was asked at 5; at 10 the volume end wins and carries it
    assert [q.chapter for q in recorder.questions if q.kind is QuestionKind.QUALITY_BRIEF] == [5]
    assert result.brief is not None and result.brief.last == 10
    assert patch_chapters(root) == list(range(1, 11))
    assert_consistent(root)

    again = await run(root, fake(root), 1)
    assert again.committed == [] and again.stopped_at_volume_end and again.exit_code == 0


async def test_max_cost_stops_before_the_chapter(root: Path) -> None:
    result = await run(root, fake(root), 3, max_cost_usd=0.1)  # the sample's logs say ~0.4 per chapter
    assert result.committed == [] and result.stopped_by_cost and result.exit_code == 0
    result = await run(root, fake(root, cost=0.2), 3, max_cost_usd=1.0)
    # ch3 estimated ~0.42 (fits); after it 0.8 spent, the next estimate ~0.6 would pass the limit
    assert result.committed == [3] and result.stopped_by_cost


# ---------------------------------------------------------------------------------------------- errors, cancellation


async def test_stage_error_then_resume(root: Path) -> None:
    agents = fake(root, fail={"judge": 1})
    result = await run(root, agents)
    assert result.exit_code == 1 and result.error and result.committed == []
    cp = checkpoint(root)
    assert cp.orchestrator_state is OrchestratorState.ERROR_RETRY
    assert cp.inflight_chapter == 3 and cp.pipeline_stage is PipelineStage.REFINED
    assert not ProjectPaths(root).lock_dir.exists()

    result = await run(root, agents)  # INTERRUPTED -> resume (recommended)
    assert result.committed == [3]
    assert [s for s, _ in agents.log] == ["write", "summarize", "refine", "judge", "judge"]
    assert checkpoint(root).orchestrator_state is OrchestratorState.WRITING


async def test_cancel_mid_draft_leaves_partial_and_resume_redraws(root: Path) -> None:
    paths = ProjectPaths(root)
    agents = fake(root, block=True)
    task = asyncio.create_task(run(root, agents))
    for _ in range(200):
        await asyncio.sleep(0.01)
        if paths.staged_draft_partial(3).is_file() and paths.staged_draft_partial(3).stat().st_size:
            break
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert paths.staged_draft_partial(3).is_file()
    assert not paths.staged_chapter(3).exists()
    cp = checkpoint(root)
    assert cp.inflight_chapter == 3 and cp.pipeline_stage is PipelineStage.DRAFTING
    assert not paths.lock_dir.exists()

    agents2 = fake(root)
    recorder = Recorder()
    result = await run(root, agents2, decider=recorder)
    assert recorder.kinds() == [QuestionKind.INTERRUPTED]
    assert result.committed == [3] and agents2.log[0] == ("write", 3)
    assert HINTS_MARK.strip() not in paths.chapter(3).read_text(encoding="utf-8")
    assert staging_files(root) == []


async def test_interrupted_discard_starts_over(root: Path) -> None:
    paths = ProjectPaths(root)

    def hook(step: str) -> None:
        if step == "judge":
            raise Boom(step)

    with pytest.raises(Boom):
        await run(root, fake(root), hook=hook)
    assert paths.staged_evaluation(3).is_file()
    agents = fake(root)
    result = await run(root, agents, decider=Recorder({QuestionKind.INTERRUPTED: "discard"}))
    assert result.committed == [3]
    assert [s for s, _ in agents.log][0] == "write"


async def test_interrupted_question_paused_without_terminal(root: Path) -> None:
    def hook(step: str) -> None:
        if step == "draft":
            raise Boom(step)

    with pytest.raises(Boom):
        await run(root, fake(root), hook=hook)
    result = await run(root, fake(root), decider=Recorder(pause=True))
    assert result.paused and result.exit_code == 3 and result.committed == []


# ---------------------------------------------------------------------------------------------- recovery rows


def _stages(agents: FakeAgents) -> list[str]:
    return [s for s, _ in agents.log]


@pytest.mark.parametrize(
    ("kill_at", "delays", "scores", "expected"),
    [
        ("draft", {}, [4.2], ["summarize", "refine", "judge"]),
        ("summary", {"refine": 0.05}, [4.2], ["refine", "judge"]),  # refine cut: only it is re-run
        ("refine", {"summarize": 0.05}, [4.2], ["summarize", "judge"]),  # summary missing only
        ("judge", {}, [4.2], ["judge"]),  # evaluation present at `refined`: judged again
        ("commit:prepared", {}, [4.2], []),  # the journal finishes the commit
        ("commit:state", {}, [4.2], []),
        ("revise-start", {}, [3.2, 4.2], ["write", "summarize", "refine", "judge"]),
        ("polish", {}, [3.7], []),  # polished before the kill: the staged record is used, never paid twice
    ],
)
async def test_recovery_resumes_at_the_right_step(
    root: Path, kill_at: str, delays: dict[str, float], scores: list[float], expected: list[str]
) -> None:
    def hook(step: str) -> None:
        if step == kill_at:
            raise Boom(step)

    with pytest.raises(Boom):
        await run(root, fake(root, delays=delays, scores={3: scores}), hook=hook)
    assert not ProjectPaths(root).lock_dir.exists()
    agents = fake(root, scores={3: scores})
    result = await run(root, agents)
    assert result.committed == [3]
    got = sorted(_stages(agents)) if kill_at != "revise-start" else _stages(agents)
    want = expected if kill_at == "revise-start" else sorted(expected)
    assert got == want
    if kill_at == "revise-start":
        assert agents.writes[0][2] is not None and agents.writes[0][2].kind == "revision"
    assert patch_chapters(root) == [1, 2, 3]
    assert staging_files(root) == []
    assert_consistent(root)


async def test_pending_action_embedded_evaluation_restores_missing_file(root: Path) -> None:
    await run(root, fake(root, scores={3: [2.5]}), decider=Recorder(pause=True))
    paths = ProjectPaths(root)
    staged = ChapterStaging(paths, 3)
    staged.evaluation.unlink()
    recorder = Recorder({QuestionKind.GATE_LOW: "accept"})
    result = await run(root, fake(root), decider=recorder)
    assert recorder.kinds() == [QuestionKind.GATE_LOW]
    assert result.committed == [3]


async def test_stale_lock_is_taken_over_and_live_lock_refused(root: Path) -> None:
    from studio.lock import LockBusyError, ProjectLock

    paths = ProjectPaths(root)
    paths.lock_dir.mkdir()
    info = {"pid": 999_999_999, "host": __import__("socket").gethostname(), "started": "2026-01-01T00:00:00+08:00",
            "chapter": 3, "heartbeat": "2026-01-01T00:00:00+08:00", "tool": "novel-studio", "version": "0"}
    (paths.lock_info).write_text(json.dumps(info), encoding="utf-8")
    recorder = Recorder()
    result = await run(root, fake(root), decider=recorder)
    assert recorder.kinds()[0] is QuestionKind.STALE_LOCK and result.committed == [3]
    assert not paths.lock_dir.exists()

    holder = ProjectLock(paths, heartbeat_interval=0)
    holder.acquire()
    try:
        with pytest.raises(LockBusyError):
            await run(root, fake(root))
    finally:
        holder.release()
