"""`storylines/storyline-spec.json`: the LS rules QualityJudge checks besides L1/L2/L3 (seed 000 6.6.4, 6.6.7).

Mostly soft: only timeline contradictions (LS-001) and cross-line leaks in a non-convergence chapter (LS-005)
are hard. A rule without `constraint_type` is read as soft, the seed's default stance for this layer.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from studio.models.base import FileModel


class StorylineRule(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    id: str = Field(min_length=1)
    category: str = ""
    rule: str = Field(min_length=1)
    constraint_type: Literal["hard", "soft"] = "soft"


class StorylineSpec(FileModel):
    spec_version: int = Field(default=1, ge=1)
    rules: list[StorylineRule] = Field(default_factory=list)

    def hard_rules(self) -> list[StorylineRule]:
        return [r for r in self.rules if r.constraint_type == "hard"]

    def get(self, rule_id: str) -> StorylineRule | None:
        return next((r for r in self.rules if r.id == rule_id), None)


def default_storyline_spec() -> StorylineSpec:
    """LS-001..LS-004 as in the seed's example, plus LS-005 (anti-contamination, section 6.6.7)."""

    def rule(rule_id: str, category: str, text: str, hard: bool = False) -> StorylineRule:
        return StorylineRule(
            id=rule_id, category=category, rule=text, constraint_type="hard" if hard else "soft"
        )

    return StorylineSpec(
        spec_version=1,
        rules=[
            rule("LS-001", "continuity", "同一时间发生的不同线事件，时间线不得矛盾", hard=True),
            rule("LS-002", "transition", "故事线切换时，建议在开头 200 字内建立时空锚点"),
            rule("LS-003", "convergence", "交汇事件前建议在涉及的线各铺垫至少一次"),
            rule("LS-004", "dormancy", "休眠线重新激活时，建议通过角色回忆或对话重建读者记忆"),
            rule(
                "LS-005",
                "contamination",
                "非交汇事件章中，leak_risk 为 high 的跨线实体泄漏（其他线的角色、地点、事件）必须强制修正",
                hard=True,
            ),
        ],
    )
