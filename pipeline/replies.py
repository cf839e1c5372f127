"""The JSON replies of the Summarizer, the StyleRefiner and the QualityJudge, as pydantic models.

Validation errors are what the repair loop (`pipeline.structured`) sends back to the model, so every limit
the prompt states is a validation rule here (an over-long summary is an error, never silently cut).

Decisions:
- Summarizer `ops` stay raw (`list[Any]`): each entry is checked by `studio.state_engine.validate_ops`
  (seed 003 10.6), where one bad entry is dropped with a warning. Only a *malformed* ops field (missing,
  not a JSON list, a string that is not a JSON list) is noted in `ops_error` instead of failing the whole
  reply: the Summarizer agent retries once for it, then skips the chapter's ops.
- `cross_references` may be plain strings or the template's objects `{entity, kind, mention, quote}`;
  objects are rendered to one readable line each.
- The judge's `overall` is never read: `JudgeReply.to_evaluation` recomputes it with `weighted_overall`.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from pipeline.refine_edits import RefineReply
from studio.checks.tags import TAGS, normalise_tag
from studio.errors import StudioError
from studio.ids import is_slug
from studio.models.blacklist_proposals import SuggestedEntry
from studio.models.evaluation import (
    ContractVerification,
    Evaluation,
    RequiredFix,
    Scores,
    weighted_overall,
)

__all__ = [
    "JUDGE_SCHEMA",
    "REFINER_SCHEMA",
    "SUMMARIZER_SCHEMA",
    "JsonExtractError",
    "JudgeReply",
    "RefinerReply",
    "SummarizerReply",
    "extract_json",
    "schema_for",
]

SUMMARY_MAX_CHARS = 300
MEMORY_MAX_CHARS = 500

RefinerReply = RefineReply


class JsonExtractError(StudioError):
    """The reply holds no single parseable JSON object."""


_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n(.*?)\n?[ \t]*```", re.DOTALL)


def extract_json(text: str) -> Any:
    """The one JSON value of a reply: bare, inside a ```json fence, or one object with prose around it.

    Raises JsonExtractError (message in Chinese: it is sent back to the model) when there is none.
    """
    stripped = text.strip().lstrip("\ufeff")
    if not stripped:
        raise JsonExtractError("回复为空，没有 JSON 对象")
    try:
        return _extract(stripped)
    except RecursionError:
        # The stdlib parser recurses per nesting level; a pathologically deep reply goes to repair.
        raise JsonExtractError(f"JSON 嵌套过深（超过 {MAX_JSON_DEPTH} 层），请按要求的结构输出") from None


MAX_JSON_DEPTH = 64  # far beyond any reply schema; deeper nesting is rejected before parsing
_OPENERS = frozenset("[{")
_CLOSERS = frozenset("]}")


def json_depth(text: str) -> int:
    """The deepest bracket nesting of `text`, outside JSON strings (a cheap, non-recursive scan)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in _OPENERS:
            depth += 1
            deepest = max(deepest, depth)
        elif ch in _CLOSERS:
            depth = max(0, depth - 1)
    return deepest


def _extract(stripped: str) -> Any:
    if json_depth(stripped) > MAX_JSON_DEPTH:
        raise RecursionError
    try:
        return json.loads(stripped)
    except json.JSONDecodeError:
        pass
    for match in _FENCE.finditer(stripped):
        try:
            return json.loads(match.group(1))
        except json.JSONDecodeError:
            continue
    start = stripped.find("{")
    if start != -1:
        try:
            value, _ = json.JSONDecoder().raw_decode(stripped[start:])
            return value
        except json.JSONDecodeError as exc:
            raise JsonExtractError(
                f"JSON 无法解析：{exc.msg}（第 {exc.lineno} 行第 {exc.colno} 列）"
            ) from None
    raise JsonExtractError("回复中找不到 JSON 对象（应只输出一个以 { 开头的 JSON 对象）")


def _cross_reference_line(value: Any) -> Any:
    if isinstance(value, dict):
        entity = str(value.get("entity", "")).strip()
        kind = str(value.get("kind", "")).strip()
        mention = str(value.get("mention", "")).strip()
        quote = str(value.get("quote", "")).strip()
        head = entity + (f"（{'，'.join(p for p in (kind, mention) if p)}）" if kind or mention else "")
        return head + (f"：「{quote}」" if quote else "")
    return value


class SummarizerReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    chapter: int | None = None
    storyline_id: str
    summary: str = Field(min_length=1, max_length=SUMMARY_MAX_CHARS)
    ops: list[Any] = Field(default_factory=list)
    storyline_memory: str = Field(min_length=1, max_length=MEMORY_MAX_CHARS)
    cross_references: list[str] = Field(default_factory=list)
    leak_risk: Literal["low", "medium", "high"]
    # Structure tags (studio.checks.structure): optional, so older replies validate; anything but text is dropped.
    chapter_function: str | None = None
    hook_type: str | None = None
    emotional_beat: str | None = None
    goal_progress: str | None = None
    # Set by the validator, never by the model: why the ops field could not be read as a JSON list.
    ops_error: str | None = Field(default=None, exclude=True)

    @model_validator(mode="before")
    @classmethod
    def _raw_ops(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        data["ops_error"] = None
        if "ops" not in data:
            data["ops_error"] = "缺少 ops 字段（没有变更时应为 []）"
            data["ops"] = []
            return data
        ops = data["ops"]
        if isinstance(ops, str):
            try:
                ops = json.loads(ops)
            except json.JSONDecodeError:
                ops = None
        if not isinstance(ops, list):
            data["ops_error"] = "ops 必须是 JSON 数组（形如 [{\"op\": \"set\", \"path\": ..., \"value\": ...}]）"
            ops = []
        data["ops"] = ops
        return data

    @field_validator("storyline_id")
    @classmethod
    def _slug(cls, value: str) -> str:
        if not is_slug(value):
            raise ValueError(f"storyline_id {value!r} 必须是 slug ID（小写英文/拼音 + 连字符，如 main-arc）")
        return value

    @field_validator("chapter_function", "hook_type", "emotional_beat", "goal_progress", mode="before")
    @classmethod
    def _tag(cls, value: Any) -> Any:
        return normalise_tag(value)

    def structure(self) -> dict[str, str]:
        """The structure tags given, by name (the chapter's Summarizer metadata keeps them)."""
        return {name: value for name in TAGS if isinstance(value := getattr(self, name), str)}

    @field_validator("cross_references", mode="before")
    @classmethod
    def _lines(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [_cross_reference_line(v) for v in value]
        return value


_PIPELINE_FIELDS = frozenset({"evidence_verified", "cap_reason"})


def _fix(value: Any) -> Any:
    return {"instruction": value} if isinstance(value, str) else value


class JudgeReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    chapter: int | None = None
    contract_verification: ContractVerification = Field(default_factory=ContractVerification)
    scores: Scores
    recommendation: Literal["pass", "polish", "revise", "review", "rewrite"] | None = None
    risk_flags: list[str] = Field(default_factory=list)
    required_fixes: list[RequiredFix] = Field(default_factory=list)
    issues: list[str] = Field(default_factory=list)
    strengths: list[str] = Field(default_factory=list)
    # Advisory: entries the judge would add to the blacklist. Never applied here (the author approves them,
    # `studio.blacklist_review`); an unusable item is dropped rather than failing the whole verdict.
    blacklist_suggestions: list[SuggestedEntry] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _plugin_suggestions(cls, data: Any) -> Any:
        # the reference plugin's judge writes them under anti_ai.blacklist_update_suggestions
        if isinstance(data, dict) and "blacklist_suggestions" not in data and isinstance(data.get("anti_ai"), dict):
            found = data["anti_ai"].get("blacklist_update_suggestions")
            if found is not None:
                data = {**data, "blacklist_suggestions": found}
        return data

    @field_validator("blacklist_suggestions", mode="before")
    @classmethod
    def _usable_suggestions(cls, value: Any) -> Any:
        if not isinstance(value, list):
            return []
        out = []
        for item in value:
            try:
                out.append(SuggestedEntry.model_validate(item))
            except ValidationError:
                continue
        return out

    @field_validator("scores", mode="before")
    @classmethod
    def _no_pipeline_marks(cls, value: Any) -> Any:
        # evidence_verified and cap_reason are the pipeline's findings, never the judge's own claim
        if isinstance(value, dict):
            return {
                k: {f: v for f, v in d.items() if f not in _PIPELINE_FIELDS} if isinstance(d, dict) else d
                for k, d in value.items()
            }
        return value

    @field_validator("required_fixes", mode="before")
    @classmethod
    def _plain_fixes(cls, value: Any) -> Any:
        return [_fix(v) for v in value] if isinstance(value, list) else value

    @field_validator("recommendation", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    def to_evaluation(self, chapter: int) -> Evaluation:
        """The evaluation file of `chapter`, with `overall` recomputed from the eight scores."""
        return Evaluation(
            chapter=chapter,
            contract_verification=self.contract_verification,
            scores=self.scores,
            overall=weighted_overall(self.scores),
            recommendation=self.recommendation,
            risk_flags=list(self.risk_flags),
            required_fixes=list(self.required_fixes),
            issues=list(self.issues),
            strengths=list(self.strengths),
        )


# ----------------------------------------------------------------------------------------------- schemas
# Hand-written for output_config: only keywords structured-output implementations commonly accept
# (type, properties, required, items, enum, additionalProperties: false). Lengths are checked by us.

_STR: dict[str, Any] = {"type": "string"}
_STR_LIST: dict[str, Any] = {"type": "array", "items": _STR}


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


_OP_VALUE: dict[str, Any] = {
    "anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"}, _STR_LIST]
}

SUMMARIZER_SCHEMA: dict[str, Any] = _object(
    {
        "chapter": {"type": "integer"},
        "storyline_id": _STR,
        "summary": _STR,
        "ops": {
            "type": "array",
            "items": _object(
                {
                    "op": {"type": "string", "enum": ["set", "inc", "add", "remove", "foreshadow"]},
                    "path": _STR,
                    "value": _OP_VALUE,
                    "detail": _STR,
                },
                ["op", "path", "value"],
            ),
        },
        "storyline_memory": _STR,
        "cross_references": {
            "type": "array",
            "items": _object(
                {"entity": _STR, "kind": _STR, "mention": _STR, "quote": _STR}, ["entity", "kind", "mention", "quote"]
            ),
        },
        "leak_risk": {"type": "string", "enum": ["low", "medium", "high"]},
    },
    ["chapter", "storyline_id", "summary", "ops", "storyline_memory", "cross_references", "leak_risk"],
)

REFINER_SCHEMA: dict[str, Any] = _object(
    {
        "edits": {
            "type": "array",
            "items": _object(
                {"original": _STR, "refined": _STR, "reason": _STR, "occurrence": {"type": "integer"}},
                ["original", "refined", "reason"],
            ),
        }
    },
    ["edits"],
)

_CHECK = _object(
    {
        "id": _STR,
        "status": {"type": "string", "enum": ["pass", "violation", "not_applicable"]},
        "confidence": {"type": "string", "enum": ["high", "medium", "low"]},
        "detail": _STR,
    },
    ["id", "status", "confidence", "detail"],
)
# Optional in the schema (quality-judge v2 asks for them; v1 replies leave them out).
_GATE = _object(
    {
        "gate_id": _STR,
        "status": {"type": "string", "enum": ["pass", "fail", "skipped"]},
        "detail": _STR,
        "fix_suggestion": {"anyOf": [_STR, {"type": "null"}]},
    },
    ["gate_id", "status", "detail"],
)
_SUGGESTION = _object(
    {
        "phrase": _STR,
        "count_in_chapter": {"type": "integer"},
        "examples": _STR_LIST,
        "tier": {"type": "string", "enum": ["banned", "limited"]},
        "note": _STR,
    },
    ["phrase", "count_in_chapter", "examples", "tier", "note"],
)
# Evidence first, then the reason, then the score (issue 9 item 3): a model writes in schema order, so it
# quotes before it reasons and reasons before it scores.
_SCORE = _object({"evidence": _STR, "reason": _STR, "score": {"type": "integer"}}, ["evidence", "reason", "score"])
_DIMENSIONS = [
    "plot_logic",
    "character",
    "immersion",
    "foreshadowing",
    "pacing",
    "style_naturalness",
    "emotional_impact",
    "storyline_coherence",
]

JUDGE_SCHEMA: dict[str, Any] = _object(
    {
        "chapter": {"type": "integer"},
        "contract_verification": _object(
            {
                "l1_checks": {"type": "array", "items": _CHECK},
                "l2_checks": {"type": "array", "items": _CHECK},
                "l3_checks": {"type": "array", "items": _CHECK},
                "ls_checks": {"type": "array", "items": _CHECK},
                "platform_hard_gates": {"type": "array", "items": _GATE},
                "has_violations": {"type": "boolean"},
            },
            ["l1_checks", "l2_checks", "l3_checks", "ls_checks", "has_violations"],
        ),
        "scores": _object({name: _SCORE for name in _DIMENSIONS}, list(_DIMENSIONS)),
        "recommendation": {"type": "string", "enum": ["pass", "polish", "revise", "rewrite"]},
        "risk_flags": _STR_LIST,
        "required_fixes": {
            "type": "array",
            "items": _object({"target": _STR, "instruction": _STR}, ["target", "instruction"]),
        },
        "issues": _STR_LIST,
        "strengths": _STR_LIST,
        "blacklist_suggestions": {"type": "array", "items": _SUGGESTION},
    },
    [
        "chapter",
        "contract_verification",
        "scores",
        "recommendation",
        "risk_flags",
        "required_fixes",
        "issues",
        "strengths",
    ],
)

_SCHEMAS: dict[type[BaseModel], dict[str, Any]] = {
    SummarizerReply: SUMMARIZER_SCHEMA,
    RefineReply: REFINER_SCHEMA,
    JudgeReply: JUDGE_SCHEMA,
}


def schema_for(model_cls: type[BaseModel]) -> dict[str, Any] | None:
    """The output_config JSON schema of a reply model (None for a model without one)."""
    return _SCHEMAS.get(model_cls)
