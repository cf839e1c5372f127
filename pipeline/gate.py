"""The quality gate of seed 002, as a pure function.

Decided where the seeds are open (issue 3): `overall` is rounded to 2 decimals and each row's lower bound is
inclusive; "high-confidence" means `confidence == "high"`; a rewrite counts against the 2 revisions; a
high-confidence violation of a hard rule (L1, or LS with `constraint_type: hard`) is never force-passed.
The judge's own `recommendation` is recorded elsewhere but never decides.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

MAX_REVISIONS = 2


class GateAction(StrEnum):
    PASS = "pass"  # >= 4.0, no high-confidence violation: commit
    POLISH = "polish"  # 3.5-3.9, no high-confidence violation: second refine pass, then commit
    REVISE = "revise"  # 3.0-3.4 or a high-confidence violation: writer revises with the judge's fixes
    REWRITE = "rewrite"  # < 2.0: full rewrite (counts as a revision)
    FORCE_PASS = "force_pass"  # revisions used up, still >= 3.0, no hard violation: commit marked force_passed
    PAUSE_LOW = "pause_low"  # 2.0-2.9: ask the author (auto-revise / edit by hand / accept)
    PAUSE_EXHAUSTED = "pause_exhausted"  # revisions used up and < 3.0: ask the author
    PAUSE_HARD = "pause_hard"  # revisions used up with a hard high-confidence violation: ask the author


PAUSES = frozenset({GateAction.PAUSE_LOW, GateAction.PAUSE_EXHAUSTED, GateAction.PAUSE_HARD})


@dataclass(frozen=True)
class GateDecision:
    action: GateAction
    overall: float
    reason: str

    @property
    def pauses(self) -> bool:
        return self.action in PAUSES

    @property
    def commits(self) -> bool:
        return self.action in (GateAction.PASS, GateAction.FORCE_PASS)


def decide_gate(
    overall: float,
    *,
    high_confidence_violation: bool,
    hard_violation: bool,
    revision_count: int,
    max_revisions: int = MAX_REVISIONS,
) -> GateDecision:
    """Apply seed 002's table. `hard_violation` implies `high_confidence_violation`."""
    score = round(overall, 2)
    hc = high_confidence_violation or hard_violation
    can_revise = revision_count < max_revisions

    if not hc and score >= 4.0:
        return GateDecision(GateAction.PASS, score, f"overall {score} >= 4.0, no high-confidence violation")
    if not hc and score >= 3.5:
        return GateDecision(GateAction.POLISH, score, f"overall {score} in 3.50-3.99: polish pass")
    if score < 2.0:
        if can_revise:
            return GateDecision(GateAction.REWRITE, score, f"overall {score} < 2.0: full rewrite")
        return GateDecision(GateAction.PAUSE_EXHAUSTED, score, f"overall {score} < 2.0 after {revision_count} revisions")
    if score < 3.0:
        return GateDecision(GateAction.PAUSE_LOW, score, f"overall {score} in 2.00-2.99: the author decides")
    # 3.0-3.4, or any score >= 3.0 with a high-confidence violation
    why = "high-confidence contract violation" if hc else f"overall {score} in 3.00-3.49"
    if can_revise:
        return GateDecision(GateAction.REVISE, score, f"{why}: revision {revision_count + 1}/{max_revisions}")
    if hard_violation:
        return GateDecision(
            GateAction.PAUSE_HARD, score, f"hard-rule violation still present after {revision_count} revisions"
        )
    return GateDecision(GateAction.FORCE_PASS, score, f"{why} after {revision_count} revisions: force-passed")
