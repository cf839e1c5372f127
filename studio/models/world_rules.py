"""`world/rules.json`: L1 world rules, the hard constraints QualityJudge checks one by one (seed 000 6.5.2).

Rule ids (`W-001`) are not file names, so they are only required to be non-empty; duplicates are reported
by `problems()`. A rule without `constraint_type` is hard: L1 is the "cannot be violated" layer.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from studio.i18n import Catalog
from studio.models.base import FileModel
from studio.models.validation_text import FieldProblem, field_problem

MESSAGES: Catalog = {"duplicate_rule": ("规则 id {id!r} 重复", "duplicate rule id {id!r}")}


class WorldRule(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    id: str = Field(min_length=1)
    category: str = ""
    rule: str = Field(min_length=1)
    constraint_type: Literal["hard", "soft"] = "hard"
    exceptions: list[str] = Field(default_factory=list)
    introduced_chapter: int | None = Field(default=None, ge=1)
    last_verified: int | None = Field(default=None, ge=1)


class WorldRules(FileModel):
    rules: list[WorldRule] = Field(default_factory=list)

    def get(self, rule_id: str) -> WorldRule | None:
        return next((r for r in self.rules if r.id == rule_id), None)

    def hard_rules(self) -> list[WorldRule]:
        return [r for r in self.rules if r.constraint_type == "hard"]

    def problems(self) -> list[FieldProblem]:
        out: list[FieldProblem] = []
        seen: set[str] = set()
        for i, rule in enumerate(self.rules):
            if rule.id in seen:
                out.append(field_problem(MESSAGES, "duplicate_rule", f"$.rules[{i}].id", id=rule.id))
            seen.add(rule.id)
        return out
