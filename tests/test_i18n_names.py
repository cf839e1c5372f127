"""One catalog of display names (`studio.i18n_names`): states, stages, gate actions and reasons, question kinds,
errors; used by the studio and the CLI so no identifier reaches a Chinese screen (issue 12, item 4)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pipeline.decisions import QuestionKind
from pipeline.gate import GateAction, decide_gate
from pipeline.providers.base import ProviderConnectionError
from studio.cli.main import main
from studio.i18n_names import (
    ERROR_KINDS,
    GATE_ACTIONS,
    QUESTION_KINDS,
    STAGES,
    STATES,
    describe_error,
    error_text,
    gate_action_name,
    gate_reason,
    question_kind_name,
    stage_name,
    state_name,
)
from studio.init_project import init_project
from studio.lock import LockBusyError, LockState, LockStatus
from studio.models.checkpoint import OrchestratorState, PipelineStage
from studio.models.lock_info import LockInfo, now_local

_LATIN = re.compile(r"[A-Za-z]{3,}")


def _latin(text: str) -> bool:
    """English words in `text`, "API key" aside (Chinese authors say it that way too)."""
    return bool(_LATIN.search(text.replace("API key", "")))


def test_every_state_stage_action_and_kind_has_a_chinese_name() -> None:
    for state in OrchestratorState:
        assert state.value in STATES and not _latin(state_name(state.value, "zh"))
    for stage in PipelineStage:
        assert stage.value in STAGES and not _latin(stage_name(stage.value, "zh"))
    for action in GateAction:
        assert action.value in GATE_ACTIONS and not _latin(gate_action_name(action.value, "zh"))
    for kind in QuestionKind:
        assert kind.value in QUESTION_KINDS and not _latin(question_kind_name(kind.value, "zh"))
    assert state_name("VOL_REVIEW", "zh") == "卷末回顾"
    assert state_name("WRITING", "en") == "writing"
    assert stage_name("summarize", "zh") == "摘要"
    assert state_name("SOMETHING_NEW", "zh") == "SOMETHING_NEW"  # unknown: shown as it is, never lost


def test_every_provider_error_kind_has_a_name() -> None:
    import pipeline.providers.base as base

    kinds = {
        cls.kind
        for cls in vars(base).values()
        if isinstance(cls, type) and issubclass(cls, base.ProviderError)
    }
    assert kinds <= set(ERROR_KINDS)


@pytest.mark.parametrize(
    ("overall", "hc", "hard", "revisions", "band"),
    [
        (2.92, False, False, 0, "2.00-2.99"),
        (2.0, False, False, 0, "2.00-2.99"),
        (3.49, False, False, 0, "3.00-3.49"),
        (3.95, False, False, 0, "3.50-3.99"),
        (4.3, False, False, 0, "≥ 4.00"),
        (1.5, False, False, 0, "< 2.00"),
    ],
)
def test_gate_reason_states_the_band_the_score_is_in(
    overall: float, hc: bool, hard: bool, revisions: int, band: str
) -> None:
    decision = decide_gate(overall, high_confidence_violation=hc, hard_violation=hard, revision_count=revisions)
    text = gate_reason(decision.action.value, decision.overall, revisions, "zh")
    assert band in text and f"{round(overall, 2):.2f}" in text
    assert not _latin(text)
    english = decision.reason  # the log's reason states the same band
    if "-" in band:
        assert band in english


def test_gate_reason_for_a_violation_and_exhausted_revisions() -> None:
    violation = decide_gate(3.8, high_confidence_violation=True, hard_violation=False, revision_count=0)
    assert violation.action is GateAction.REVISE
    assert "契约违规" in gate_reason("revise", 3.8, 0, "zh") and "1/2" in gate_reason("revise", 3.8, 0, "zh")
    assert "强制通过" in gate_reason("force_pass", 3.2, 2, "zh")
    assert "2.00" in gate_reason("pause_exhausted", 1.5, 2, "zh")


def test_error_texts_are_chinese_with_the_detail_kept() -> None:
    text = error_text("connection", "Connection refused", "zh")
    assert text.startswith("连不上服务商") and "Connection refused" in text
    assert error_text("weird_kind", "x", "zh") == "x"
    assert describe_error(ProviderConnectionError("Connection refused"), "zh").startswith("连不上服务商")
    status = LockStatus(LockState.HELD_ALIVE, "held", LockInfo(pid=4242, host="box", chapter=3, started=now_local()))
    held = describe_error(LockBusyError(Path("/novel"), status), "zh")
    assert held.startswith("项目正被另一进程使用") and "4242" in held
    assert "held by" not in held


def test_status_prints_state_and_stage_in_chinese(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "novel"
    init_project(root, sample=True)
    assert main(["--project", str(root), "status"]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.startswith("状态："))
    assert "WRITING" not in line and "committed" not in line
    assert line == "状态：写作 · 阶段：已提交", line
    assert main(["--project", str(root), "--lang", "en", "status"]) == 0
    assert "State: writing · stage: committed" in capsys.readouterr().out
