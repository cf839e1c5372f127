"""The checks' findings on a chapter under review, as brief evidence for the judge (issue 8: findings to the judge).

The judge sees the staged text before it is committed, so the cheap checks that speak to prose quality run on that
text here (blacklist use and density, name variants against the book's counts, punctuation, storyline leaks and
their weaker signals: the Summarizer's metadata is staged before the judge runs), waived findings left
out. The result is a few lines in Chinese (prompts to the model are Chinese), at most `MAX_LINES`, most severe
first; it goes to the chapter tier of the judge's prompt (after the last cache breakpoint). A check that fails
gives no line: evidence is a help, never a reason for the judge call to fail.

The gate (LS-005, issue 8 item 5): a high `storyline_leak` finding of the judged text (another storyline's
exclusive character acting in a chapter that is no convergence chapter, not waived) is a hard violation, not
only evidence. `leak_violations` turns each into an `LS-005` contract check (violation, high confidence, the
finding's message as detail and the chapter's words around it as evidence) and `with_violations` adds them to
the judge's evaluation before it is staged, so the one gate of the orchestrator (`pipeline.gate`, for the CLI
and the studio alike) sees them: a revision with the leak among its violations, a pause for the author when
revisions are spent (unless the project made LS-005 soft). The weaker signals (`storyline_leak_hint`: a mere
mention, the Summarizer's `leak_risk: high`) stay evidence for the judge only; high continuity and leak
findings after the commit pause a multi-chapter run (`studio.checks.run.pausing_findings`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from studio.checks.leaks import StorylineLeakCheck
from studio.checks.prose import BlacklistCheck
from studio.checks.punctuation import PunctuationCheck
from studio.checks.registry import ChapterText, Check
from studio.checks.run import project_context, run_checks
from studio.checks.variants import NameVariantCheck
from studio.models.check_allow import CheckAllowList
from studio.models.evaluation import ContractCheck, Evaluation
from studio.models.findings import Finding, severity_rank
from studio.project import Project

MAX_LINES = 8
LEAK_RULE = "LS-005"
EVIDENCE_KINDS = frozenset(
    {"blacklist", "blacklist_density", "name_variant", "punctuation", "storyline_leak", "storyline_leak_hint"}
)


def judge_findings(
    project: Project, chapter: int, text: str, checks: Sequence[Check] | None = None
) -> list[Finding]:
    """The evidence findings of `text` as chapter `chapter` (the other committed chapters give name counts);
    `checks`: a part of the evidence checks only."""
    ctx, _ = project_context(project, chapter, chapter, lang="zh")
    ctx = dataclasses.replace(ctx, chapters=[ChapterText(chapter, text)])
    if checks is None:
        checks = [BlacklistCheck(), NameVariantCheck(), PunctuationCheck(), StorylineLeakCheck()]
    allow = CheckAllowList.load_or_default(project.paths.check_allow)
    report = run_checks(ctx, checks=checks, allow=allow)
    return [f for f in report.findings if f.kind in EVIDENCE_KINDS]


def evidence_lines(findings: list[Finding], limit: int = MAX_LINES) -> list[str]:
    """One line a finding, most severe first then in text order; a last line says how many were left out."""
    ranked = sorted(findings, key=lambda f: (-severity_rank(f.severity), f.paragraph or 0, f.offset or 0))
    lines = []
    for f in ranked[:limit]:
        where = f"第 {f.paragraph} 段：" if f.paragraph else ""
        lines.append(f"- {where}{f.message or f.text}")
    if len(ranked) > limit:
        lines.append(f"- 另有 {len(ranked) - limit} 条，从略")
    return lines


def judge_evidence(project: Project, chapter: int, text: str) -> str:
    """The judge's evidence block for `text`, "" when clean or when the checks could not run."""
    try:
        return "\n".join(evidence_lines(judge_findings(project, chapter, text)))
    except Exception:  # noqa: BLE001 - evidence is optional; the judge call must not fail for it
        return ""


def gate_checks(findings: Sequence[Finding]) -> list[ContractCheck]:
    """The hard violations among `findings`: each high `storyline_leak` as an LS-005 contract check."""
    return [
        ContractCheck(
            id=LEAK_RULE,
            status="violation",
            confidence="high",
            detail=f.message or f.text,
            evidence=f.context or f.text,
        )
        for f in findings
        if f.kind == "storyline_leak" and f.severity == "high"
    ]


def leak_violations(project: Project, chapter: int, text: str) -> list[ContractCheck]:
    """The LS-005 violations the leak check finds in `text` as chapter `chapter` ([] when it cannot run)."""
    try:
        return gate_checks(judge_findings(project, chapter, text, [StorylineLeakCheck()]))
    except Exception:  # noqa: BLE001 - like the evidence, the check must not make the judge step fail
        return []


def with_violations(evaluation: Evaluation, checks: Sequence[ContractCheck]) -> Evaluation:
    """`evaluation` with `checks` added to its storyline checks (one the judge reported already, same rule and
    evidence, is not added twice)."""
    verification = evaluation.contract_verification
    have = {(c.id, c.evidence) for c in verification.ls_checks if c.status == "violation"}
    new = [c for c in checks if (c.id, c.evidence) not in have]
    if not new:
        return evaluation
    updated = verification.model_copy(update={"ls_checks": [*verification.ls_checks, *new], "has_violations": True})
    return evaluation.model_copy(update={"contract_verification": updated})
