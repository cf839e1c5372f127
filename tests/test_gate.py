import pytest

from pipeline.gate import GateAction, decide_gate


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
