import pytest

from pipeline.gate import GateAction, decide_gate, gate_evaluation, soft_rule_ids
from studio.models.evaluation import DIMENSION_WEIGHTS, Evaluation
from studio.models.storyline_spec import StorylineSpec
from studio.models.world_rules import WorldRules


@pytest.mark.parametrize(
    ("overall", "hc", "hard", "revs", "expected"),
    [
        (4.0, False, False, 0, GateAction.PASS),
        (4.8, False, False, 2, GateAction.PASS),
        (3.995, False, False, 0, GateAction.PASS),  # rounds to 4.0: lower bound inclusive
        (3.99, False, False, 0, GateAction.POLISH),
        (3.5, False, False, 0, GateAction.POLISH),
        (3.49, False, False, 0, GateAction.REVISE),
        (3.0, False, False, 0, GateAction.REVISE),
        (3.0, False, False, 1, GateAction.REVISE),
        (3.2, False, False, 2, GateAction.FORCE_PASS),
        (4.5, True, False, 0, GateAction.REVISE),  # a high-confidence violation revises whatever the score
        (4.5, True, False, 2, GateAction.FORCE_PASS),
        (4.5, True, True, 2, GateAction.PAUSE_HARD),  # hard rules are never force-passed
        (3.3, False, True, 1, GateAction.REVISE),
        (2.99, False, False, 0, GateAction.PAUSE_LOW),
        (2.0, False, False, 0, GateAction.PAUSE_LOW),
        (2.0, True, False, 0, GateAction.PAUSE_LOW),
        (1.99, False, False, 0, GateAction.REWRITE),
        (1.5, False, False, 1, GateAction.REWRITE),
        (1.5, False, False, 2, GateAction.PAUSE_EXHAUSTED),
    ],
)
def test_gate_table(overall: float, hc: bool, hard: bool, revs: int, expected: GateAction) -> None:
    decision = decide_gate(overall, high_confidence_violation=hc, hard_violation=hard, revision_count=revs)
    assert decision.action is expected
    assert decision.overall == round(overall, 2)


def test_pause_and_commit_flags() -> None:
    assert decide_gate(2.5, high_confidence_violation=False, hard_violation=False, revision_count=0).pauses
    assert decide_gate(4.1, high_confidence_violation=False, hard_violation=False, revision_count=0).commits
    forced = decide_gate(3.1, high_confidence_violation=False, hard_violation=False, revision_count=2)
    assert forced.commits and not forced.pauses


def _evaluation(l1: list[dict[str, str]], ls: list[dict[str, str]], score: float = 4.5) -> Evaluation:
    dims = dict.fromkeys(DIMENSION_WEIGHTS, {"score": score})
    return Evaluation.parse_data(
        {"chapter": 3, "scores": dims, "contract_verification": {"l1_checks": l1, "ls_checks": ls}}
    )


def test_soft_rule_violations_are_reported_not_blocking() -> None:
    rules = WorldRules.parse_data({"rules": [{"id": "W-1", "rule": "硬", "constraint_type": "hard"},
                                             {"id": "W-2", "rule": "软", "constraint_type": "soft"}]})
    spec = StorylineSpec.parse_data({"rules": [{"id": "LS-001", "rule": "时间线", "constraint_type": "hard"},
                                               {"id": "LS-002", "rule": "锚点", "constraint_type": "soft"}]})
    soft = soft_rule_ids(rules, spec)
    assert soft == {"W-2", "LS-002"}
    bad = {"status": "violation", "confidence": "high", "detail": "原文"}
    soft_only = _evaluation([{"id": "W-2", **bad}], [{"id": "LS-002", **bad}])
    decision = gate_evaluation(soft_only, soft_ids=soft, hard_ls_ids={"LS-001"}, revision_count=0)
    assert decision.action is GateAction.PASS and "W-2, LS-002" in decision.reason
    hard = _evaluation([{"id": "W-1", **bad}], [])
    assert gate_evaluation(hard, soft_ids=soft, hard_ls_ids={"LS-001"}, revision_count=0).action is GateAction.REVISE
    exhausted = gate_evaluation(hard, soft_ids=soft, hard_ls_ids={"LS-001"}, revision_count=2)
    assert exhausted.action is GateAction.PAUSE_HARD
