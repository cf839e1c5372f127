"""The quality gate of seed 002, as a pure function.

Decided where the seeds are open (issue 3): `overall` is rounded to 2 decimals and each row's lower bound is
inclusive; "high-confidence" means `confidence == "high"`; a rewrite counts against the 2 revisions; a
high-confidence violation of a hard rule (L1 or LS with `constraint_type: hard`) is never force-passed.
The judge's own `recommendation` is recorded elsewhere but never decides.

Soft rules (issue 9 item 3, seed 000 6.6.4-6.6.5: "QualityJudge 对 soft 只报告不阻断"): a violation of a soft L1
rule or a soft LS rule is reported (in the evaluation and the gate's reason) and never forces a revision, whatever
its confidence. Seed 002's "high-confidence violation" is read as a high-confidence violation of anything else:
a hard L1/LS rule, an L2 character contract, an L3 chapter contract (`gate_evaluation`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum

from studio.models.evaluation import Evaluation
from studio.models.storyline_spec import StorylineSpec
from studio.models.world_rules import WorldRules

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
    reported: Sequence[str] = (),
) -> GateDecision:
    """Apply seed 002's table. `hard_violation` implies `high_confidence_violation`. `reported`: ids of soft
    violations, named in the reason and nothing more."""
    decision = _decide(
        overall,
        high_confidence_violation=high_confidence_violation,
        hard_violation=hard_violation,
        revision_count=revision_count,
        max_revisions=max_revisions,
    )
    if reported:
        note = f"; soft violations reported, not blocking: {', '.join(reported)}"
        return GateDecision(decision.action, decision.overall, decision.reason + note)
    return decision


def soft_rule_ids(world_rules: WorldRules, storyline_spec: StorylineSpec) -> frozenset[str]:
    """Ids of the soft L1 and soft LS rules: their violations are reported, never blocking."""
    return frozenset(
        [r.id for r in world_rules.rules if r.constraint_type == "soft"]
        + [r.id for r in storyline_spec.rules if r.constraint_type == "soft"]
    )


def gate_evaluation(
    evaluation: Evaluation,
    *,
    soft_ids: Collection[str],
    hard_ls_ids: Collection[str],
    revision_count: int,
    max_revisions: int = MAX_REVISIONS,
) -> GateDecision:
    """The gate of one evaluation: blocking violations are the high-confidence ones not of a soft rule; hard
    ones are those of L1 rules and hard LS rules."""
    blocking = evaluation.blocking_violations(soft_ids)
    l1 = {c.id for c in evaluation.contract_verification.l1_checks}
    ls = {c.id for c in evaluation.contract_verification.ls_checks}
    hard = any(c.id in l1 or (c.id in ls and c.id in hard_ls_ids) for c in blocking)
    reported = list(dict.fromkeys(c.id for c in evaluation.soft_violations(soft_ids)))
    return decide_gate(
        evaluation.computed_overall(),
        high_confidence_violation=bool(blocking),
        hard_violation=hard,
        revision_count=revision_count,
        max_revisions=max_revisions,
        reported=reported,
    )


def _decide(
    overall: float,
    *,
    high_confidence_violation: bool,
    hard_violation: bool,
    revision_count: int,
    max_revisions: int,
) -> GateDecision:
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
