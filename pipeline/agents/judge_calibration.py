"""What the pipeline checks in a judge's scores before the gate sees them (issue 9 item 3).

Rules:
- **Evidence**: every dimension's `evidence` must be a passage of the judged chapter. It is looked up with the
  checks' quote lookup (`studio.checks.quotes.QuoteIndex`: whitespace and punctuation ignored, abridging with
  …… allowed, one or two characters misquoted tolerated). The paragraph marks the judge saw (`【3】`, `第3段：`)
  are dropped first. An evidence of several quotes (`「甲」……「乙」`, or parts split by ； or a line break) is found
  when every quote is. A quote shorter than `MIN_QUOTE_CHARS` normalised characters, or an empty evidence, is
  not evidence. The judge is asked once more for the dimensions whose evidence was not found; a dimension still
  unfound is capped at `UNVERIFIED_CAP` and marked `evidence_verified: false`; found ones get `true`.
- **Prose metrics** (`studio.checks.metrics`, the one definition): `style_naturalness` is capped at `STYLE_CAP`
  when the blacklist density reaches `BLACKLIST_PER_1K_LIMIT` (seed 000 section 7 L4: under 3 per 千字), when
  an entry of a zero-tolerance category (the reference plugin's flag, e.g. its em-dash ban) is used at all, when
  `REPEATED_OPENINGS_LIMIT` or more sentences complete a run of repeated openings, or when one phrase (names
  excluded) recurs `REPEATED_PHRASE_LIMIT` times or more.
- A cap only lowers a score, says why in `cap_reason`, and leaves the seed's eight weights alone: `overall` is
  recomputed by `weighted_overall`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pipeline.context_pieces import MIN_QUOTE_CHARS, paragraph_number_prefix
from pipeline.replies import JudgeReply
from studio.checks.metrics import ProseMetrics
from studio.checks.quotes import QuoteIndex, normalise
from studio.models.evaluation import DIMENSION_WEIGHTS, DimensionScore, Evaluation, weighted_overall

__all__ = [
    "UNVERIFIED_CAP",
    "calibrate",
    "evidence_errors",
    "evaluation_findings",
    "evidence_found",
    "style_cap_reason",
    "unfound_dimensions",
]

UNVERIFIED_CAP = 3.0
STYLE_CAP = 3.0
BLACKLIST_PER_1K_LIMIT = 3.0
REPEATED_OPENINGS_LIMIT = 3
REPEATED_PHRASE_LIMIT = 5

_BRACKETED = re.compile(r"「([^」]+)」|『([^』]+)』")
_INLINE_MARK = re.compile(r"【\s*\d+\s*】")
_PARTS = re.compile(r"[；;\n]+")


def _clean(quote: str) -> str:
    return _INLINE_MARK.sub("", paragraph_number_prefix.sub("", quote.strip())).strip()


def _quote_ok(quote: str, index: QuoteIndex) -> bool:
    cleaned = _clean(quote)
    return len(normalise(cleaned)[0]) >= MIN_QUOTE_CHARS and index.find(cleaned) is not None


def evidence_found(evidence: str, index: QuoteIndex) -> bool:
    """Whether `evidence` is (or is made of) passages of the indexed chapter; see the module rules."""
    if _quote_ok(evidence, index):
        return True
    bracketed = [a or b for a, b in _BRACKETED.findall(evidence)]
    parts = bracketed or [p for p in _PARTS.split(evidence) if p.strip()]
    return len(parts) > 1 and all(_quote_ok(p, index) for p in parts)


def unfound_dimensions(reply: JudgeReply, index: QuoteIndex) -> list[str]:
    """The dimensions (in the seed's order) whose evidence is not in the chapter."""
    scores = reply.scores.as_dict()
    return [name for name in DIMENSION_WEIGHTS if not evidence_found(scores[name].evidence, index)]


def evidence_errors(reply: JudgeReply, dimensions: Iterable[str]) -> list[str]:
    """What the follow-up ask tells the judge (Chinese: it goes to the model), one line a dimension."""
    scores = reply.scores.as_dict()
    lines = []
    for name in dimensions:
        quoted = scores[name].evidence.strip()
        shown = f"「{quoted[:60]}」" if quoted else "（空）"
        lines.append(
            f"$.scores.{name}.evidence：{shown} 在正文中找不到。evidence 必须逐字摘录正文中的一句或一段"
            f"（至少 {MIN_QUOTE_CHARS} 个字，不带段号【N】；节选用……连接），并据此重新核对 reason 与 score"
        )
    return lines


def style_cap_reason(metrics: ProseMetrics) -> str | None:
    """Why the style score is capped by the measured prose metrics, or None when they are within bounds."""
    reasons = []
    if metrics.blacklist_per_1k >= BLACKLIST_PER_1K_LIMIT:
        reasons.append(f"黑名单用语 {metrics.blacklist_per_1k} 次/千字（应低于 {BLACKLIST_PER_1K_LIMIT:g}）")
    zero = [m.entry.ref for m in metrics.blacklist.matches if m.entry.zero_tolerance]
    if zero:
        reasons.append(f"零容忍用语「{zero[0]}」出现 {len(zero)} 次")
    if len(metrics.repeated_openings) >= REPEATED_OPENINGS_LIMIT:
        reasons.append(f"句首重复 {len(metrics.repeated_openings)} 处")
    phrase = next(((p, n) for p, n in metrics.repeated_phrases if n >= REPEATED_PHRASE_LIMIT), None)
    if phrase is not None:
        reasons.append(f"“{phrase[0]}”重复 {phrase[1]} 次")
    return "；".join(reasons) or None


def _capped(entry: DimensionScore, cap: float, reason: str) -> DimensionScore:
    if entry.score <= cap:
        return entry
    why = f"{entry.cap_reason}；{reason}" if entry.cap_reason else reason
    return entry.model_copy(update={"score": cap, "cap_reason": why})


def calibrate(
    evaluation: Evaluation,
    *,
    unverified: Iterable[str],
    style_reason: str | None,
) -> Evaluation:
    """The evaluation with evidence marks and caps applied (see the module rules); `overall` recomputed."""
    missing = set(unverified)
    updated: dict[str, DimensionScore] = {}
    for name, entry in evaluation.scores.as_dict().items():
        entry = entry.model_copy(update={"evidence_verified": name not in missing})
        if name in missing:
            entry = _capped(entry, UNVERIFIED_CAP, "评审引用的原文在本章中找不到")
        if name == "style_naturalness" and style_reason:
            entry = _capped(entry, STYLE_CAP, f"程序统计：{style_reason}")
        updated[name] = entry
    scores = evaluation.scores.model_copy(update=updated)
    return evaluation.model_copy(update={"scores": scores, "overall": weighted_overall(scores)})


DIMENSION_NAMES = {
    "plot_logic": "情节逻辑",
    "character": "角色塑造",
    "immersion": "沉浸感",
    "foreshadowing": "伏笔",
    "pacing": "节奏",
    "style_naturalness": "风格自然度",
    "emotional_impact": "情感冲击",
    "storyline_coherence": "故事线连贯",
}
LOW_SCORE = 3.0


def evaluation_findings(evaluation: Evaluation) -> list[str]:
    """The judge's concrete findings, one line each (Chinese, for a prompt): required fixes with their target,
    then the issues, then every dimension scored at `LOW_SCORE` or below with its reason and evidence."""
    lines = [f"{f.target}：{f.instruction}".strip("：") for f in evaluation.required_fixes if f.instruction]
    lines += [issue for issue in evaluation.issues if issue.strip()]
    for name, entry in evaluation.scores.as_dict().items():
        if entry.score <= LOW_SCORE and entry.reason.strip():
            quote = f"（原文：「{entry.evidence.strip()[:60]}」）" if entry.evidence.strip() else ""
            lines.append(f"{DIMENSION_NAMES[name]} {entry.score:g} 分：{entry.reason.strip()}{quote}")
    return lines
