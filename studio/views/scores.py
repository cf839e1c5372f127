"""The scores pane as plain data: the 8 dimensions as bars with their weights, overall and recommendation,
the force-passed mark, contract violations with confidence, risk flags, required fixes, and a text sparkline
of overall scores across chapters.

`chapter_scores(project)` reads every evaluation's (overall, recommendation, force_passed) through the same
stat-keyed cache as `novel-studio status` (in the user cache folder, `studio.status_memo.cache_file`), so a refresh on 500
chapters parses no evaluation file that did not change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from studio.errors import FormatError
from studio.i18n import Catalog, Lang, tr
from studio.i18n_names import RECOMMENDATIONS
from studio.models.evaluation import DIMENSION_WEIGHTS, Evaluation
from studio.project import Project
from studio.status import EVALUATION_CACHE, ChapterScore, cache_file
from studio.status_scores import score_rows

SPARK_CHARS = "▁▂▃▄▅▆▇█"
BAR_FULL = "█"
BAR_HALF = "▌"
BAR_EMPTY = "░"
BAR_CELLS = 5  # one cell per score point (scores are 1..5)

DIMENSION_LABELS: dict[str, tuple[str, str]] = {
    "plot_logic": ("情节逻辑", "Plot logic"),
    "character": ("人物塑造", "Character"),
    "immersion": ("沉浸感", "Immersion"),
    "foreshadowing": ("伏笔处理", "Foreshadowing"),
    "pacing": ("节奏把控", "Pacing"),
    "style_naturalness": ("文风自然", "Natural style"),
    "emotional_impact": ("情感冲击", "Emotional impact"),
    "storyline_coherence": ("故事线连贯", "Storyline coherence"),
}

RECOMMENDATION_LABELS: dict[str, tuple[str, str]] = RECOMMENDATIONS
"""The judge's recommendations by name (the one catalog: `studio.i18n_names`)."""

CONFIDENCE_LABELS: dict[str, tuple[str, str]] = {
    "high": ("高", "high"),
    "medium": ("中", "medium"),
    "low": ("低", "low"),
}

MESSAGES: Catalog = {
    "empty": ("本章尚未评分", "This chapter has not been scored yet"),
    "chapter": ("第{n}章评分", "Scores of chapter {n}"),
    "overall": ("综合 {overall}/5", "Overall {overall}/5"),
    "recommendation": ("建议：{label}", "Recommendation: {label}"),
    "force_passed": ("强制通过", "force-passed"),
    "violations": ("契约违规", "Contract violations"),
    "no_violations": ("无契约违规", "No contract violations"),
    "risk_flags": ("风险提示", "Risk flags"),
    "required_fixes": ("必须修改", "Required fixes"),
    "trend": ("综合分走势", "Overall trend"),
    "trend_range": ("第{first}-{last}章 · {lo}-{hi}", "Ch {first}-{last} · {lo}-{hi}"),
    "confidence": ("置信度{label}", "{label} confidence"),
}


def label(table: dict[str, tuple[str, str]], key: str, lang: Lang) -> str:
    """The zh/en label of `key` in one of this module's tables; an unknown key is shown as it is."""
    pair = table.get(key)
    if pair is None:
        return key
    return pair[0] if lang == "zh" else pair[1]


# ---------------------------------------------------------------------------------------------- data


@dataclass(frozen=True)
class DimensionRow:
    key: str
    weight: float
    score: float
    reason: str = ""

    @property
    def bar(self) -> str:
        return score_bar(self.score)

    def label(self, lang: Lang = "zh") -> str:
        return label(DIMENSION_LABELS, self.key, lang)


@dataclass(frozen=True)
class ViolationRow:
    id: str
    confidence: str  # high / medium / low
    detail: str = ""
    evidence: str = ""


@dataclass(frozen=True)
class FixRow:
    target: str
    instruction: str


@dataclass(frozen=True)
class ScoresModel:
    """What the scores pane shows for one chapter. `chapter is None` or `dimensions == []`: not scored."""

    chapter: int | None = None
    dimensions: list[DimensionRow] = field(default_factory=list)
    overall: float | None = None
    recommendation: str | None = None
    force_passed: bool = False
    violations: list[ViolationRow] = field(default_factory=list)
    risk_flags: list[str] = field(default_factory=list)
    required_fixes: list[FixRow] = field(default_factory=list)
    sparkline: str = ""
    trend_first: int | None = None
    trend_last: int | None = None
    trend_low: float | None = None
    trend_high: float | None = None

    @property
    def is_empty(self) -> bool:
        return not self.dimensions


# ---------------------------------------------------------------------------------------------- text helpers


def score_bar(score: float, cells: int = BAR_CELLS) -> str:
    """`████░` for 4 of 5; half points as `▌` (3.5 -> `███▌░`). Scores are clamped to 0..cells."""
    value = max(0.0, min(float(cells), float(score)))
    full = int(value)
    half = value - full >= 0.5
    out = BAR_FULL * full + (BAR_HALF if half else "")
    return out + BAR_EMPTY * (cells - full - (1 if half else 0))


def _bucket(values: Sequence[float], width: int) -> list[float]:
    """Average `values` into at most `width` buckets (keeping order), so any history fits the pane."""
    if width <= 0:
        return []
    if len(values) <= width:
        return list(values)
    out: list[float] = []
    n = len(values)
    for i in range(width):
        lo = i * n // width
        hi = max(lo + 1, (i + 1) * n // width)
        chunk = values[lo:hi]
        out.append(sum(chunk) / len(chunk))
    return out


def sparkline(
    values: Sequence[float],
    *,
    width: int | None = None,
    lo: float | None = None,
    hi: float | None = None,
    min_span: float = 1.0,
) -> str:
    """A text sparkline with ▁▂▃▄▅▆▇█ (works in any terminal, with or without colour).

    The scale runs from `lo` to `hi`; by default from the data's own minimum to maximum, widened around its
    middle to at least `min_span` (so 3.8 vs 4.2 shows as a step, not as the full height). A flat series draws
    mid-height bars. With `width`, longer series are averaged into `width` buckets.
    """
    data = _bucket(values, width) if width is not None else list(values)
    if not data:
        return ""
    low = min(data) if lo is None else lo
    high = max(data) if hi is None else hi
    if lo is None and hi is None and 0 < high - low < min_span:
        middle = (high + low) / 2
        low, high = middle - min_span / 2, middle + min_span / 2
    top = len(SPARK_CHARS) - 1
    if high <= low:
        return SPARK_CHARS[top // 2] * len(data)
    out = []
    for v in data:
        ratio = (min(max(v, low), high) - low) / (high - low)
        out.append(SPARK_CHARS[round(ratio * top)])
    return "".join(out)


# ---------------------------------------------------------------------------------------------- building


def build_scores(
    evaluation: Evaluation | None,
    history: Sequence[tuple[int, float]] = (),
    *,
    sparkline_width: int | None = 40,
) -> ScoresModel:
    """The scores pane for one chapter's evaluation (None: not scored) and the overall scores of all
    chapters as (chapter, overall) pairs for the sparkline."""
    ordered = sorted(history)
    values = [score for _, score in ordered]
    trend = ScoresModel(
        sparkline=sparkline(values, width=sparkline_width),
        trend_first=ordered[0][0] if ordered else None,
        trend_last=ordered[-1][0] if ordered else None,
        trend_low=min(values) if values else None,
        trend_high=max(values) if values else None,
    )
    if evaluation is None:
        return trend
    table = evaluation.scores.as_dict()
    dimensions = [
        DimensionRow(key=name, weight=weight, score=float(table[name].score), reason=table[name].reason)
        for name, weight in DIMENSION_WEIGHTS.items()
    ]
    violations = [
        ViolationRow(id=c.id, confidence=c.confidence, detail=c.detail, evidence=c.evidence)
        for c in evaluation.violations()
    ]
    order = {"high": 0, "medium": 1, "low": 2}
    violations.sort(key=lambda v: order.get(v.confidence, 3))
    recommendation = getattr(evaluation.recommendation, "value", evaluation.recommendation)
    return replace(
        trend,
        chapter=evaluation.chapter,
        dimensions=dimensions,
        overall=evaluation.computed_overall(),
        recommendation=str(recommendation) if recommendation is not None else None,
        force_passed=bool(evaluation.force_passed),
        violations=violations,
        risk_flags=[str(flag) for flag in evaluation.risk_flags],
        required_fixes=[FixRow(target=f.target, instruction=f.instruction) for f in evaluation.required_fixes],
    )


def chapter_scores(project: Project) -> dict[int, ChapterScore]:
    """(overall, recommendation, force_passed) of every chapter with an evaluation, by chapter number.

    The same reader as `novel-studio status` (`studio.status_scores.score_rows`, its stat-keyed cache in the
    user cache folder); an unreadable evaluation file is skipped (status reports it).
    """
    rows = score_rows(project.evaluation_files(), cache_file(project.root, EVALUATION_CACHE), lambda path, exc: None)
    return {row["chapter"]: ChapterScore(**row) for row in rows}


def scores_for_chapter(
    project: Project,
    n: int,
    *,
    sparkline_width: int | None = 40,
    history: Sequence[tuple[int, float]] | None = None,
) -> ScoresModel:
    """The scores pane of chapter `n` of `project` (an unreadable evaluation shows as not scored).

    `history`: every chapter's overall score for the sparkline, when the caller already has them (the
    studio takes them from its outline rows: a chapter selection then reads one evaluation, not 500
    stats and the cache); chapter `n`'s own entry is replaced by its fresh score. None: `chapter_scores`."""
    path = project.paths.evaluation(n)
    try:  # read fresh: the project object's own memo would miss a re-judged chapter
        evaluation = Evaluation.load(path) if path.is_file() else None
    except (FormatError, OSError):
        evaluation = None
    if history is None:
        pairs = [(c, s.overall) for c, s in chapter_scores(project).items()]
    else:
        pairs = [(c, score) for c, score in history if c != n]
        if evaluation is not None:
            pairs.append((n, evaluation.computed_overall()))
    return build_scores(evaluation, pairs, sparkline_width=sparkline_width)


def format_overall(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def trend_caption(model: ScoresModel, lang: Lang) -> str:
    if model.trend_first is None or model.trend_low is None or model.trend_high is None:
        return ""
    return tr(MESSAGES, "trend_range", lang, first=model.trend_first, last=model.trend_last,
              lo=f"{model.trend_low:.2f}", hi=f"{model.trend_high:.2f}")
