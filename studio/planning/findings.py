"""What the plan checks report: `Finding` (one error or warning, with a stable code) and `PlanReport`.

A finding is data (code, severity, where, chapter, params); its text comes from the `MESSAGES` catalog in the
author's language, or in Chinese for the repair prompt sent back to the model. `where` is a language-neutral
locator (`outline ch5`, `schedule.convergence_events[0]`, `contract ch7 preconditions.lin-feng.location`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from studio.i18n import Catalog, Lang, tr_count

__all__ = ["MESSAGES", "Finding", "PlanReport", "Severity"]

Severity = Literal["error", "warning"]

MESSAGES: Catalog = {
    # chapters
    "chapter_gap": ("章号不连续：缺少第 {missing} 章", "chapter numbers have a gap: chapters {missing} missing"),
    "chapter_gap_one": ("章号不连续：缺少第 {missing} 章", "chapter numbers have a gap: chapter {missing} missing"),
    "duplicate_chapter": ("第 {chapter} 章出现了 {count} 次", "chapter {chapter} appears {count} times"),
    "chapter_outside": (
        "第 {chapter} 章不在本卷范围（第 {first}-{last} 章）内",
        "chapter {chapter} is outside the volume (chapters {first}-{last})",
    ),
    "missing_contract": ("第 {chapter} 章没有章节契约", "chapter {chapter} has no chapter contract"),
    "contract_storyline_mismatch": (
        "第 {chapter} 章：契约写的故事线是 {contract}，大纲写的是 {outline}",
        "chapter {chapter}: the contract's storyline is {contract}, the outline's is {outline}",
    ),
    "missing_storyline": (
        "第 {chapter} 章没有写明故事线（本卷有多条活跃线）",
        "chapter {chapter} names no storyline (the volume has several active lines)",
    ),
    # ids
    "unknown_storyline": ("未知的故事线 id：{id}", "unknown storyline id: {id}"),
    "unknown_character": ("未知的角色：{id}", "unknown character: {id}"),
    "unknown_rule": ("未知的世界规则 id：{id}", "unknown world rule id: {id}"),
    "unknown_thread": ("未知的伏笔 id：{id}", "unknown foreshadowing id: {id}"),
    # schedule
    "schedule_volume": (
        "故事线调度写的是第 {got} 卷，本次规划的是第 {volume} 卷",
        "the storyline schedule is for volume {got}, the plan is for volume {volume}",
    ),
    "too_many_lines": (
        "本卷有 {count} 条活跃故事线，最多 {max} 条",
        "{count} active storylines in the volume, at most {max}",
    ),
    "duplicate_line": ("故事线 {id} 在活跃列表中出现了两次", "storyline {id} is listed as active twice"),
    "storyline_not_active": (
        "第 {chapter} 章属于故事线 {id}，但它不在本卷的活跃故事线中",
        "chapter {chapter} is on storyline {id}, which is not active in this volume",
    ),
    "convergence_outside": (
        "交汇事件的章节范围 {first}-{last} 超出本卷（第 {volume_first}-{volume_last} 章）",
        "convergence range {first}-{last} is outside the volume (chapters {volume_first}-{volume_last})",
    ),
    "convergence_inactive": (
        "交汇事件涉及的故事线 {id} 不在本卷的活跃故事线中",
        "the convergence event involves storyline {id}, which is not active in this volume",
    ),
    # threads
    "thread_no_scope": ("伏笔 {id} 没有写明范围（short / medium / long）", "thread {id} has no scope"),
    "thread_no_range": ("伏笔 {id} 没有预计回收的章节范围", "thread {id} has no target resolve range"),
    "thread_planted_outside": (
        "伏笔 {id} 埋在第 {chapter} 章，不在本卷（第 {first}-{last} 章）内",
        "thread {id} is planted in chapter {chapter}, outside the volume (chapters {first}-{last})",
    ),
    "thread_range_before_plant": (
        "伏笔 {id} 的回收范围 {first}-{last} 早于埋设章（第 {chapter} 章）",
        "thread {id} is to be resolved in {first}-{last}, before it is planted (chapter {chapter})",
    ),
    "thread_exists": ("伏笔 id {id} 已存在，新伏笔请换一个 id", "thread id {id} already exists; use a new id"),
    # chaining
    "precondition_mismatch": (
        "第 {chapter} 章前置条件：{character} 的 {field} 写作“{wrote}”，但{source}之后应为“{expected}”",
        "chapter {chapter} precondition: {character}.{field} is \"{wrote}\", but after {source_en} it is "
        "\"{expected}\"",
    ),
    "source_state": ("当前状态", "the current state"),
    "source_chapter": ("第 {chapter} 章", "chapter {chapter}"),
    # pacing (warnings)
    "primary_run": (
        "主线 {id} 连续 {count} 章（第 {first}-{last} 章），超过节奏上限 {max} 章",
        "primary line {id} runs {count} chapters in a row ({first}-{last}), more than the pacing limit {max}",
    ),
    "secondary_gap": (
        "副线 {id} 在第 {first}-{last} 章连续 {count} 章未出现，节奏要求每 {every} 章至少出现一次",
        "secondary line {id} is absent for {count} chapters ({first}-{last}); the pacing asks for one "
        "appearance every {every} chapters",
    ),
    "secondary_absent": (
        "副线 {id} 在本卷大纲中一次也没有出现",
        "secondary line {id} never appears in the volume's outline",
    ),
}


STORYLINE_CODES = frozenset({
    "primary_run", "secondary_gap", "secondary_absent", "storyline_not_active", "duplicate_line",
    "convergence_inactive",
})
"""The findings whose `id` is a storyline the project knows (`unknown_storyline`'s is not): shown by name."""


@dataclass(frozen=True)
class Finding:
    code: str
    severity: Severity
    where: str
    params: dict[str, object] = field(default_factory=dict)
    chapter: int | None = None

    def message(self, lang: Lang = "zh", storylines: Mapping[str, str] | None = None) -> str:
        """The finding in `lang`; `storylines` (id -> name, `Storylines.names`) names the storyline a pacing or
        schedule finding is about (an id it does not name is shown as it is)."""
        # A `count` param picks the English singular (`tr_count`); the text itself never shows it.
        count = self.params.get("count")
        params = dict(self.params)
        if storylines and self.code in STORYLINE_CODES and isinstance(params.get("id"), str):
            params["id"] = storylines.get(str(params["id"]), params["id"])
        return tr_count(MESSAGES, self.code, lang, count if isinstance(count, int) else 0, **params)

    def line(self, lang: Lang = "zh", storylines: Mapping[str, str] | None = None) -> str:
        return f"[{self.where}] {self.message(lang, storylines)}"


@dataclass
class PlanReport:
    errors: list[Finding] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    def add(self, finding: Finding) -> None:
        (self.errors if finding.severity == "error" else self.warnings).append(finding)

    def extend(self, findings: list[Finding]) -> None:
        for finding in findings:
            self.add(finding)

    def codes(self) -> list[str]:
        return [f.code for f in [*self.errors, *self.warnings]]

    def error_lines(self, lang: Lang = "zh") -> list[str]:
        """The errors as lines, for the repair prompt (Chinese) or the author."""
        return [f.line(lang) for f in self.errors]
