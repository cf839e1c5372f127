"""`evaluations/chapter-NNN-eval.json`: QualityJudge's two-track verdict (seed 000 5.8, 6.5.6, 6.6.5; seed 001
9.2; seed 002/003: only high-confidence violations force a revision).

Decisions where the seeds are silent or disagree:
- Track 1 is stored as seed 001's `{l1_checks, l2_checks, l3_checks, ls_checks, has_violations}`. The older
  flat shape of seed 000 5.8 (`{"W-001": "pass", "LS-001": "violation"}`) is accepted and sorted into layers
  by id prefix (W- -> L1, C- -> L2, LS- -> LS, anything else -> L3); it is written back in the layered shape.
- A check status is `pass`, `violation` or `not_applicable`; the judge's `fail`/`failed`/`violated` read as
  `violation` and `n/a` as `not_applicable`. A violation without `confidence` counts as high: a judge that did
  not hedge is taken at its word (the gate errs toward revising).
- `scores` must hold exactly the eight dimensions of 6.6.5: a missing one is an error at `$.scores.<name>`,
  an unknown one is refused (it would be silently ignored by the weighted mean). Scores are numbers in 1..5.
- `overall`, `weight` and `recommendation` are the judge's words, recorded but not trusted: the gate uses
  `weighted_overall()` with `DIMENSION_WEIGHTS`, and `violations()` derived from the checks. A dimension
  without `weight` gets its seed weight, so every evaluation file states the weights it was judged by.

Accepted input variants (the reference plugin, DankerMu/novel-writer-plugin, writes them):
- the envelope `{"chapter": N, "eval_used": {...the verdict...}, "metadata": {...}, "content_eval": {...}}`:
  the verdict's fields are read at the top level, `metadata` / `content_eval` and the rest are kept as
  extra fields; the file is written back flat (`chapter`, the verdict's fields, then the extras).
- a check named by `rule_id`, `contract_id`, `objective_id`, `gate_id` or `check_id` instead of `id` (read
  as `id`, written back as `id`).
- its `contract_verification.platform_hard_gates` (`{gate_id, status: pass|fail|skipped, detail,
  fix_suggestion}`, the golden-three-chapter gates of the platform guide, chapters 1-3) are read as written and
  written back unchanged; a failed gate counts as a high-confidence violation (id = its gate_id, detail with the
  fix), so it forces a revision whatever the score, as the plugin's gate does.
- recommendations `pause_for_user` / `pause` (read as `review`) and `pause_for_user_force_rewrite` /
  `force_rewrite` (read as `rewrite`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Final, Literal, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_serializer,
    field_validator,
    model_serializer,
    model_validator,
)

from studio.models.aliases import lowered, renamed
from studio.models.base import FileModel

DIMENSION_WEIGHTS: Final[dict[str, float]] = {
    "plot_logic": 0.18,
    "character": 0.18,
    "immersion": 0.15,
    "foreshadowing": 0.10,
    "pacing": 0.08,
    "style_naturalness": 0.15,
    "emotional_impact": 0.08,
    "storyline_coherence": 0.08,
}

_STATUS_ALIASES: Final[dict[str, str]] = {
    "fail": "violation",
    "failed": "violation",
    "violated": "violation",
    "passed": "pass",
    "n/a": "not_applicable",
    "na": "not_applicable",
}
_LAYERS: Final = ("l1_checks", "l2_checks", "l3_checks", "ls_checks")
_ID_KEYS: Final = ("rule_id", "contract_id", "objective_id", "gate_id", "check_id")
_RECOMMENDATION_ALIASES: Final[dict[str, str]] = {
    "pause_for_user": "review",
    "pause": "review",
    "pause_for_user_force_rewrite": "rewrite",
    "force_rewrite": "rewrite",
}


class _Object(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class ContractCheck(_Object):
    id: str = Field(min_length=1)
    status: Literal["pass", "violation", "not_applicable"]
    confidence: Literal["high", "medium", "low"] = "high"
    detail: str = ""
    evidence: str = ""

    @model_validator(mode="before")
    @classmethod
    def _named_id(cls, data: Any) -> Any:
        return renamed(data, "id", _ID_KEYS, only=str)

    @field_validator("status", mode="before")
    @classmethod
    def _alias(cls, value: Any) -> Any:
        return lowered(value, _STATUS_ALIASES)

    @field_validator("confidence", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return lowered(value)


def _layer_of(check_id: str) -> str:
    if check_id.startswith("LS-"):
        return "ls_checks"
    if check_id.startswith("W-"):
        return "l1_checks"
    if check_id.startswith("C-"):
        return "l2_checks"
    return "l3_checks"


_GATE_STATUS: Final[dict[str, str]] = {
    "violation": "fail",
    "failed": "fail",
    "failure": "fail",
    "passed": "pass",
    "skip": "skipped",
    "n/a": "not_applicable",
}


class PlatformGate(_Object):
    """One platform hard gate (the reference plugin's `platform_hard_gates`); written back as it was given."""

    gate_id: str = Field(min_length=1)
    status: Literal["pass", "fail", "skipped", "not_applicable"]
    detail: str = ""
    fix_suggestion: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _named_id(cls, data: Any) -> Any:
        return renamed(data, "gate_id", ("id",), only=str)

    @field_validator("status", mode="before")
    @classmethod
    def _alias(cls, value: Any) -> Any:
        return lowered(value, _GATE_STATUS)

    @model_serializer(mode="wrap")
    def _as_given(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        given = self.model_fields_set | set(self.model_extra or {})
        return {k: v for k, v in data.items() if k in given} if isinstance(data, dict) else data

    def as_check(self) -> ContractCheck | None:
        """A failed gate as the high-confidence violation the gate acts on; None when it did not fail."""
        if self.status != "fail":
            return None
        detail = "；".join(p for p in (self.detail, self.fix_suggestion or "") if p)
        return ContractCheck(id=self.gate_id, status="violation", confidence="high", detail=detail)


class ContractVerification(_Object):
    l1_checks: list[ContractCheck] = Field(default_factory=list)
    l2_checks: list[ContractCheck] = Field(default_factory=list)
    l3_checks: list[ContractCheck] = Field(default_factory=list)
    ls_checks: list[ContractCheck] = Field(default_factory=list)
    platform_hard_gates: list[PlatformGate] = Field(default_factory=list)
    has_violations: bool = False  # the judge's summary; `violations()` recomputes it from the checks

    @model_validator(mode="before")
    @classmethod
    def _flat_shape(cls, data: Any) -> Any:
        if not isinstance(data, dict) or not data or any(k in data for k in (*_LAYERS, "has_violations")):
            return data
        layered: dict[str, list[Any]] = {layer: [] for layer in _LAYERS}
        for key, value in data.items():
            entry = {"id": key, **value} if isinstance(value, dict) else {"id": key, "status": value}
            layered[_layer_of(str(key))].append(entry)
        statuses = [e.get("status") for layer in layered.values() for e in layer]
        return {
            **layered,
            "has_violations": any(_STATUS_ALIASES.get(str(s).lower(), s) == "violation" for s in statuses),
        }

    def all_checks(self) -> list[ContractCheck]:
        """Every check of the four layers, then each failed platform gate as a violation."""
        gates = [c for c in (g.as_check() for g in self.platform_hard_gates) if c is not None]
        return [*self.l1_checks, *self.l2_checks, *self.l3_checks, *self.ls_checks, *gates]

    @model_serializer(mode="wrap")
    def _gates_when_given(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict) and not self.platform_hard_gates and "platform_hard_gates" not in self.model_fields_set:
            data.pop("platform_hard_gates", None)  # files without gates stay without the key
        return data


class DimensionScore(_Object):
    score: float = Field(ge=1, le=5)
    weight: float | None = None  # informative only: DIMENSION_WEIGHTS is what counts
    reason: str = ""
    evidence: str = ""
    # Set by the pipeline, never by the judge (issue 9 item 3): False when the evidence could not be found in the
    # chapter even after one more ask (the score is then capped); `cap_reason` says why a score was lowered.
    evidence_verified: bool | None = None
    cap_reason: str | None = None

    @field_serializer("score")
    def _plain(self, value: float) -> float | int:
        # Keep `4` as `4` on rewrite; the judge writes whole numbers most of the time.
        return int(value) if value.is_integer() else value

    @model_serializer(mode="wrap")
    def _unset_pipeline_fields(self, handler: SerializerFunctionWrapHandler) -> Any:
        # Files judged before the checks existed stay as they were: the two pipeline fields only when set.
        data = handler(self)
        if isinstance(data, dict):
            for key in ("evidence_verified", "cap_reason"):
                if data.get(key) is None:
                    data.pop(key, None)
        return data


class Scores(BaseModel):
    # Exactly the eight dimensions: an extra one would be silently left out of the weighted mean.
    model_config = ConfigDict(extra="forbid")

    plot_logic: DimensionScore
    character: DimensionScore
    immersion: DimensionScore
    foreshadowing: DimensionScore
    pacing: DimensionScore
    style_naturalness: DimensionScore
    emotional_impact: DimensionScore
    storyline_coherence: DimensionScore

    @model_validator(mode="after")
    def _seed_weights(self) -> Self:
        # Item 19 of issue 11: a judge that leaves weights out must not produce `"weight": null` files.
        for name, weight in DIMENSION_WEIGHTS.items():
            entry: DimensionScore = getattr(self, name)
            if entry.weight is None:
                entry.weight = weight
        return self

    def as_dict(self) -> dict[str, DimensionScore]:
        return {name: getattr(self, name) for name in DIMENSION_WEIGHTS}


def weighted_overall(scores: Scores | Mapping[str, DimensionScore | float]) -> float:
    """Weighted mean of the eight dimensions with the seed's weights, rounded half-up to 2 decimals."""
    table: Mapping[str, DimensionScore | float] = scores.as_dict() if isinstance(scores, Scores) else scores
    missing = [name for name in DIMENSION_WEIGHTS if name not in table]
    if missing:
        raise ValueError(f"missing score dimensions: {', '.join(missing)}")
    total = Decimal(0)
    weights = Decimal(0)
    for name, weight in DIMENSION_WEIGHTS.items():
        entry = table[name]
        value = entry.score if isinstance(entry, DimensionScore) else entry
        # Decimal from the printed value: 3.825 must round to 3.83, not to binary 3.8249999.
        total += Decimal(str(value)) * Decimal(str(weight))
        weights += Decimal(str(weight))
    return float((total / weights).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


class RequiredFix(_Object):
    target: str = ""  # which paragraph / passage
    instruction: str = ""


class Evaluation(FileModel):
    chapter: int = Field(ge=1)
    contract_verification: ContractVerification = Field(default_factory=ContractVerification)
    scores: Scores
    overall: float | None = None  # the judge's arithmetic; see weighted_overall()
    recommendation: Literal["pass", "polish", "revise", "review", "rewrite"] | None = None
    risk_flags: list[str] = Field(default_factory=list)
    required_fixes: list[RequiredFix] = Field(default_factory=list)
    issues: list[str] = Field(default_factory=list)
    strengths: list[str] = Field(default_factory=list)
    force_passed: bool = False

    @model_validator(mode="before")
    @classmethod
    def _envelope(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("eval_used"), dict) and "scores" not in data:
            rest = {k: v for k, v in data.items() if k != "eval_used"}
            verdict = {k: v for k, v in data["eval_used"].items() if k not in rest}
            return {"chapter": rest.pop("chapter", verdict.pop("chapter", None)), **verdict, **rest}
        return data

    @field_validator("recommendation", mode="before")
    @classmethod
    def _recommendation_alias(cls, value: Any) -> Any:
        return lowered(value, _RECOMMENDATION_ALIASES)

    def computed_overall(self) -> float:
        return weighted_overall(self.scores)

    def violations(self) -> list[ContractCheck]:
        return [c for c in self.contract_verification.all_checks() if c.status == "violation"]

    def high_confidence_violations(self) -> list[ContractCheck]:
        return [c for c in self.violations() if c.confidence == "high"]

    def _soft_checks(self, soft_ids: Collection[str]) -> set[int]:
        soft = set(soft_ids)
        verification = self.contract_verification
        return {id(c) for c in (*verification.l1_checks, *verification.ls_checks) if c.id in soft}

    def blocking_violations(self, soft_ids: Collection[str]) -> list[ContractCheck]:
        """The high-confidence violations that force a revision: every one but those of soft L1 and LS rules
        (`soft_ids`), which are reported and never block (seed 000 6.6.4-6.6.5, issue 9 item 3)."""
        soft = self._soft_checks(soft_ids)
        return [c for c in self.high_confidence_violations() if id(c) not in soft]

    def soft_violations(self, soft_ids: Collection[str]) -> list[ContractCheck]:
        """Violations of soft L1/LS rules, whatever their confidence: reported, not blocking."""
        soft = self._soft_checks(soft_ids)
        return [c for c in self.violations() if id(c) in soft]
