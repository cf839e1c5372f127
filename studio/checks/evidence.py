"""Judge evidence: every passage the judge quotes (a dimension's `evidence`, a contract check's `evidence`) is
looked up in the chapter (`studio.checks.quotes`); one that is not there is a `judge_quote_missing` finding.

An evidence string counts as found when the whole of it is in the chapter (normalised, abridged pieces in
order, or a near miss), or, failing that, when every quoted part of it (“...” or 「...」, at least
`MIN_QUOTE` characters) is. What follows from a missing quote (asking again, capping the score) is the
writing-quality issue's; this check only reports it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from studio.checks.quotes import QuoteIndex, normalise
from studio.checks.registry import CheckContext
from studio.i18n import Catalog, tr
from studio.models.evaluation import Evaluation
from studio.models.findings import Finding

MIN_QUOTE = 4
_QUOTED = re.compile(r"“([^”]+)”|「([^」]+)」")

MESSAGES: Catalog = {
    "missing": (
        "评审在「{where}」引用的原文在本章中找不到：{text}",
        "the judge's quote for '{where}' is not in the chapter: {text}",
    ),
}


def evidence_items(evaluation: Evaluation) -> list[tuple[str, str]]:
    """(where, evidence) for every non-empty evidence string of an evaluation."""
    out = [(name, s.evidence) for name, s in evaluation.scores.as_dict().items() if s.evidence.strip()]
    out += [(c.id, c.evidence) for c in evaluation.contract_verification.all_checks() if c.evidence.strip()]
    return out


def evidence_found(index: QuoteIndex, evidence: str) -> bool:
    if len(normalise(evidence)[0]) == 0 or index.find(evidence) is not None:
        return True
    parts = [m.group(1) or m.group(2) for m in _QUOTED.finditer(evidence)]
    parts = [p for p in parts if len(normalise(p)[0]) >= MIN_QUOTE]
    return bool(parts) and all(index.find(p) is not None for p in parts)


class JudgeQuoteCheck:
    kind = "judge_quote_missing"

    def run(self, ctx: CheckContext) -> Iterable[Finding]:
        out: list[Finding] = []
        for chapter in ctx.chapters:
            evaluation = ctx.evaluations.get(chapter.number)
            if evaluation is None:
                continue
            index = QuoteIndex(chapter.text, chapter.paras)
            for where, evidence in evidence_items(evaluation):
                if not evidence_found(index, evidence):
                    message = tr(MESSAGES, "missing", ctx.lang, where=where, text=evidence)
                    out.append(chapter.finding(self.kind, None, evidence, message=message))
        return out
